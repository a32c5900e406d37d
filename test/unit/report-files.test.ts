/**
 * Report files (shared/deliverability/report-files.ts, issue 40): DMARC aggregate XML and TLS-RPT
 * JSON, plain, gzip or zip, read into reports or dropped with a reason; hostile files (bombs, DTDs,
 * archives of many entries) dropped within the limits, never a throw. Then the corpus under
 * test/fixtures/reports/ (manifest.json; a missing or empty one fails the run): every entry meets its
 * expectation, and at least 99.5% of the real-format reports parse.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import fc from 'fast-check';
import type { DmarcReport, TlsReport } from '../../shared/deliverability/model';
import {
  MAX_REPORT_FILE_BYTES,
  MAX_REPORT_XML_BYTES,
  type ReadReport,
  readReportFile,
} from '../../shared/deliverability/report-files';
import { type GeneratedKind, generateFixture } from '../fixtures/reports/generate';
import { bySize, deep, seedFrom } from '../support/depth';

/** The properties' seed: fixed in `npm test`, random under `npm run test:deep`; PROPERTY_SEED=<seed> replays one. */
const SEED = seedFrom('PROPERTY_SEED', 20_261_129);
// test:deep runs ten times the cases: minutes, not the 30 s a unit test gets
if (deep) jest.setTimeout(600_000);

const utf8 = (text: string) => new TextEncoder().encode(text);
const read = (bytes: Uint8Array, filename: string | null = null, contentType: string | null = null) =>
  readReportFile({ filename, contentType, bytes });
const readText = (text: string) => read(utf8(text));
const report = <T extends DmarcReport | TlsReport>(result: ReadReport): T => {
  if (!result.ok) throw new Error(`dropped (${result.drop}): ${result.detail}`);
  return result.report as T;
};

const RECORD = `
  <record>
    <row>
      <source_ip>192.0.2.10</source_ip>
      <count>12</count>
      <policy_evaluated>
        <disposition>none</disposition>
        <dkim>pass</dkim>
        <spf>fail</spf>
        <reason><type>forwarded</type><comment>looks forwarded</comment></reason>
      </policy_evaluated>
    </row>
    <identifiers>
      <header_from>Example.com</header_from>
      <envelope_from>bounce.example.com</envelope_from>
    </identifiers>
    <auth_results>
      <dkim><domain>example.com</domain><selector>s1</selector><result>pass</result></dkim>
      <dkim><domain>esp.example</domain><result>fail</result></dkim>
      <spf><domain>bounce.example.com</domain><scope>mfrom</scope><result>softfail</result></spf>
    </auth_results>
  </record>`;

/** An RFC 7489 appendix C report, as Google and most reporters write it. */
const dmarcXml = (records = RECORD, metadataExtra = '') => `<?xml version="1.0" encoding="UTF-8" ?>
<feedback>
  <report_metadata>
    <org_name>AT&amp;T Mail</org_name>
    <email>noreply-dmarc@att.example</email>
    <report_id>17000000001234</report_id>
    <date_range><begin>1700000000</begin><end>1700086399</end></date_range>${metadataExtra}
  </report_metadata>
  <policy_published>
    <domain>Example.COM</domain>
    <adkim>r</adkim>
    <aspf>s</aspf>
    <p>quarantine</p>
    <sp>none</sp>
    <pct>100</pct>
  </policy_published>${records}
</feedback>`;

const EXPECTED_DMARC: DmarcReport = {
  kind: 'dmarc',
  report_id: '17000000001234',
  org_name: 'AT&T Mail',
  email: 'noreply-dmarc@att.example',
  begin: 1700000000,
  end: 1700086399,
  domain: 'example.com',
  policy: { p: 'quarantine', sp: 'none', pct: 100, adkim: 'r', aspf: 's', np: null },
  records: [
    {
      source_ip: '192.0.2.10',
      count: 12,
      disposition: 'none',
      dkim: 'pass',
      spf: 'fail',
      header_from: 'example.com',
      envelope_from: 'bounce.example.com',
      envelope_to: null,
      reasons: ['forwarded: looks forwarded'],
      dkim_results: [
        { domain: 'example.com', selector: 's1', result: 'pass' },
        { domain: 'esp.example', selector: null, result: 'fail' },
      ],
      spf_results: [{ domain: 'bounce.example.com', scope: 'mfrom', result: 'softfail' }],
    },
  ],
  errors: [],
};

