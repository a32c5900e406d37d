/**
 * The DNS records a domain's owner must publish, and the domain statuses, derived from what SES
 * reports. Pure: no I/O, so the shape of `records` is unit-tested on its own.
 *
 * Decisions (DESIGN.md, Resources -> Domain; the contract says "not shown"):
 * - `status` is the SES identity's DKIM status: NOT_STARTED, PENDING, SUCCESS, FAILED,
 *   TEMPORARY_FAILURE -> `not_started | pending | verified | failed | temporary_failure`.
 * - records, in this order: three DKIM CNAMEs (Easy DKIM), the custom MAIL FROM MX and SPF TXT
 *   on `send.<domain>`, the optional DMARC TXT, the receiving MX when receiving is enabled, the tracking CNAME when a
 *   tracking subdomain is set. DKIM records carry the DKIM status, MX and SPF the MAIL FROM
 *   status. SES checks neither the receiving MX nor the tracking CNAME and the service does not
 *   query DNS itself, so those two always say `not_started`.
 * - after SPF, a suggested DMARC TXT on `_dmarc.<domain>` with the monitoring-only policy
 *   `p=none`: large mailbox providers expect a DMARC record from bulk senders, and with DKIM and
 *   the MAIL FROM aligned to the domain, mail passes it. Nothing of the service needs it, so it is
 *   marked `optional: true` (the one record that is), always says `not_started` (SES does not
 *   check it, nor does the service query DNS) and has no part in the domain's status. A domain
 *   that already publishes a DMARC policy keeps its own: one TXT at `_dmarc` is all DMARC reads.
 *   Its value is quoted as the SPF one is (Route 53 wants TXT values quoted). When the deployment has
 *   a reports domain (./report-addresses.ts) the suggestion adds `rua=mailto:` the domain's DMARC
 *   report address, and an optional TLS-RPT TXT on `_smtp._tls.<domain>` follows it (RFC 8460,
 *   `v=TLSRPTv1; rua=mailto:` its TLS report address), so the domain's reports reach
 *   GET /domains/{id}/dmarc and /tls-reports. A domain keeping its own DMARC record adds the `rua`
 *   address to it (several are allowed, comma-separated).
 * - names are fully qualified; `ttl` is `Auto` (any TTL works).
 *
 * Imports only the model's types (the statuses and the record shape are declared there).
 */
import type { DomainRecord, DomainStatus } from './model';

/** Statuses SES keeps working on: the scheduled check re-reads domains in these. */
export const UNSETTLED_STATUSES: readonly DomainStatus[] = ['not_started', 'pending', 'temporary_failure'];
export const isSettled = (status: DomainStatus): boolean => !UNSETTLED_STATUSES.includes(status);

const FROM_SES: Record<string, DomainStatus> = {
  NOT_STARTED: 'not_started',
  PENDING: 'pending',
  SUCCESS: 'verified',
  FAILED: 'failed',
  TEMPORARY_FAILURE: 'temporary_failure',
};

/** An SES verification status (DKIM or MAIL FROM) as the API speaks it; none at all is `not_started`. */
export const statusFromSes = (sesStatus: string | undefined): DomainStatus =>
  (sesStatus && FROM_SES[sesStatus]) || 'not_started';

/** The MAIL FROM subdomain of a domain created without `custom_return_path`. */
export const DEFAULT_RETURN_PATH = 'send';

/** The custom MAIL FROM domain the service sets up for a domain: `<return path>.<domain>`. */
export const mailFromDomain = (domain: string, returnPath = DEFAULT_RETURN_PATH): string => `${returnPath}.${domain}`;

export interface RecordInput {
  name: string;
  /** the SES region (shared/platform/aws/region.ts awsRegion), part of the MAIL FROM, inbound and tracking hosts */
  region: string;
  dkimTokens: readonly string[];
  dkimStatus: DomainStatus;
  mailFromStatus: DomainStatus;
  receiving: 'enabled' | 'disabled';
  trackingSubdomain: string | null;
  /** the MAIL FROM subdomain (`custom_return_path`) */
  returnPath: string;
  /** where the domain's DMARC and TLS reports go, when the deployment has a reports domain (./report-addresses.ts) */
  reportAddresses?: { dmarc?: string; tls?: string };
}

/** The DMARC record the service suggests (the top of this file says why it is optional and never checked). */
const dmarcRecord = (domain: string, reportTo: string | undefined): DomainRecord => ({
  record: 'DMARC',
  name: `_dmarc.${domain}`,
  type: 'TXT',
  ttl: 'Auto',
  status: 'not_started',
  value: reportTo ? `"v=DMARC1; p=none; rua=mailto:${reportTo};"` : '"v=DMARC1; p=none;"',
  optional: true,
});

/** The TLS-RPT record (RFC 8460 §3) sending the domain's TLS reports to its report address. */
const tlsReportingRecord = (domain: string, reportTo: string): DomainRecord => ({
  record: 'TLS-RPT',
  name: `_smtp._tls.${domain}`,
  type: 'TXT',
  ttl: 'Auto',
  status: 'not_started',
  value: `"v=TLSRPTv1; rua=mailto:${reportTo}"`,
  optional: true,
});

export function buildRecords(input: RecordInput): DomainRecord[] {
  const { name, region } = input;
  const records: DomainRecord[] = input.dkimTokens.map((token) => ({
    record: 'DKIM',
    name: `${token}._domainkey.${name}`,
    type: 'CNAME',
    ttl: 'Auto',
    status: input.dkimStatus,
    value: `${token}.dkim.amazonses.com`,
  }));
  records.push(
    {
      record: 'MX',
      name: mailFromDomain(name, input.returnPath),
      type: 'MX',
      ttl: 'Auto',
      status: input.mailFromStatus,
      value: `feedback-smtp.${region}.amazonses.com`,
      priority: 10,
    },
    {
      record: 'SPF',
      name: mailFromDomain(name, input.returnPath),
      type: 'TXT',
      ttl: 'Auto',
      status: input.mailFromStatus,
      value: '"v=spf1 include:amazonses.com ~all"',
    },
    dmarcRecord(name, input.reportAddresses?.dmarc),
  );
  if (input.reportAddresses?.tls) records.push(tlsReportingRecord(name, input.reportAddresses.tls));
  if (input.receiving === 'enabled') {
    records.push({
      record: 'Receiving',
      name,
      type: 'MX',
      ttl: 'Auto',
      status: 'not_started',
      value: `inbound-smtp.${region}.amazonaws.com`,
      priority: 10,
    });
  }
  if (input.trackingSubdomain) {
    records.push({
      record: 'Tracking',
      name: `${input.trackingSubdomain}.${name}`,
      type: 'CNAME',
      ttl: 'Auto',
      status: 'not_started',
      value: `r.${region}.awstrack.me`,
    });
  }
  return records;
}
