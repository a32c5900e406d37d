/**
 * Reports mailed to a domain's report addresses (shared/domains/report-addresses.ts), kept per
 * domain: what the inbound worker does with a message to `dmarc+<domain id>@` or `tls+<domain id>@`
 * the reports domain (shared/receiving/inbound.ts hands it over, parsed, before the projects' mail).
 *
 * For each domain id the message's report recipients name, each attachment is read
 * (./report-files.ts: gzip, zip or plain; DMARC XML or TLS-RPT JSON, whatever address it came to) and
 * then:
 * - dropped and counted (keys.reportDrops, per domain id and `<kind>_<reason>`) when it is not a
 *   readable report (the reader's reasons), when the domain it reports on is not that domain id's
 *   (`wrong_domain`: the domain name's claim, keys.domainName, names another domain or none), when it
 *   was kept before (`duplicate`: the same reporter and report id, from another message), or when its
 *   rows do not fit an item even compressed (`too_large`); a message with no attachment counts one
 *   `no_report` per domain id. A drop is counted once per message and file: the count and a marker
 *   of (SES message, file) in one transaction, the marker first put only if absent;
 * - else kept in ONE transaction: the report (keys.domainReport, its rows gzip-compressed JSON), its
 *   uniqueness (keys.domainReportId, attribute_not_exists, naming the SES message) and, for a DMARC
 *   report in which a source IP has DMARC_FAILURE_ALERT_MESSAGES or more messages failing DMARC
 *   (neither DKIM nor SPF passing aligned), `domain.dmarc_failures` naming those sources: someone
 *   sends as the domain and fails (a forgotten service, a forwarder, an impersonator). A redelivered
 *   notification finds its own message there and keeps nothing twice, counts or emits nothing.
 * The raw message is not kept (the inbound path deletes it when no project takes it).
 */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, transact, update } from '../platform/db/table';
import { nowIso } from '../platform/ids';
import { now } from '../platform/clock';
import { logger } from '../platform/log';
import { eventWrite } from '../events/events';
import { reportAddressOf, type ReportKind } from '../domains/report-addresses';
import type { ParsedMessage } from '../receiving/mime';
import type { DmarcReport, DropReason, TlsReport } from './model';
import { readReportFile } from './report-files';

/** Why a file sent to a report address was not kept: the reader's reasons and the ones that need the table. */
export type IngestDrop = DropReason | 'wrong_domain' | 'duplicate' | 'no_report';

/** A source failing DMARC for this many messages in one report raises `domain.dmarc_failures` (one event per report). */
export const DMARC_FAILURE_ALERT_MESSAGES = 10;

/** Reports are kept this long (a year of DMARC monitoring, and a month to compare with). */
export const REPORT_RETENTION_DAYS = 400;
/** A report's compressed rows must leave room in the item (DynamoDB's limit is 400 KB). */
export const MAX_STORED_ROWS_BYTES = 300 * 1024;

const KIND_KEY = { dmarc: 'DMARC', tls: 'TLS' } as const;

export interface IngestOutcome {
  domain_id: string;
  kept: number;
  dropped: Partial<Record<IngestDrop, number>>;
}

/** The recipients that are report addresses of this deployment. */
export const reportRecipientsOf = (recipients: string[]): string[] => recipients.filter((r) => reportAddressOf(r));

/** The report key: one per reporter and report id (keys.ts "domain report"). */
export const reportKey = (report: Pick<DmarcReport | TlsReport, 'org_name' | 'report_id'>): string =>
  createHash('sha256').update(`${report.org_name}\n${report.report_id}`).digest('hex').slice(0, 32);

/** The names a report is about: a DMARC report's published policy domain; a TLS report's policy domains. */
const reportedNames = (report: DmarcReport | TlsReport): string[] =>
  report.kind === 'dmarc' ? [report.domain] : [...new Set(report.policies.map((p) => p.policy_domain))];