/** RFC 8460 §4.4's example report, trimmed to one failure. */
const TLS_REPORT = {
  'organization-name': 'Company-X',
  'date-range': { 'start-datetime': '2016-04-01T00:00:00Z', 'end-datetime': '2016-04-01T23:59:59Z' },
  'contact-info': 'sts-reporting@company-x.example',
  'report-id': '5065427c-23d3-47ca-b6e0-946ea0e8c4be',
  policies: [
    {
      policy: {
        'policy-type': 'sts',
        'policy-string': ['version: STSv1', 'mode: testing', 'mx: *.mail.company-y.example', 'max_age: 86400'],
        'policy-domain': 'Company-Y.example',
        'mx-host': ['*.mail.company-y.example'],
      },
      summary: { 'total-successful-session-count': 5326, 'total-failure-session-count': 303 },
      'failure-details': [
        {
          'result-type': 'certificate-expired',
          'sending-mta-ip': '2001:db8:abcd:0012::1',
          'receiving-mx-hostname': 'mx1.mail.company-y.example',
          'failed-session-count': 100,
        },
        {
          'result-type': 'validation-failure',
          'sending-mta-ip': '198.51.100.62',
          'receiving-ip': '203.0.113.56',
          'receiving-mx-hostname': 'mx2.mail.company-y.example',
          'failed-session-count': 203,
          'additional-information': 'https://reports.company-x.example/report_info?id=5065427c-23d3#StarTTLS',
          'failure-reason-code': 'X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED',
        },
      ],
    },
  ],
};

const EXPECTED_TLS: TlsReport = {
  kind: 'tls',
  report_id: '5065427c-23d3-47ca-b6e0-946ea0e8c4be',
  org_name: 'Company-X',
  contact: 'sts-reporting@company-x.example',
  begin: 1459468800,
  end: 1459555199,
  policies: [
    {
      policy_type: 'sts',
      policy_domain: 'company-y.example',
      policy_strings: ['version: STSv1', 'mode: testing', 'mx: *.mail.company-y.example', 'max_age: 86400'],
      mx_hosts: ['*.mail.company-y.example'],
      successful_sessions: 5326,
      failed_sessions: 303,
      failures: [
        {
          result_type: 'certificate-expired',
          sending_mta_ip: '2001:db8:abcd:0012::1',
          receiving_mx_hostname: 'mx1.mail.company-y.example',
          receiving_ip: null,
          failed_session_count: 100,
          additional_information: null,
          failure_reason_code: null,
        },
        {
          result_type: 'validation-failure',
          sending_mta_ip: '198.51.100.62',
          receiving_mx_hostname: 'mx2.mail.company-y.example',
          receiving_ip: '203.0.113.56',
          failed_session_count: 203,
          additional_information: 'https://reports.company-x.example/report_info?id=5065427c-23d3#StarTTLS',
          failure_reason_code: 'X509_V_ERR_PROXY_PATH_LENGTH_EXCEEDED',
        },
      ],
    },
  ],
};

const tlsJson = (changes: Record<string, unknown> = {}) => JSON.stringify({ ...TLS_REPORT, ...changes });
const tlsPolicy = (changes: Record<string, unknown>) => ({ ...TLS_REPORT.policies[0], ...changes });

