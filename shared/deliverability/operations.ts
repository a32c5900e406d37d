/**
 * The deliverability routes' operations (issue 40): a domain's DMARC aggregate reports, folded,
 * and its TLS reports, as mailed to its report addresses (shared/domains/report-addresses.ts).
 */
import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, notFoundResponse } from '../platform/http/schemas';
import { dmarcQuery, dmarcSummary, domainCompliance, reportId, tlsReportList } from './model';
import { domainParams } from '../domains/model';

const tags = ['Domains'];
const tlsReportsQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    limit: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100))),
    after: z.optional(reportId),
  }))();
const REPORTS =
  "Reports reach the domain when its `_dmarc` record names `rua=mailto:` its DMARC report address and its `_smtp._tls` record its TLS one (the domain's `DMARC` and `TLS-RPT` records suggest both when the deployment has a reports domain); " +
  'a report whose domain is not this one, a duplicate (the same reporter and report id) and a file that is not a readable report are dropped and counted in `dropped`. Reports are kept 400 days.';

export const dmarc = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getDomainDmarc',
    summary: "A domain's DMARC reports, per day and per source",
    description:
      `${REPORTS} The DMARC aggregate reports whose period starts in the last \`days\` days (default 30, at most 400; the newest 2,000 reports), ` +
      "folded: per day (UTC, of the report's start) and, in `top_failing_sources`, the 20 source IPs with the most messages failing DMARC " +
      '(neither DKIM nor SPF passing aligned, as the reporter evaluated them), with the reporters that saw them. `pass_rate` is `dmarc_pass / messages` ' +
      '(null without messages). Not a Resend route.',
    tags,
    auth: 'api_key',
    params: domainParams,
    query: dmarcQuery,
    responses: {
      200: { description: "The domain's DMARC summary", schema: dmarcSummary },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const tlsReports = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listDomainTlsReports',
    summary: "A domain's TLS reports, newest first",
    description:
      `${REPORTS} One entry per SMTP TLS report (RFC 8460): the sending organisation, the period, and per policy the successful and failed ` +
      'sessions with the failure details. Pages by `limit` and `after` (a report id). Not a Resend route.',
    tags,
    auth: 'api_key',
    params: domainParams,
    query: tlsReportsQuery,
    responses: {
      200: { description: "A page of the domain's TLS reports", schema: tlsReportList },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const compliance = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getDomainCompliance',
    summary: 'Check a domain against the bulk-sender rules of Gmail and Yahoo',
    description:
      'Each rule `pass`, `warn` or `fail`, with what was found (`evidence`) and what to change (`fix`): `spf` (the MAIL FROM domain includes ' +
      "amazonses.com), `dkim` (SES signs with the domain), `dmarc` (a record with a valid `p=`, the domain's or a parent's), `dmarc_reports` " +
      "(its `rua` names the domain's report address; only when the deployment has a reports domain), `alignment` (From with DKIM and SPF as " +
      "SES sends), `mx` (receiving), `one_click_unsubscribe` (broadcasts), `complaint_rate` (the project's, last 7 days: under 0.1% pass, " +
      "under 0.3% warn), `tls` (SES uses TLS; a TLS-RPT record). `status` is the worst rule's. DNS is looked up at each check (answers " +
      "cached five minutes); a lookup that fails makes its rule `warn`. A check whose rule statuses differ from the domain's last check raises " +
      '`domain.compliance_changed` (`changes: [{rule, from, to}]`); the first check raises nothing. Not a Resend route.',
    tags,
    auth: 'api_key',
    params: domainParams,
    responses: { 200: { description: 'The check', schema: domainCompliance }, ...commonErrors, 404: notFoundResponse },
  }))();
