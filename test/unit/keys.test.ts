/** Exact key strings: a change here is a data migration, so it must be deliberate. */
import * as keys from '../../shared/platform/db/keys';
import { newId } from '../../shared/platform/ids';

describe('table keys', () => {
  it('puts every project resource under the project partition', () => {
    expect(keys.segment('p1', 's1')).toEqual({ PK: 'PROJECT#p1', SK: 'SEGMENT#s1' });
    expect(keys.segments('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'SEGMENT#' });
    expect(keys.apiKey('p1', 'k1')).toEqual({ PK: 'PROJECT#p1', SK: 'API_KEY#k1' });
    expect(keys.project('p1')).toEqual({ PK: 'PROJECT#p1', SK: 'PROJECT' });
    // the whole contact property schema is one item, beside (not under) the `CONTACT#` prefix that lists contacts
    expect(keys.contactProperties('p1')).toEqual({ PK: 'PROJECT#p1', SK: 'CONTACT_PROPERTIES' });
    expect(keys.contactProperties('p1').SK.startsWith(keys.contacts('p1').prefix)).toBe(false);
  });

  it('keeps custom events by name with an id pointer, and automations beside their versions and trigger entries', () => {
    expect(keys.customEvent('p1', 'user.created')).toEqual({ PK: 'PROJECT#p1', SK: 'CUSTOM_EVENT#user.created' });
    expect(keys.customEventId('p1', 'e1')).toEqual({ PK: 'PROJECT#p1', SK: 'CUSTOM_EVENT_ID#e1' });
    expect(keys.automation('p1', 'a1')).toEqual({ PK: 'PROJECT#p1', SK: 'AUTOMATION#a1' });
    expect(keys.automationVersion('p1', 'a1', 12)).toEqual({ PK: 'PROJECT#p1', SK: 'AUTOMATION_VERSION#a1#000012' });
    // versions sit beside, not under, the `AUTOMATION#` prefix that lists automations
    expect(keys.automationVersion('p1', 'a1', 1).SK.startsWith(keys.automations('p1').prefix)).toBe(false);
    expect(keys.customEventId('p1', 'e1').SK.startsWith('CUSTOM_EVENT#')).toBe(false);
    expect(keys.automationTrigger('p1', 'user.created', 'a1')).toEqual({
      PK: 'PROJECT#p1#AUTOMATION_TRIGGER#user.created',
      SK: 'AUTOMATION#a1',
    });
    expect(keys.automationTriggers('p1', 'user.created')).toEqual({
      PK: 'PROJECT#p1#AUTOMATION_TRIGGER#user.created',
      prefix: 'AUTOMATION#',
    });
  });

  it('spreads the collections written per email over 16 shards of the project, by the random end of the id', () => {
    const id = '01a20abc-ed14-74e4-ba7e-1149298b61ff'; // ...ff: shard 255 % 16 = 15
    expect(keys.shardOf(id)).toBe(15);
    expect(keys.email('p1', id)).toEqual({ PK: 'PROJECT#p1#EMAILS#15', SK: `EMAIL#${id}` });
    expect(keys.event('p1', id)).toEqual({ PK: 'PROJECT#p1#EVENTS#15', SK: `EVENT#${id}` });
    expect(keys.pendingEmailFrom('p1', 'Example.COM', id)).toEqual({
      PK: 'PROJECT#p1#PENDING_FROM#example.com#15',
      SK: `EMAIL#${id}`,
    });
    expect(keys.broadcastRecipient('p1', 'b1', id)).toEqual({ PK: 'PROJECT#p1#BROADCAST#b1#15', SK: `CONTACT#${id}` });
    expect(keys.requestLog('p1', id)).toEqual({ PK: 'PROJECT#p1#LOGS#15', SK: `LOG#${id}` });
    expect(keys.requestLogs('p1')).toMatchObject({ prefix: 'LOG#' });
    for (const collection of [
      keys.emails('p1'),
      keys.events('p1'),
      keys.pendingEmailsFrom('p1', 'example.com'),
      keys.broadcastRecipients('p1', 'b1'),
      keys.requestLogs('p1'),
    ]) {
      expect(collection.PKs).toHaveLength(keys.COLLECTION_SHARDS);
      expect(new Set(collection.PKs).size).toBe(keys.COLLECTION_SHARDS);
    }
    expect(keys.emails('p1').PKs).toContain(keys.email('p1', id).PK);
    // ids spread evenly: 1,600 UUIDv7s land on every shard
    const counts = new Array(keys.COLLECTION_SHARDS).fill(0);
    for (let i = 0; i < 1600; i++) counts[keys.shardOf(newId())]++;
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });

  it('keeps global lookups on keys of their own', () => {
    expect(keys.apiKeyHash('abc')).toEqual({ PK: 'API_KEY_HASH#abc', SK: 'API_KEY_HASH' });
    expect(keys.defaultProject()).toEqual({ PK: 'DEPLOYMENT', SK: 'DEFAULT_PROJECT' });
  });

  it('keys domains by project, their names deployment-wide (lower-cased), and unsettled ones on GSI1', () => {
    expect(keys.domain('p1', 'd1')).toEqual({ PK: 'PROJECT#p1', SK: 'DOMAIN#d1' });
    expect(keys.domains('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'DOMAIN#' });
    expect(keys.domainName('Example.COM')).toEqual({ PK: 'DOMAIN_NAME#example.com', SK: 'DOMAIN_NAME' });
    expect(keys.testDomainName('p1_test', 'Example.COM')).toEqual({
      PK: 'PROJECT#p1_test',
      SK: 'DOMAIN_NAME#example.com',
    });
    expect(keys.domainUnsettled('d1')).toEqual({ GSI1PK: 'DOMAIN_UNSETTLED', GSI1SK: 'd1' });
  });

  it('keys a suppression by its lower-cased address (the canonical entry) and again by its id', () => {
    expect(keys.suppression('p1', 'Someone@Example.COM')).toEqual({
      PK: 'PROJECT#p1',
      SK: 'SUPPRESSION#someone@example.com',
    });
    expect(keys.suppressionById('p1', 's1')).toEqual({ PK: 'PROJECT#p1', SK: 'SUPPRESSION_ID#s1' });
    expect(keys.suppressions('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'SUPPRESSION_ID#' });
    expect(keys.suppression('p1', 'a@b.c').SK.startsWith(keys.suppressions('p1').prefix)).toBe(false);
  });

  it('never lets one collection prefix swallow another', () => {
    const prefixes = [
      keys.segments('p').prefix,
      keys.apiKeys('p').prefix,
      keys.events('p').prefix,
      keys.domains('p').prefix,
      keys.suppressions('p').prefix,
    ];
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
  });
});