describe('DMARC aggregate reports', () => {
  it('reads a plain report into the normalised shape: lower-cased domains, entities decoded, auth results kept', () => {
    expect(report(readText(dmarcXml()))).toEqual(EXPECTED_DMARC);
  });

  it('reads the same report gzipped, zipped, with a byte-order mark or in UTF-16, whatever its name and type say', () => {
    const xml = dmarcXml();
    const gz = gzipSync(utf8(xml));
    for (const result of [
      read(gz, 'google.com!example.com!1700000000!1700086399.xml.gz', 'application/gzip'),
      read(gz, 'report.xml', 'text/xml'), // gzip named and typed as plain XML
      read(zipSync({ 'google.com!example.com!1700000000!1700086399.xml': utf8(xml) }), 'r.zip', 'application/zip'),
      read(zipSync({ 'report/': {}, 'report/a.xml': utf8(xml), '__MACOSX/report/._a.xml': utf8('x') }), null, null),
      read(utf8(xml), 'report.xml.gz', 'application/octet-stream'), // plain XML named as gzip
      read(utf8(`\uFEFF\n  ${xml}`)),
      read(new Uint8Array([0xff, 0xfe, ...Buffer.from(`\uFEFF${xml}`.slice(1), 'utf16le')])),
    ])
      expect(report(result)).toEqual(EXPECTED_DMARC);
  });

  it('reads a Latin-1 report by its XML declaration', () => {
    const xml = dmarcXml().replace('encoding="UTF-8"', 'encoding="ISO-8859-1"').replace('AT&amp;T Mail', 'Société');
    expect(report<DmarcReport>(read(Buffer.from(xml, 'latin1'))).org_name).toBe('Société');
  });

  it('strips namespaces, tolerates element order and DMARCbis or unknown elements, and reads keywords without case', () => {
    const xml = `<?xml version="1.0"?>
<dmarc:feedback xmlns:dmarc="urn:ietf:params:xml:ns:dmarc-2.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <!-- a comment -->
  <dmarc:version>1.0</dmarc:version>
  <dmarc:policy_published>
    <dmarc:np>Reject</dmarc:np><dmarc:p>REJECT</dmarc:p><dmarc:domain>example.com.</dmarc:domain>
    <dmarc:testing>n</dmarc:testing><dmarc:discovery_method>treewalk</dmarc:discovery_method>
  </dmarc:policy_published>
  <dmarc:record>
    <dmarc:auth_results><dmarc:spf><dmarc:result>pass</dmarc:result><dmarc:domain>example.com</dmarc:domain></dmarc:spf></dmarc:auth_results>
    <dmarc:identifiers><dmarc:envelope_to>Receiver.example</dmarc:envelope_to><dmarc:header_from>example.com</dmarc:header_from></dmarc:identifiers>
    <dmarc:row>
      <dmarc:policy_evaluated><dmarc:spf>Pass</dmarc:spf><dmarc:dkim>FAIL</dmarc:dkim><dmarc:disposition>Reject</dmarc:disposition></dmarc:policy_evaluated>
      <dmarc:count>1</dmarc:count>
      <dmarc:source_ip>2001:db8::25</dmarc:source_ip>
    </dmarc:row>
  </dmarc:record>
  <dmarc:report_metadata>
    <dmarc:generator>Example MTA 1.2</dmarc:generator>
    <dmarc:date_range><dmarc:end>1700086399</dmarc:end><dmarc:begin>1700000000</dmarc:begin></dmarc:date_range>
    <dmarc:report_id><![CDATA[<id-1@reporter.example>]]></dmarc:report_id>
    <dmarc:org_name>Reporter</dmarc:org_name>
    <dmarc:error>could not resolve one source</dmarc:error>
    <dmarc:extra_contact_info>https://reporter.example/dmarc</dmarc:extra_contact_info>
  </dmarc:report_metadata>
  <dmarc:extensions><x:thing xmlns:x="urn:x">1</x:thing></dmarc:extensions>
</dmarc:feedback>`;
    expect(report(readText(xml))).toEqual({
      kind: 'dmarc',
      report_id: '<id-1@reporter.example>',
      org_name: 'Reporter',
      email: null,
      begin: 1700000000,
      end: 1700086399,
      domain: 'example.com',
      policy: { p: 'reject', sp: null, pct: null, adkim: 'r', aspf: 'r', np: 'reject' },
      records: [
        {
          source_ip: '2001:db8::25',
          count: 1,
          disposition: 'reject',
          dkim: 'fail',
          spf: 'pass',
          header_from: 'example.com',
          envelope_from: null,
          envelope_to: 'receiver.example',
          reasons: [],
          dkim_results: [],
          spf_results: [{ domain: 'example.com', scope: null, result: 'pass' }],
        },
      ],
      errors: ['could not resolve one source'],
    });
  });

  it('reads empty optional elements as absent, and drops a report without a record as malformed', () => {
    const xml = dmarcXml().replace('<sp>none</sp>', '<sp/>').replace('<pct>100</pct>', '<pct></pct>');
    expect(report(readText(xml))).toEqual({
      ...EXPECTED_DMARC,
      policy: { ...EXPECTED_DMARC.policy, sp: null, pct: null },
    });
    expect(readText(dmarcXml(''))).toEqual({ ok: false, drop: 'malformed', detail: 'record: missing' });
  });

  it("reads DMARCbis's pass disposition, and a reason without its type (KDDI's empty <reason>)", () => {
    const records =
      RECORD.replace('<disposition>none</disposition>', '<disposition>pass</disposition>') +
      RECORD.replace(
        /<reason>.*<\/reason>/,
        '<reason><type></type><comment>arc</comment></reason><reason><type/></reason>',
      );
    const parsed = report<DmarcReport>(readText(dmarcXml(records)));
    expect(parsed.records.map((r) => [r.disposition, r.reasons])).toEqual([
      ['pass', ['forwarded: looks forwarded']],
      ['none', ['arc']],
    ]);
  });

  it.each([
    ['org_name', /<org_name>.*<\/org_name>/, 'report_metadata.org_name: missing'],
    ['report_id', /<report_id>.*<\/report_id>/, 'report_metadata.report_id: missing'],
    ['begin', /<begin>.*<\/begin>/, 'report_metadata.date_range.begin: missing'],
    ['end', /<end>.*<\/end>/, 'report_metadata.date_range.end: missing'],
    ['date_range', /<date_range>.*<\/date_range>/, 'report_metadata.date_range: missing'],
    ['policy domain', /<domain>Example.COM<\/domain>/, 'policy_published.domain: missing'],
    ['p', /<p>quarantine<\/p>/, 'policy_published.p: missing'],
    ['source_ip', /<source_ip>.*<\/source_ip>/, 'record[0].row.source_ip: missing'],
    ['count', /<count>.*<\/count>/, 'record[0].row.count: missing'],
    ['policy_evaluated', /<policy_evaluated>[\s\S]*<\/policy_evaluated>/, 'record[0].row.policy_evaluated: missing'],
  ])('drops a report without %s as malformed, naming it', (_what, remove, detail) => {
    expect(readText(dmarcXml().replace(remove, ''))).toEqual({ ok: false, drop: 'malformed', detail });
  });

  it.each([
    ['a source that is not an IP', '<source_ip>192.0.2.300</source_ip>', 'record[0].row.source_ip: not an IP address'],
    ['a negative count', '<count>-1</count>', 'record[0].row.count: not a non-negative integer'],
    ['a fractional count', '<count>1.5</count>', 'record[0].row.count: not a non-negative integer'],
    [
      'a begin that is a date',
      '<begin>2024-01-01</begin>',
      'report_metadata.date_range.begin: not a non-negative integer',
    ],
    [
      'dkim neither pass nor fail',
      '<dkim>neutral</dkim>',
      'record[0].row.policy_evaluated.dkim: not one of pass, fail',
    ],
    ['an unknown disposition', '<disposition>discard</disposition>', 'policy_evaluated.disposition: not one of none'],
    ['a pct over 100', '<pct>101</pct>', 'policy_published.pct: not a percentage'],
    ['adkim neither r nor s', '<adkim>x</adkim>', 'policy_published.adkim: not one of r, s'],
    ['a record as text', '<record>12</record>', 'record[0]: not an element'],
  ])('drops a report with %s as malformed', (_what, replacement, detail) => {
    const tag = replacement.match(/^<(\w+)>/)![1];
    const xml = dmarcXml().replace(new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`), replacement);
    const result = readText(xml);
    expect(result).toMatchObject({ ok: false, drop: 'malformed' });
    expect(!result.ok && result.detail).toContain(detail);
  });

  it('drops XML that is not well-formed (cut short) as malformed, never a partial report', () => {
    const xml = dmarcXml(RECORD.repeat(3));
    const cut = xml.slice(0, xml.lastIndexOf('<record>') + 40);
    expect(readText(cut)).toMatchObject({
      ok: false,
      drop: 'malformed',
      detail: expect.stringMatching(/^not well-formed XML/),
    });
    expect(read(gzipSync(utf8(cut)))).toMatchObject({ ok: false, drop: 'malformed' });
    expect(read(gzipSync(utf8(xml)).subarray(0, 300))).toMatchObject({
      ok: false,
      drop: 'malformed',
      detail: expect.stringMatching(/^not a readable gzip/),
    });
  });

  it('drops XML whose root is not <feedback> as not a report', () => {
    expect(readText('<html><body><p>Your report</p></body></html>')).toEqual({
      ok: false,
      drop: 'not_a_report',
      detail: 'XML whose root is <html>, not <feedback>',
    });
    expect(readText('<feedback/><feedback/>')).toMatchObject({ ok: false, drop: 'malformed' });
  });

  it('refuses a DOCTYPE or an entity declaration unparsed (XML bombs, external entities)', () => {
    const laughs =
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>' +
      '<feedback><report_metadata><org_name>&lol2;</org_name></report_metadata></feedback>';
    const external = dmarcXml().replace(
      '<feedback>',
      '<!DOCTYPE feedback [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><feedback>',
    );
    for (const xml of [laughs, external, '<!doctype feedback><feedback/>', '<feedback><!ENTITY x "y"></feedback>'])
      expect(readText(xml)).toMatchObject({ ok: false, drop: 'unsafe_xml' });
    expect(read(gzipSync(utf8(laughs)))).toMatchObject({ ok: false, drop: 'unsafe_xml' });
  });

  it('reads a large report (10,000 records, one an IPv6 source) and sums nothing away', () => {
    const ipv6 = RECORD.replace('192.0.2.10', '2001:db8:85a3::8a2e:370:7334');
    const parsed = report<DmarcReport>(read(gzipSync(utf8(dmarcXml(RECORD.repeat(9_999) + ipv6)))));
    expect(parsed.records).toHaveLength(10_000);
    expect(parsed.records.reduce((sum, r) => sum + r.count, 0)).toBe(120_000);
    expect(parsed.records[9_999].source_ip).toBe('2001:db8:85a3::8a2e:370:7334');
  });
});

describe('TLS reports', () => {
  it("reads RFC 8460's example report, gzipped as reporters send it", () => {
    expect(report(read(gzipSync(utf8(tlsJson())), 'report.json.gz', 'application/tlsrpt+gzip'))).toEqual(EXPECTED_TLS);
    expect(report(read(utf8(tlsJson()), 'report.json', 'application/tlsrpt+json'))).toEqual(EXPECTED_TLS);
  });

  it('reads absent optional members (policy-domain too) as null or empty, a single mx-host string as a list, and offsets in dates', () => {
    const parsed = report<TlsReport>(
      readText(
        tlsJson({
          'contact-info': null,
          'date-range': { 'start-datetime': '2016-04-01T10:00:00+10:00', 'end-datetime': '2016-04-01T23:59:59.999Z' },
          policies: [
            {
              policy: { 'policy-type': 'no-policy-found', 'mx-host': 'mx.example.com' },
              summary: { 'total-successful-session-count': 3, 'total-failure-session-count': 0 },
            },
          ],
        }),
      ),
    );
    expect(parsed).toMatchObject({ contact: null, begin: 1459468800, end: 1459555199 });
    expect(parsed.policies).toEqual([
      {
        policy_type: 'no-policy-found',
        policy_domain: '',
        policy_strings: [],
        mx_hosts: ['mx.example.com'],
        successful_sessions: 3,
        failed_sessions: 0,
        failures: [],
      },
    ]);
  });

  it.each([
    [
      'a count as a string',
      {
        policies: [tlsPolicy({ summary: { 'total-successful-session-count': '5', 'total-failure-session-count': 0 } })],
      },
      'policies[0].summary.total-successful-session-count: not an integer ("5")',
    ],
    [
      'a negative count',
      {
        policies: [tlsPolicy({ summary: { 'total-successful-session-count': -1, 'total-failure-session-count': 0 } })],
      },
      'policies[0].summary.total-successful-session-count: negative (-1)',
    ],
    ['no summary', { policies: [tlsPolicy({ summary: undefined })] }, 'policies[0].summary: missing'],
    ['no report-id', { 'report-id': undefined }, 'report-id: missing'],
    ['an organization-name that is a number', { 'organization-name': 7 }, 'organization-name: not a string (7)'],
    [
      'a date that is not RFC 3339',
      { 'date-range': { 'start-datetime': '04/01/2016', 'end-datetime': '2016-04-01T23:59:59Z' } },
      'date-range.start-datetime: not an RFC 3339 date-time ("04/01/2016")',
    ],
    ['policies as an object', { policies: {} }, 'policies: not a list'],
    [
      'a failure without its count',
      { policies: [tlsPolicy({ 'failure-details': [{ 'result-type': 'starttls-not-supported' }] })] },
      'policies[0].failure-details[0].failed-session-count: missing',
    ],
  ])('drops a report with %s as malformed, naming it', (_what, changes, detail) => {
    expect(readText(tlsJson(changes))).toEqual({ ok: false, drop: 'malformed', detail });
  });

  it('drops broken JSON as malformed and JSON of another kind as not a report', () => {
    expect(readText(tlsJson().slice(0, 200))).toMatchObject({
      ok: false,
      drop: 'malformed',
      detail: expect.stringMatching(/^not valid JSON/),
    });
    expect(readText('{"type": "invoice", "total": 12}')).toMatchObject({ ok: false, drop: 'not_a_report' });
  });
});

describe('what is not a report, too large or an archive of the wrong kind', () => {
  it('drops content that is neither gzip, zip, XML nor JSON as not a report, naming the file', () => {
    expect(read(utf8('%PDF-1.7\n...'), 'invoice.pdf', 'application/pdf')).toEqual({
      ok: false,
      drop: 'not_a_report',
      detail: 'it is neither gzip, zip, XML nor JSON (invoice.pdf, application/pdf)',
    });
    expect(read(gzipSync(utf8('hello')), 'x.gz')).toMatchObject({ ok: false, drop: 'not_a_report' });
    expect(read(new Uint8Array(0))).toMatchObject({ ok: false, drop: 'not_a_report' });
  });

  it('drops a file over MAX_REPORT_FILE_BYTES as attached, unread', () => {
    const big = utf8(dmarcXml(RECORD.repeat(Math.ceil(MAX_REPORT_FILE_BYTES / RECORD.length))));
    expect(big.length).toBeGreaterThan(MAX_REPORT_FILE_BYTES);
    expect(read(big)).toMatchObject({ ok: false, drop: 'too_large' });
  });

  it('stops a gzip bomb at MAX_REPORT_XML_BYTES', () => {
    const bomb = gzipSync(new Uint8Array(MAX_REPORT_XML_BYTES * 5)); // 100 MB of zeros in about 100 KB
    expect(bomb.length).toBeLessThan(MAX_REPORT_FILE_BYTES);
    expect(read(bomb)).toEqual({
      ok: false,
      drop: 'too_large',
      detail: `unpacks to more than ${MAX_REPORT_XML_BYTES} bytes`,
    });
  });

  it('refuses a zip bomb by its declared size, and stops one that lies about its size while inflating', () => {
    const bomb = zipSync({ 'report.xml': new Uint8Array(MAX_REPORT_XML_BYTES * 3) });
    expect(read(bomb)).toEqual({
      ok: false,
      drop: 'too_large',
      detail: `report.xml declares ${MAX_REPORT_XML_BYTES * 3} bytes unpacked`,
    });
    // the same entry declaring 1,000 bytes, in its local header and in the central directory
    const liar = bomb.slice();
    const view = new DataView(liar.buffer);
    view.setUint32(22, 1_000, true);
    let central = liar.length - 4;
    while (view.getUint32(central, true) !== 0x02014b50) central--; // the central directory's entry
    view.setUint32(central + 24, 1_000, true);
    expect(read(liar)).toEqual({
      ok: false,
      drop: 'too_large',
      detail: `unpacks to more than ${MAX_REPORT_XML_BYTES} bytes`,
    });
  });

  it('drops archives that are not one report: 11 entries, two files, none, an archive inside', () => {
    const entries = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${i}.xml`, utf8(dmarcXml())]));
    expect(read(zipSync(entries(11)))).toEqual({ ok: false, drop: 'archive', detail: 'more than 10 entries' });
    expect(read(zipSync(entries(2)))).toMatchObject({
      ok: false,
      drop: 'archive',
      detail: expect.stringContaining('2 files'),
    });
    expect(read(zipSync({}))).toEqual({ ok: false, drop: 'archive', detail: 'no file in the archive' });
    expect(read(zipSync({ 'r.xml.gz': gzipSync(utf8(dmarcXml())) }))).toMatchObject({ ok: false, drop: 'archive' });
    expect(read(gzipSync(gzipSync(utf8(dmarcXml()))))).toMatchObject({ ok: false, drop: 'archive' });
    expect(read(gzipSync(zipSync({ 'r.xml': utf8(dmarcXml()) })))).toMatchObject({ ok: false, drop: 'archive' });
  });

  it('takes the one .xml or .json file of a zip that holds others beside it', () => {
    const zip = zipSync({
      'README.txt': utf8('Forwarded by the gateway'),
      'google.com!example.com!1!2.xml': utf8(dmarcXml()),
    });
    expect(report(read(zip))).toEqual(EXPECTED_DMARC);
    const ambiguous = zipSync({ 'a.txt': utf8('a'), 'b.csv': utf8('b') });
    expect(read(ambiguous)).toMatchObject({ ok: false, drop: 'archive', detail: expect.stringContaining('2 files') });
  });

  it('drops a zip that cannot be opened as an archive, and a broken gzip as malformed', () => {
    const zip = zipSync({ 'r.xml': utf8(dmarcXml()) }, { level: 9 });
    expect(read(zip.subarray(0, zip.length - 30))).toMatchObject({ ok: false, drop: 'archive' });
    expect(read(utf8('PK\x03\x04 this is not a zip'))).toMatchObject({ ok: false, drop: 'archive' });
    const corrupt = zip.slice();
    corrupt.fill(0xff, 40, 80); // the deflate stream
    expect(read(corrupt)).toMatchObject({ ok: false, drop: 'archive' });
    expect(read(gzipSync(utf8(dmarcXml())).subarray(0, 100))).toMatchObject({ ok: false, drop: 'malformed' });
  });

  it('reads a gzip followed by CRLF (Mimecast), but not by other bytes', () => {
    const gz = gzipSync(utf8(dmarcXml()));
    expect(report(read(new Uint8Array([...gz, 0x0d, 0x0a])))).toEqual(EXPECTED_DMARC);
    expect(read(new Uint8Array([...gz, 0x41, 0x42]))).toMatchObject({ ok: false, drop: 'malformed' });
  });

  it('never throws, whatever the bytes (random, and valid files with bytes flipped or cut)', () => {
    const valid = [
      utf8(dmarcXml()),
      gzipSync(utf8(dmarcXml())),
      zipSync({ 'r.xml': utf8(dmarcXml()) }),
      gzipSync(utf8(tlsJson())),
    ];
    const DROPS = ['not_a_report', 'malformed', 'too_large', 'unsafe_xml', 'archive'];
    const check = (bytes: Uint8Array) => {
      const result = read(bytes);
      if (!result.ok) expect(DROPS).toContain(result.drop);
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2_000 }), check), { seed: SEED, numRuns: bySize(300, 3_000) });
    fc.assert(
      fc.property(
        fc.constantFrom(...valid),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 8 }),
        fc.option(fc.nat()),
        (file, flips, cut) => {
          const bytes = file.slice(0, cut === null ? undefined : cut % (file.length + 1));
          for (const [at, value] of flips) if (bytes.length) bytes[at % bytes.length] = value;
          check(bytes);
        },
      ),
      { seed: SEED, numRuns: bySize(1_000, 10_000) },
    );
  });
});