export async function ingestReports(
  message: ParsedMessage,
  recipients: string[],
  sesMessageId: string,
): Promise<IngestOutcome[]> {
  const domains = new Map<string, ReportKind>();
  for (const recipient of recipients) {
    const address = reportAddressOf(recipient);
    if (address && !domains.has(address.domainId)) domains.set(address.domainId, address.kind);
  }
  const outcomes: IngestOutcome[] = [];
  for (const [domainId, addressKind] of domains) {
    const outcome: IngestOutcome = { domain_id: domainId, kept: 0, dropped: {} };
    const drop = (kind: ReportKind, reason: IngestDrop, file: number) => {
      outcome.dropped[reason] = (outcome.dropped[reason] ?? 0) + 1;
      return countDrop(domainId, kind, reason, `${sesMessageId}#${file}`);
    };
    if (message.attachments.length === 0) await drop(addressKind, 'no_report', 0);
    for (const [file, attachment] of message.attachments.entries()) {
      const read = readReportFile({
        filename: attachment.filename,
        contentType: attachment.content_type,
        bytes: attachment.content,
      });
      if (!read.ok) {
        logger.info('report dropped', { domain_id: domainId, reason: read.drop, detail: read.detail });
        await drop(addressKind, read.drop, file);
        continue;
      }
      const result = await keep(domainId, read.report, sesMessageId);
      if (result === 'kept') outcome.kept++;
      else if (result !== 'again') await drop(read.report.kind, result, file);
    }
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Keeps one report of `domainId`: 'kept', 'again' (this message's, kept before), or why not. */
async function keep(
  domainId: string,
  report: DmarcReport | TlsReport,
  sesMessageId: string,
): Promise<'kept' | 'again' | IngestDrop> {
  const claims = await Promise.all(reportedNames(report).map((name) => getItem(keys.domainName(name), false)));
  const claim = claims.find((c) => c?.domain_id === domainId);
  if (!claim) return 'wrong_domain';
  const projectId = String(claim.project_id);
  const { kind } = report;
  const rows = gzipSync(Buffer.from(JSON.stringify(kind === 'dmarc' ? report.records : report.policies)));
  if (rows.length > MAX_STORED_ROWS_BYTES) return 'too_large';
  const key = reportKey(report);
  const expiresAt = Math.floor(now() / 1000) + REPORT_RETENTION_DAYS * 86_400;

  try {
    await transact([
      put(
        {
          ...keys.domainReportId(projectId, domainId, KIND_KEY[kind], key),
          type: 'domain_report_id',
          ses_message_id: sesMessageId,
          begin: report.begin, // where the report is (a list's cursor names its id)
          expires_at: expiresAt,
        },
        { ifAbsent: { tag: 'report kept', withItem: true } },
      ),
      ...failureAlert(projectId, domainId, report, key),
      put({
        ...keys.domainReport(projectId, domainId, KIND_KEY[kind], report.begin, key),
        ...headOf(report),
        type: 'domain_report',
        id: key,
        project_id: projectId,
        domain_id: domainId,
        rows,
        ses_message_id: sesMessageId,
        received_at: nowIso(),
        expires_at: expiresAt,
      }),
    ]);
    return 'kept';
  } catch (error) {
    if (!isConditionFailed(error, 'report kept')) throw error;
    return error.item?.ses_message_id === sesMessageId ? 'again' : 'duplicate';
  }
}

/** `domain.dmarc_failures` for a DMARC report with sources failing above the threshold; none otherwise. */
function failureAlert(projectId: string, domainId: string, report: DmarcReport | TlsReport, key: string) {
  if (report.kind !== 'dmarc') return [];
  const sources = new Map<
    string,
    { source_ip: string; messages: number; dmarc_fail: number; header_from: Set<string> }
  >();
  for (const row of report.records) {
    const source = sources.get(row.source_ip) ?? {
      source_ip: row.source_ip,
      messages: 0,
      dmarc_fail: 0,
      header_from: new Set<string>(),
    };
    source.messages += row.count;
    if (row.dkim !== 'pass' && row.spf !== 'pass') source.dmarc_fail += row.count;
    if (row.header_from) source.header_from.add(row.header_from);
    sources.set(row.source_ip, source);
  }
  const failing = [...sources.values()]
    .filter((s) => s.dmarc_fail >= DMARC_FAILURE_ALERT_MESSAGES)
    .sort((a, b) => b.dmarc_fail - a.dmarc_fail)
    .map((s) => ({ ...s, header_from: [...s.header_from].sort() }));
  if (failing.length === 0) return [];
  return [
    eventWrite({ projectId, livemode: true }, 'domain.dmarc_failures', {
      object: 'dmarc_failures',
      domain_id: domainId,
      domain: report.domain,
      report: {
        id: key,
        org_name: report.org_name,
        report_id: report.report_id,
        begin: new Date(report.begin * 1000).toISOString(),
        end: new Date(report.end * 1000).toISOString(),
      },
      threshold: DMARC_FAILURE_ALERT_MESSAGES,
      sources: failing,
    }),
  ];
}

/** What the report item keeps of a report beside its rows (which go compressed, in `rows`). */
function headOf(report: DmarcReport | TlsReport) {
  const { kind, report_id, org_name, begin, end } = report;
  return report.kind === 'dmarc'
    ? { kind, report_id, org_name, begin, end, email: report.email, policy: report.policy, errors: report.errors }
    : { kind, report_id, org_name, begin, end, contact: report.contact };
}

async function countDrop(domainId: string, kind: ReportKind, reason: IngestDrop, file: string): Promise<void> {
  try {
    await transact([
      put(
        {
          ...keys.reportDropMarker(domainId, file),
          type: 'report_drop',
          reason: `${kind}_${reason}`,
          expires_at: Math.floor(now() / 1000) + REPORT_RETENTION_DAYS * 86_400,
        },
        { ifAbsent: { tag: 'drop counted' } },
      ),
      update(keys.reportDrops(domainId), { add: { [`${kind}_${reason}`]: 1 } }),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, 'drop counted')) throw error; // a redelivered message: counted the first time
  }
}
