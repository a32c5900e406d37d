/** The DNS records a customer copies into their zone: a wrong name or value here means mail that never verifies. */
import { buildRecords, isSettled, statusFromSes, type RecordInput } from '../../shared/domains/records';
import { matchingEventTypes } from '../../shared/domains/identity';
import { reportAddress, reportAddressOf } from '../../shared/domains/report-addresses';

const base: RecordInput = {
  name: 'example.com',
  region: 'ap-southeast-2',
  dkimTokens: ['tok1', 'tok2', 'tok3'],
  dkimStatus: 'pending',
  mailFromStatus: 'verified',
  receiving: 'disabled',
  trackingSubdomain: null,
  returnPath: 'send',
};

describe('report addresses', () => {
  const id = '01a21f80-2464-7125-8477-2918596a4646';
  it('suggests rua= the DMARC report address and a TLS-RPT record when the deployment has a reports domain', () => {
    const reportAddresses = {
      dmarc: reportAddress('dmarc', id, 'reports.example.net'),
      tls: reportAddress('tls', id, 'reports.example.net'),
    };
    const records = buildRecords({ ...base, reportAddresses });
    expect(records.filter((r) => r.record === 'DMARC' || r.record === 'TLS-RPT')).toEqual([
      {
        record: 'DMARC',
        name: '_dmarc.example.com',
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: `"v=DMARC1; p=none; rua=mailto:dmarc+${id}@reports.example.net;"`,
        optional: true,
      },
      {
        record: 'TLS-RPT',
        name: '_smtp._tls.example.com',
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: `"v=TLSRPTv1; rua=mailto:tls+${id}@reports.example.net"`,
        optional: true,
      },
    ]);
    expect(reportAddress('dmarc', id, undefined)).toBeUndefined();
    expect(buildRecords({ ...base, reportAddresses: {} }).map((r) => r.record)).not.toContain('TLS-RPT');
  });

  it('reads a report address back to its kind and domain id, and nothing else', () => {
    // in any case: mail systems may change an address's case on the way
    expect(reportAddressOf(`DMARC+${id.toUpperCase()}@Reports.Example.net`, 'reports.example.net')).toEqual({
      kind: 'dmarc',
      domainId: id,
    });
    expect(reportAddressOf(`Reports <dmarc+${id}@reports.example.net>`, 'reports.example.net')).toEqual({
      kind: 'dmarc',
      domainId: id,
    });
    expect(reportAddressOf(`tls+${id}@reports.example.net`, 'reports.example.net')).toEqual({
      kind: 'tls',
      domainId: id,
    });
    for (const other of [
      `dmarc+${id}@other.example.net`,
      `dmarc+${id}@sub.reports.example.net`,
      `abuse+${id}@reports.example.net`,
      `dmarc+not-an-id@reports.example.net`,
      `dmarc@reports.example.net`,
    ])
      expect(reportAddressOf(other, 'reports.example.net')).toBeUndefined();
    expect(reportAddressOf(`dmarc+${id}@reports.example.net`, undefined)).toBeUndefined();
  });
});

