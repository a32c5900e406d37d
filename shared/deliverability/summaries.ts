/**
 * What GET /domains/{id}/dmarc and GET /domains/{id}/tls-reports answer, from the reports the
 * inbound worker kept (./ingest.ts) and the drops it counted.
 *
 * DMARC: the reports whose period starts in the last `days` days (one Query on the domain's report
 * partition, at most MAX_SUMMARY_REPORTS of them, newest first), folded per day (UTC, of the
 * report's start) and per source IP. A row's messages pass DMARC when the reporter evaluated DKIM or
 * SPF as pass (aligned with the From domain: what `policy_evaluated` says); they fail otherwise.
 * `top_failing_sources` are the sources with failing messages, most first (at most TOP_SOURCES):
 * who is sending as the domain without passing, a forwarder or an impersonator.
 */
import { gunzipSync } from 'node:zlib';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, queryBetween, queryPage, type Item } from '../platform/db/table';
import { now } from '../platform/clock';
import { getDomain } from '../domains/domains';
import { reportAddress } from '../domains/report-addresses';
import type { DmarcRecord, TlsPolicy } from './model';

/** The reports one summary reads at most (a domain gets a few a day from each large mailbox provider). */
export const MAX_SUMMARY_REPORTS = 2000;
export const TOP_SOURCES = 20;
export const MAX_SUMMARY_DAYS = 400;

interface StoredReport extends Item {
  id: string;
  kind: 'dmarc' | 'tls';
  org_name: string;
  report_id: string;
  begin: number;
  end: number;
  rows: Uint8Array;
  received_at: string;
}

const rowsOf = <T>(item: StoredReport): T[] => JSON.parse(gunzipSync(item.rows).toString('utf8')) as T[];

/** The domain's drop counts of one kind (`too_large: 2`), from the counters the ingestion keeps. */
async function dropsOf(domainId: string, kind: 'dmarc' | 'tls'): Promise<Record<string, number>> {
  const counters = await getItem(keys.reportDrops(domainId), false);
  const prefix = `${kind}_`;
  return Object.fromEntries(
    Object.entries(counters ?? {})
      .filter(([name, value]) => name.startsWith(prefix) && typeof value === 'number')
      .map(([name, value]) => [name.slice(prefix.length), value as number]),
  );
}

interface Tally {
  messages: number;
  dmarc_pass: number;
  dkim_pass: number;
  spf_pass: number;
  quarantined: number;
  rejected: number;
}
const tally = (): Tally => ({ messages: 0, dmarc_pass: 0, dkim_pass: 0, spf_pass: 0, quarantined: 0, rejected: 0 });
function add(to: Tally, row: DmarcRecord): void {
  to.messages += row.count;
  if (row.dkim === 'pass' || row.spf === 'pass') to.dmarc_pass += row.count;
  if (row.dkim === 'pass') to.dkim_pass += row.count;
  if (row.spf === 'pass') to.spf_pass += row.count;
  if (row.disposition === 'quarantine') to.quarantined += row.count;
  if (row.disposition === 'reject') to.rejected += row.count;
}
const withRate = (t: Tally) => ({
  ...t,
  dmarc_fail: t.messages - t.dmarc_pass,
  pass_rate: t.messages ? Math.round((t.dmarc_pass / t.messages) * 10_000) / 10_000 : null,
});

export async function dmarcSummary(caller: Caller, domainId: string, days: number) {
  await getDomain(caller, domainId); // 404 unless the caller's
  const to = Math.floor(now() / 1000);
  const from = to - days * 86_400;
  const [reports, dropped] = await Promise.all([
    queryBetween<StoredReport>(
      keys.domainReports(caller.projectId, domainId, 'DMARC'),
      keys.reportBound(from),
      `${keys.reportBound(to)}~`,
    ),
    dropsOf(domainId, 'dmarc'),
  ]);
  const kept = reports.sort((a, b) => b.begin - a.begin).slice(0, MAX_SUMMARY_REPORTS);
  const total = tally();
  const byDay = new Map<string, Tally & { reports: number }>();
  const bySource = new Map<string, Tally & { reporters: Set<string>; header_from: Set<string> }>();
  for (const report of kept) {
    const date = new Date(report.begin * 1000).toISOString().slice(0, 10);
    const day = byDay.get(date) ?? { ...tally(), reports: 0 };
    day.reports++;
    byDay.set(date, day);
    for (const row of rowsOf<DmarcRecord>(report)) {
      add(total, row);
      add(day, row);
      const source = bySource.get(row.source_ip) ?? { ...tally(), reporters: new Set(), header_from: new Set() };
      add(source, row);
      source.reporters.add(report.org_name);
      if (row.header_from) source.header_from.add(row.header_from);
      bySource.set(row.source_ip, source);
    }
  }
  const sources = [...bySource].map(([source_ip, { reporters, header_from, ...counts }]) => ({
    source_ip,
    reporters: [...reporters].sort(),
    header_from: [...header_from].sort(),
    ...withRate(counts),
  }));
  return {
    object: 'dmarc_summary' as const,
    domain_id: domainId,
    from: new Date(from * 1000).toISOString(),
    to: new Date(to * 1000).toISOString(),
    report_address: reportAddress('dmarc', domainId) ?? null,
    reports: kept.length,
    has_more: reports.length > kept.length,
    ...withRate(total),
    days: [...byDay]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([date, { reports: count, ...t }]) => ({ date, reports: count, ...withRate(t) })),
    top_failing_sources: sources
      .filter((s) => s.dmarc_fail > 0)
      .sort((a, b) => b.dmarc_fail - a.dmarc_fail || b.messages - a.messages)
      .slice(0, TOP_SOURCES),
    dropped,
  };
}

const toTlsReport = (item: StoredReport) => {
  const policies = rowsOf<TlsPolicy>(item);
  return {
    object: 'tls_report' as const,
    id: item.id,
    organization_name: item.org_name,
    report_id: item.report_id,
    contact: (item.contact as string | null | undefined) ?? null,
    start: new Date(item.begin * 1000).toISOString(),
    end: new Date(item.end * 1000).toISOString(),
    received_at: item.received_at,
    successful_sessions: policies.reduce((n, p) => n + p.successful_sessions, 0),
    failed_sessions: policies.reduce((n, p) => n + p.failed_sessions, 0),
    policies,
  };
};

/** The domain's TLS reports, newest period first; `after` is a report's id (its SK comes from its uniqueness item). */
export async function listTlsReports(caller: Caller, domainId: string, page: { limit: number; after?: string }) {
  await getDomain(caller, domainId);
  let after: string | undefined;
  if (page.after !== undefined) {
    const cursor = await getItem(keys.domainReportId(caller.projectId, domainId, 'TLS', page.after));
    if (!cursor || typeof cursor.begin !== 'number')
      return { records: [], hasMore: false, dropped: await dropsOf(domainId, 'tls') };
    after = `${keys.reportBound(cursor.begin)}#${page.after}`;
  }
  const [{ items, hasMore }, dropped] = await Promise.all([
    queryPage<StoredReport>(keys.domainReports(caller.projectId, domainId, 'TLS'), { limit: page.limit, after }),
    dropsOf(domainId, 'tls'),
  ]);
  return { records: items.map(toTlsReport), hasMore, dropped };
}
