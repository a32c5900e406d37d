/**
 * The deliverability feature's model (issue 40): DMARC aggregate reports (RFC 7489 appendix C) and
 * SMTP TLS reports (RFC 8460 §4.4) as the report-file reader gives them, normalised: domains
 * lower-cased, times in epoch seconds, absent optional values `null`; then the API's shapes.
 */
import * as z from 'zod/mini';

/**
 * Why a report file was dropped, each counted apart:
 * - `not_a_report`: neither gzip, zip, XML nor JSON; or readable XML whose root is not `feedback`;
 *   or readable JSON with none of TLS-RPT's top-level members;
 * - `malformed`: claims to be a report but cannot be read whole (a broken gzip, XML or JSON, a
 *   required value missing or invalid, no record; the detail names it);
 * - `too_large`: over MAX_REPORT_FILE_BYTES as attached or MAX_REPORT_XML_BYTES unpacked (declared or actual);
 * - `unsafe_xml`: a `<!DOCTYPE` or `<!ENTITY` (XML bombs and external entities), refused unparsed;
 * - `archive`: a zip that cannot be opened (cut short, not a zip after its signature, an entry
 *   encrypted or corrupt, a compression method other than stored or deflate) or that does not hold
 *   one report (more than 10 entries, no file, several files and not one of them `.xml` or
 *   `.json`), or an archive inside an archive. A broken gzip is `malformed`: gzip is the report's
 *   own encoding (`.xml.gz`), a zip a container around it.
 */
export type DropReason = 'not_a_report' | 'malformed' | 'too_large' | 'unsafe_xml' | 'archive';

/** A report file that was not read, and why (`detail` names what, for the drop counts and the logs). */
export interface Dropped {
  ok: false;
  drop: DropReason;
  detail: string;
}

export interface DmarcRecord {
  source_ip: string;
  count: number;
  /** `pass` (DMARCbis, RFC 9990): no action, the message passed DMARC under an enforcing policy */
  disposition: 'none' | 'pass' | 'quarantine' | 'reject';
  /** policy_evaluated: DKIM and SPF as DMARC judged them (aligned), not the raw auth results */
  dkim: 'pass' | 'fail';
  spf: 'pass' | 'fail';
  /** lower-cased; '' when the reporter left it out */
  header_from: string;
  envelope_from: string | null;
  envelope_to: string | null;
  /** policy_evaluated/reason: `type`, or `type: comment` */
  reasons: string[];
  dkim_results: { domain: string; selector: string | null; result: string }[];
  spf_results: { domain: string; scope: string | null; result: string }[];
}

export interface DmarcReport {
  kind: 'dmarc';
  report_id: string;
  org_name: string;
  email: string | null;
  /** epoch seconds */
  begin: number;
  end: number;
  /** policy_published/domain, lower-cased */
  domain: string;
  policy: {
    p: string;
    sp: string | null;
    pct: number | null;
    adkim: 'r' | 's';
    aspf: 'r' | 's';
    np: string | null;
  };
  records: DmarcRecord[];
  /** report_metadata/error: what the reporter says went wrong producing the report */
  errors: string[];
}

export interface TlsFailure {
  result_type: string;
  sending_mta_ip: string | null;
  receiving_mx_hostname: string | null;
  receiving_ip: string | null;
  failed_session_count: number;
  additional_information: string | null;
  failure_reason_code: string | null;
}

export interface TlsPolicy {
  policy_type: string;
  /** lower-cased; '' when the reporter left it out (the Postfix reporter does for `no-policy-found`) */
  policy_domain: string;
  policy_strings: string[];
  mx_hosts: string[];
  successful_sessions: number;
  failed_sessions: number;
  failures: TlsFailure[];
}

export interface TlsReport {
  kind: 'tls';
  report_id: string;
  org_name: string;
  contact: string | null;
  /** epoch seconds */
  begin: number;
  end: number;
  policies: TlsPolicy[];
}

// The API's shapes (GET /domains/{domain_id}/dmarc, GET /domains/{domain_id}/tls-reports): ./summaries.ts builds them.

const counts = /* @__PURE__ */ (() => ({
  messages: z.number(),
  dmarc_pass: z.number(),
  dmarc_fail: z.number(),
  dkim_pass: z.number(),
  spf_pass: z.number(),
  quarantined: z.number(),
  rejected: z.number(),
  pass_rate: z.nullable(z.number()),
}))();

/** How many files sent to the domain's report address of this kind were not kept, by reason. */
const droppedCounts = /* @__PURE__ */ (() =>
  z.record(z.string(), z.number()).check(
    z.meta({
      description:
        'Files mailed to the report address and not kept, by reason: `not_a_report`, `malformed`, `too_large`, `unsafe_xml` (a DOCTYPE or ' +
        'entity, never expanded), `archive`, `wrong_domain` (a report about another domain), `duplicate` (a reporter and report id kept ' +
        'before), `no_report` (a message without an attachment).',
    }),
  ))();

export const dmarcSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('dmarc_summary'),
    domain_id: z.string(),
    from: z.string(),
    to: z.string(),
    report_address: z.nullable(z.string()),
    reports: z.number(),
    has_more: z.boolean(),
    ...counts,
    days: z.array(z.object({ date: z.string(), reports: z.number(), ...counts })),
    top_failing_sources: z.array(
      z.object({ source_ip: z.string(), reporters: z.array(z.string()), header_from: z.array(z.string()), ...counts }),
    ),
    dropped: droppedCounts,
  }))();

export const dmarcQuery = /* @__PURE__ */ (() =>
  z.strictObject({ days: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(400))) }))();

const tlsFailure = /* @__PURE__ */ (() =>
  z.object({
    result_type: z.string(),
    sending_mta_ip: z.nullable(z.string()),
    receiving_mx_hostname: z.nullable(z.string()),
    receiving_ip: z.nullable(z.string()),
    failed_session_count: z.number(),
    additional_information: z.nullable(z.string()),
    failure_reason_code: z.nullable(z.string()),
  }))();

export const tlsReportEntry = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('tls_report'),
    id: z.string(),
    organization_name: z.string(),
    report_id: z.string(),
    contact: z.nullable(z.string()),
    start: z.string(),
    end: z.string(),
    received_at: z.string(),
    successful_sessions: z.number(),
    failed_sessions: z.number(),
    policies: z.array(
      z.object({
        policy_type: z.string(),
        policy_domain: z.string(),
        policy_strings: z.array(z.string()),
        mx_hosts: z.array(z.string()),
        successful_sessions: z.number(),
        failed_sessions: z.number(),
        failures: z.array(tlsFailure),
      }),
    ),
  }))();

export const tlsReportList = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('list'),
    data: z.array(tlsReportEntry),
    has_more: z.boolean(),
    dropped: droppedCounts,
  }))();

/** A TLS report's id: the 32 hex digits of its report key (keys.ts "domain report"). */
export const reportId = /* @__PURE__ */ (() => z.string().check(z.regex(/^[0-9a-f]{32}$/, 'must be a report id')))();

export const domainCompliance = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('domain_compliance'),
    domain_id: z.string(),
    name: z.string(),
    status: z.enum(['pass', 'warn', 'fail']),
    checked_at: z.string(),
    rules: z.array(
      z.object({
        rule: z.enum([
          'spf',
          'dkim',
          'dmarc',
          'dmarc_reports',
          'alignment',
          'mx',
          'one_click_unsubscribe',
          'complaint_rate',
          'tls',
        ]),
        status: z.enum(['pass', 'warn', 'fail']),
        evidence: z.string(),
        fix: z.nullable(z.string()),
      }),
    ),
  }))();