/**
 * The corpus (issue 40: at least 100 real-format reports, the origin of each format): every entry of
 * test/fixtures/reports/manifest.json meets its expectation. Files are read from disk; `generate`
 * entries are built by the corpus's own generator (test/fixtures/reports/generate.ts: a huge file is
 * not kept in the repository).
 */
interface CorpusEntry {
  file?: string;
  generate?: string;
  bytes?: number;
  kind: 'dmarc' | 'tls';
  reporter?: string;
  format_origin?: string;
  /** what the entry shows */
  case?: string;
  content_type?: string | null;
  expect: 'report' | 'drop';
  drop_reason?: string;
  report_id?: string;
  org_name?: string;
  domain?: string;
  records?: number;
  messages?: number;
}

const CORPUS = join(__dirname, '..', 'fixtures', 'reports');
const MANIFEST = join(CORPUS, 'manifest.json');
const manifest: CorpusEntry[] = existsSync(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, 'utf8')) : [];

function corpusBytes(entry: CorpusEntry): Uint8Array {
  if (entry.generate) return generateFixture(entry.generate as GeneratedKind, entry.bytes!);
  return readFileSync(join(CORPUS, entry.file!));
}

const name = (entry: CorpusEntry) => entry.file ?? `${entry.generate} (${entry.bytes} bytes)`;
const summary = (parsed: DmarcReport | TlsReport) =>
  parsed.kind === 'dmarc'
    ? {
        kind: parsed.kind,
        report_id: parsed.report_id,
        org_name: parsed.org_name,
        domain: parsed.domain,
        records: parsed.records.length,
        messages: parsed.records.reduce((sum, r) => sum + r.count, 0),
      }
    : {
        kind: parsed.kind,
        report_id: parsed.report_id,
        org_name: parsed.org_name,
        domain: parsed.policies[0]?.policy_domain,
        records: parsed.policies.length,
        messages: parsed.policies.reduce((sum, p) => sum + p.successful_sessions + p.failed_sessions, 0),
      };
