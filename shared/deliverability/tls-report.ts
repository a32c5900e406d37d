/**
 * An SMTP TLS report (RFC 8460 §4.4) read from its JSON into a TlsReport. Pure: text in, report or
 * drop out.
 *
 * Text that is not JSON at all (it was sniffed by its first `{`) is `malformed`: a report cut short
 * or broken; JSON that has none of the report's top-level members (`organization-name`,
 * `date-range`, `report-id`, `policies`) is `not_a_report`; a report with a member missing or of the
 * wrong type is `malformed`, its detail naming the member. Required: organization-name, report-id,
 * date-range (RFC 3339 start-datetime and end-datetime), policies[] each with policy/policy-type and
 * summary's two counts; each failure-details entry's result-type and failed-session-count.
 * `contact-info` and the optional members may be absent or null; so may `policy-domain`, which the
 * RFC requires but the Postfix reporter leaves out of `no-policy-found` policies (read as ''). `policy-string`
 * and `mx-host` are lists in the RFC; a single string is read as a list of one (drafts and some
 * reporters write one). Unknown members are ignored (`receiving-mx-helo`, vendor additions).
 */
import * as z from 'zod/mini';
import { dropped, issueDetail } from './drops';
import type { Dropped, TlsFailure, TlsPolicy, TlsReport } from './model';

const TOP_LEVEL = ['organization-name', 'date-range', 'report-id', 'policies'];

const says = (message: string) => ({
  error: (issue: { input?: unknown }) => (issue.input === undefined ? 'missing' : message),
});
const text = () => z.string(says('not a string')).check(z.trim(), z.minLength(1, 'empty'));
const optionalText = () =>
  z.pipe(
    z.nullish(z.string(says('not a string'))),
    z.transform((v) => v?.trim() || null),
  );
const count = () => z.int(says('not an integer')).check(z.minimum(0, 'negative'));
const list = () =>
  z.pipe(
    z.nullish(z.union([z.array(z.string(says('not a string'))), z.string()], says('not a list of strings'))),
    z.transform((v) => (v == null ? [] : typeof v === 'string' ? [v] : v)),
  );
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const epochSeconds = (value: string) => Math.floor(Date.parse(value.toUpperCase().replace(' ', 'T')) / 1000);
const dateTime = () =>
  z.pipe(
    text().check(
      z.regex(RFC3339, 'not an RFC 3339 date-time'),
      z.refine((v) => Number.isFinite(epochSeconds(v)), 'not a date'),
    ),
    z.transform(epochSeconds),
  );

const failure = /* @__PURE__ */ (() =>
  z.pipe(
    z.object(
      {
        'result-type': text(),
        'sending-mta-ip': optionalText(),
        'receiving-mx-hostname': optionalText(),
        'receiving-ip': optionalText(),
        'failed-session-count': count(),
        'additional-information': optionalText(),
        'failure-reason-code': optionalText(),
      },
      says('not an object'),
    ),
    z.transform(
      (f): TlsFailure => ({
        result_type: f['result-type'],
        sending_mta_ip: f['sending-mta-ip'],
        receiving_mx_hostname: f['receiving-mx-hostname'],
        receiving_ip: f['receiving-ip'],
        failed_session_count: f['failed-session-count'],
        additional_information: f['additional-information'],
        failure_reason_code: f['failure-reason-code'],
      }),
    ),
  ))();

const policy = /* @__PURE__ */ (() =>
  z.pipe(
    z.object(
      {
        policy: z.object(
          {
            'policy-type': text(),
            'policy-string': list(),
            'policy-domain': z.optional(text().check(z.toLowerCase())),
            'mx-host': list(),
          },
          says('not an object'),
        ),
        summary: z.object(
          { 'total-successful-session-count': count(), 'total-failure-session-count': count() },
          says('not an object'),
        ),
        'failure-details': z.pipe(
          z.nullish(z.array(failure, says('not a list'))),
          z.transform((v) => v ?? []),
        ),
      },
      says('not an object'),
    ),
    z.transform(
      ({ policy: p, summary, 'failure-details': failures }): TlsPolicy => ({
        policy_type: p['policy-type'],
        policy_domain: (p['policy-domain'] ?? '').replace(/\.$/, ''),
        policy_strings: p['policy-string'],
        mx_hosts: p['mx-host'],
        successful_sessions: summary['total-successful-session-count'],
        failed_sessions: summary['total-failure-session-count'],
        failures,
      }),
    ),
  ))();

const report = /* @__PURE__ */ (() =>
  z.pipe(
    z.object({
      'organization-name': text(),
      'date-range': z.object({ 'start-datetime': dateTime(), 'end-datetime': dateTime() }, says('not an object')),
      'contact-info': optionalText(),
      'report-id': text(),
      policies: z.array(policy, says('not a list')),
    }),
    z.transform(
      (r): TlsReport => ({
        kind: 'tls',
        report_id: r['report-id'],
        org_name: r['organization-name'],
        contact: r['contact-info'],
        begin: r['date-range']['start-datetime'],
        end: r['date-range']['end-datetime'],
        policies: r.policies,
      }),
    ),
  ))();

/** A TLS report from its JSON text (decoded; sniffed as JSON by its first `{`). */
export function readTlsReport(json: string): { ok: true; report: TlsReport } | Dropped {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return dropped('malformed', `not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) || !TOP_LEVEL.some((key) => key in value))
    return dropped('not_a_report', `JSON without any of ${TOP_LEVEL.join(', ')}: not an SMTP TLS report`);
  const parsed = report.safeParse(value, { reportInput: true });
  if (!parsed.success) return dropped('malformed', issueDetail(parsed.error));
  return { ok: true, report: parsed.data };
}
