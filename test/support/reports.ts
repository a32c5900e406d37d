/**
 * Reports as mailbox providers mail them to a domain's report addresses (issue 40): a DMARC aggregate
 * report, a TLS report, and the message that carries them over the runtime's SMTP.
 */
import { gzipSync } from 'node:zlib';
import { type Attachment, deliverAttachments } from './smtp';

export const DAY = 86_400;
/** The start of this UTC day, epoch seconds (the machine's clock: the shared runtime runs on it). */
export const today = () => Math.floor(Date.now() / 1000 / DAY) * DAY;

/** An aggregate report as Google sends them (RFC 7489 appendix C), about `domain`, for the day `daysAgo` (yesterday unless given). */
export function dmarcXml(
  domain: string,
  reportId: string,
  rows: { ip: string; count: number; pass: boolean }[],
  daysAgo = 1,
): string {
  const begin = today() - daysAgo * DAY;
  return [
    '<?xml version="1.0" encoding="UTF-8" ?>',
    '<feedback>',
    '  <report_metadata>',
    '    <org_name>google.com</org_name>',
    '    <email>noreply-dmarc-support@google.com</email>',
    `    <report_id>${reportId}</report_id>`,
    `    <date_range><begin>${begin}</begin><end>${begin + DAY - 1}</end></date_range>`,
    '  </report_metadata>',
    `  <policy_published><domain>${domain}</domain><adkim>r</adkim><aspf>r</aspf><p>none</p><sp>none</sp><pct>100</pct></policy_published>`,
    ...rows.map(
      (row) =>
        `  <record><row><source_ip>${row.ip}</source_ip><count>${row.count}</count><policy_evaluated><disposition>none</disposition>` +
        `<dkim>${row.pass ? 'pass' : 'fail'}</dkim><spf>${row.pass ? 'pass' : 'fail'}</spf></policy_evaluated></row>` +
        `<identifiers><header_from>${domain}</header_from></identifiers>` +
        `<auth_results><dkim><domain>${domain}</domain><result>${row.pass ? 'pass' : 'fail'}</result></dkim>` +
        `<spf><domain>${domain}</domain><result>${row.pass ? 'pass' : 'fail'}</result></spf></auth_results></record>`,
    ),
    '</feedback>',
  ].join('\n');
}

/** A TLS report as Google sends them (RFC 8460 §4.4), about `domain`. */
export function tlsJson(domain: string, reportId: string): string {
  const begin = new Date((today() - DAY) * 1000).toISOString().replace('.000Z', 'Z');
  const end = new Date((today() - 1) * 1000).toISOString().replace('.000Z', 'Z');
  return JSON.stringify({
    'organization-name': 'Google Inc.',
    'date-range': { 'start-datetime': begin, 'end-datetime': end },
    'contact-info': 'smtp-tls-reporting@google.com',
    'report-id': reportId,
    policies: [
      {
        policy: {
          'policy-type': 'sts',
          'policy-string': ['version: STSv1', 'mode: testing'],
          'policy-domain': domain,
          'mx-host': [`mx.${domain}`],
        },
        summary: { 'total-successful-session-count': 40, 'total-failure-session-count': 2 },
        'failure-details': [
          {
            'result-type': 'certificate-expired',
            'sending-mta-ip': '203.0.113.9',
            'receiving-mx-hostname': `mx.${domain}`,
            'failed-session-count': 2,
          },
        ],
      },
    ],
  });
}

/** Mails `files` as attachments to `to`, as a reporter's mail server would. */
export const mailReport = (to: string, files: Attachment[]) =>
  deliverAttachments({
    from: 'noreply-dmarc-support@google.com',
    to,
    subject: 'Report domain',
    text: files.length ? 'This is an aggregate report.' : 'no report here',
    files,
  });

export const gz = (text: string) => gzipSync(Buffer.from(text));