const expectedSummary = (entry: CorpusEntry) =>
  Object.fromEntries(
    (['kind', 'report_id', 'org_name', 'domain', 'records', 'messages'] as const)
      .filter((key) => entry[key] !== undefined)
      .map((key) => [key, entry[key]]),
  );

describe('the corpus (test/fixtures/reports/manifest.json)', () => {
  const results = new Map<CorpusEntry, ReadReport>();
  const resultOf = (entry: CorpusEntry) => {
    if (!results.has(entry))
      results.set(
        entry,
        readReportFile({
          filename: entry.file ?? null,
          contentType: entry.content_type ?? null,
          bytes: corpusBytes(entry),
        }),
      );
    return results.get(entry)!;
  };
  const reports = manifest.filter((e) => e.expect === 'report');

  it('is there, with at least 100 real-format reports', () => {
    if (!existsSync(MANIFEST))
      throw new Error(`${MANIFEST} is missing: the corpus is part of the repository (test/fixtures/reports/README.md)`);
    expect(reports.length).toBeGreaterThanOrEqual(100);
  });

  it.each(manifest.filter((e) => e.expect === 'drop').map((e) => [name(e), e] as const))(
    'drops %s for its reason',
    (_name, entry) => {
      expect(resultOf(entry)).toMatchObject({ ok: false, drop: entry.drop_reason });
    },
  );

  it.each(reports.map((e) => [name(e), e] as const))('reads %s as the manifest says, if it parses', (_name, entry) => {
    const result = resultOf(entry);
    if (result.ok) expect(summary(result.report)).toMatchObject(expectedSummary(entry));
  });

  it('parses at least 99.5% of the reports, each one that does not listed with its drop', () => {
    const failed = reports.flatMap((entry) => {
      const result = resultOf(entry);
      return result.ok
        ? []
        : [`${name(entry)} (${entry.reporter}, ${entry.format_origin}): ${result.drop}: ${result.detail}`];
    });
    if (failed.length / reports.length > 0.005)
      throw new Error(`${failed.length} of ${reports.length} reports did not parse:\n  ${failed.join('\n  ')}`);
  });
});
