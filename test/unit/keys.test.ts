/** Exact key strings: a change here is a data migration, so it must be deliberate. */
import * as keys from '../../shared/platform/db/keys';

describe('table keys', () => {
  it('puts every project resource under the project partition', () => {
    expect(keys.segment('p1', 's1')).toEqual({ PK: 'PROJECT#p1', SK: 'SEGMENT#s1' });
    expect(keys.segments('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'SEGMENT#' });
    expect(keys.apiKey('p1', 'k1')).toEqual({ PK: 'PROJECT#p1', SK: 'API_KEY#k1' });
    expect(keys.event('p1', 'e1')).toEqual({ PK: 'PROJECT#p1', SK: 'EVENT#e1' });
    expect(keys.project('p1')).toEqual({ PK: 'PROJECT#p1', SK: 'PROJECT' });
  });

  it('keeps global lookups on keys of their own', () => {
    expect(keys.apiKeyHash('abc')).toEqual({ PK: 'API_KEY_HASH#abc', SK: 'API_KEY_HASH' });
    expect(keys.defaultProject()).toEqual({ PK: 'DEPLOYMENT', SK: 'DEFAULT_PROJECT' });
  });

  it('keys domains by project, their names deployment-wide (lower-cased), and unsettled ones on GSI1', () => {
    expect(keys.domain('p1', 'd1')).toEqual({ PK: 'PROJECT#p1', SK: 'DOMAIN#d1' });
    expect(keys.domains('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'DOMAIN#' });
    expect(keys.domainName('Example.COM')).toEqual({ PK: 'DOMAIN_NAME#example.com', SK: 'DOMAIN_NAME' });
    expect(keys.domainUnsettled('d1')).toEqual({ GSI1PK: 'DOMAIN_UNSETTLED', GSI1SK: 'd1' });
  });

  it('keys a suppression by its lower-cased address (the canonical entry) and again by its id', () => {
    expect(keys.suppression('p1', 'Someone@Example.COM')).toEqual({ PK: 'PROJECT#p1', SK: 'SUPPRESSION#someone@example.com' });
    expect(keys.suppressionById('p1', 's1')).toEqual({ PK: 'PROJECT#p1', SK: 'SUPPRESSION_ID#s1' });
    expect(keys.suppressions('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'SUPPRESSION_ID#' });
    expect(keys.suppression('p1', 'a@b.c').SK.startsWith(keys.suppressions('p1').prefix)).toBe(false);
  });

  it('never lets one collection prefix swallow another', () => {
    const prefixes = [keys.segments('p').prefix, keys.apiKeys('p').prefix, keys.events('p').prefix, keys.domains('p').prefix, keys.suppressions('p').prefix];
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
  });
});