describe('domain records', () => {
  it('puts the MAIL FROM records under the custom return path', () => {
    const records = buildRecords({ ...base, returnPath: 'bounces' });
    expect(records.filter((r) => r.record === 'MX' || r.record === 'SPF').map((r) => r.name)).toEqual([
      'bounces.example.com',
      'bounces.example.com',
    ]);
  });

  it('lists three DKIM CNAMEs, then the MAIL FROM MX and SPF, with their own statuses, then the optional DMARC', () => {
    expect(buildRecords(base)).toEqual([
      {
        record: 'DKIM',
        name: 'tok1._domainkey.example.com',
        type: 'CNAME',
        ttl: 'Auto',
        status: 'pending',
        value: 'tok1.dkim.amazonses.com',
      },
      {
        record: 'DKIM',
        name: 'tok2._domainkey.example.com',
        type: 'CNAME',
        ttl: 'Auto',
        status: 'pending',
        value: 'tok2.dkim.amazonses.com',
      },
      {
        record: 'DKIM',
        name: 'tok3._domainkey.example.com',
        type: 'CNAME',
        ttl: 'Auto',
        status: 'pending',
        value: 'tok3.dkim.amazonses.com',
      },
      {
        record: 'MX',
        name: 'send.example.com',
        type: 'MX',
        ttl: 'Auto',
        status: 'verified',
        value: 'feedback-smtp.ap-southeast-2.amazonses.com',
        priority: 10,
      },
      {
        record: 'SPF',
        name: 'send.example.com',
        type: 'TXT',
        ttl: 'Auto',
        status: 'verified',
        value: '"v=spf1 include:amazonses.com ~all"',
      },
      {
        record: 'DMARC',
        name: '_dmarc.example.com',
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: '"v=DMARC1; p=none;"',
        optional: true,
      },
    ]);
  });

  it('adds the receiving MX only when receiving is enabled', () => {
    const records = buildRecords({ ...base, receiving: 'enabled' });
    expect(records.filter((r) => r.record === 'Receiving')).toEqual([
      {
        record: 'Receiving',
        name: 'example.com',
        type: 'MX',
        ttl: 'Auto',
        status: 'not_started',
        value: 'inbound-smtp.ap-southeast-2.amazonaws.com',
        priority: 10,
      },
    ]);
    expect(buildRecords(base).some((r) => r.record === 'Receiving')).toBe(false);
  });

  it('adds the tracking CNAME, last, only when a tracking subdomain is set', () => {
    const records = buildRecords({ ...base, receiving: 'enabled', trackingSubdomain: 'links' });
    expect(records[records.length - 1]).toEqual({
      record: 'Tracking',
      name: 'links.example.com',
      type: 'CNAME',
      ttl: 'Auto',
      status: 'not_started',
      value: 'r.ap-southeast-2.awstrack.me',
    });
    expect(buildRecords(base).some((r) => r.record === 'Tracking')).toBe(false);
  });

  it('uses the region it is given in every regional host', () => {
    const values = buildRecords({ ...base, region: 'eu-west-1', receiving: 'enabled', trackingSubdomain: 't' }).map(
      (r) => r.value,
    );
    expect(values).toEqual(
      expect.arrayContaining([
        'feedback-smtp.eu-west-1.amazonses.com',
        'inbound-smtp.eu-west-1.amazonaws.com',
        'r.eu-west-1.awstrack.me',
      ]),
    );
  });
});

describe('domain statuses', () => {
  it.each([
    ['NOT_STARTED', 'not_started'],
    ['PENDING', 'pending'],
    ['SUCCESS', 'verified'],
    ['FAILED', 'failed'],
    ['TEMPORARY_FAILURE', 'temporary_failure'],
    [undefined, 'not_started'],
  ])('SES %s is %s', (ses, ours) => {
    expect(statusFromSes(ses)).toBe(ours);
  });

  it('counts only verified and failed as settled (the scheduled check stops re-reading them)', () => {
    expect(
      ['not_started', 'pending', 'verified', 'failed', 'temporary_failure'].filter((s) => isSettled(s as never)),
    ).toEqual(['verified', 'failed']);
  });
});

describe('event destination of a domain', () => {
  it('matches OPEN and CLICK only when the domain tracks them', () => {
    expect(matchingEventTypes({ open_tracking: false, click_tracking: false })).not.toEqual(
      expect.arrayContaining(['OPEN']),
    );
    expect(matchingEventTypes({ open_tracking: false, click_tracking: false })).not.toEqual(
      expect.arrayContaining(['CLICK']),
    );
    expect(matchingEventTypes({ open_tracking: true, click_tracking: false })).toEqual(
      expect.arrayContaining(['OPEN', 'BOUNCE', 'COMPLAINT', 'DELIVERY']),
    );
    expect(matchingEventTypes({ open_tracking: false, click_tracking: true })).toContain('CLICK');
  });
});
