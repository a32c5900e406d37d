/**
 * Email metrics (GET /emails/metrics, the `resend` SDK's `emails.metrics`): counts of a project's
 * live mail per UTC day, kept as counters by the workers that already see each event, in the
 * transaction that records it (no scans, no extra round trip): the sender (sent, failed,
 * suppressed) and the email-status worker (SES's Delivery, DeliveryDelay, Bounce, Complaint, Open,
 * Click, Reject, Rendering Failure). Each counter item is one day of one shard of the project
 * (keys.metricsDay, sharded by email id so concurrent transactions rarely share one); a read is a
 * range Query per shard. Test-mode mail is not counted (it never reaches SES; issue 22).
 *
 * Counted: sent, delivered, delivery_delayed, bounced (= bounced_permanent + bounced_transient),
 * complained, opened and clicked (every Open / Click SES reports), unique_opened / unique_clicked
 * (an email's first open / click, judged from its status when the event came), failed, suppressed,
 * and received (the inbound worker: mail to the project's receiving domains).
 * Derived: delivery_rate (delivered / sent), open_rate and click_rate (unique opens / clicks per
 * delivered), bounce_rate (bounced / sent), complaint_rate (complained / delivered), 0 without a
 * denominator. Not counted here (422 naming them): unsubscribed, unsubscribe_rate,
 * bounced_undetermined. Only what the counters can answer is offered: UTC periods of a day, a
 * week (from Monday) or a month, the `period` dimension, no domain / email / broadcast filters.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { queryBetween, update, type WriteAction } from '../platform/db/table';
import { unprocessable, type ErrorDetail } from '../platform/errors';
import { nowDate } from '../platform/clock';

export const COUNTED_METRICS = [
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'bounced_permanent',
  'bounced_transient',
  'complained',
  'opened',
  'unique_opened',
  'clicked',
  'unique_clicked',
  'failed',
  'suppressed',
  'received',
] as const;
export const RATE_METRICS = ['delivery_rate', 'open_rate', 'click_rate', 'bounce_rate', 'complaint_rate'] as const;
export type CountedMetric = (typeof COUNTED_METRICS)[number];
export type Metric = CountedMetric | (typeof RATE_METRICS)[number];
const ALL_METRICS: readonly Metric[] = [...COUNTED_METRICS, ...RATE_METRICS];
/** Resend's metrics the counters cannot answer. */
const NOT_COUNTED = ['unsubscribed', 'unsubscribe_rate', 'bounced_undetermined'];
const GRANULARITIES = ['daily', 'weekly', 'monthly'] as const;
type Granularity = (typeof GRANULARITIES)[number];

/** Counters kept a little over a year (DynamoDB's TTL); ranges may reach back that far. */
const COUNTER_TTL_SECONDS = 400 * 86_400;
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/** `counts` more for one email of the project on the day of `now`: a write for the transaction that records them. */
export function metricsWrite(
  projectId: string,
  emailId: string,
  counts: Partial<Record<CountedMetric, number>>,
  now = nowDate(),
): WriteAction {
  return update(keys.metricsDay(projectId, emailId, dayOf(now)), {
    add: counts as Record<string, number>,
    set: { expires_at: Math.floor(now.getTime() / 1000) + COUNTER_TTL_SECONDS },
  });
}

export interface MetricsQuery {
  start_date?: string;
  end_date?: string;
  timezone?: string;
  granularity?: string;
  metrics?: string;
  dimensions?: string;
  domain_id?: string;
  email_id?: string;
  broadcast_id?: string;
}

type Totals = Partial<Record<Metric, number>>;

export interface MetricsAnswer {
  object: 'metrics';
  start_date: string;
  end_date: string;
  metrics: Metric[];
  dimensions: 'period'[];
  granularity: Granularity;
  totals: Totals;
  data?: (Totals & { period: string })[];
}

/** An ISO 8601 date or date-time (with an offset), as the instant it names; undefined when it is neither. */
function instant(value: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)) return undefined;
  const [y, m, d] = value.slice(0, 10).split('-').map(Number);
  if (dayOf(new Date(Date.UTC(y, m - 1, d))) !== value.slice(0, 10)) return undefined; // no 30 February
  const date = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** The start of the period of `granularity` that UTC day `day` (yyyy-mm-dd) falls in. */
function periodOf(day: string, granularity: Granularity): string {
  if (granularity === 'daily') return day;
  if (granularity === 'monthly') return `${day.slice(0, 7)}-01`;
  const date = new Date(`${day}T00:00:00Z`);
  return dayOf(new Date(date.getTime() - ((date.getUTCDay() + 6) % 7) * DAY_MS)); // back to Monday
}

function withRates(counts: Partial<Record<CountedMetric, number>>, wanted: readonly Metric[]): Totals {
  const n = (metric: CountedMetric) => counts[metric] ?? 0;
  const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10_000) / 10_000 : 0);
  const rates: Record<(typeof RATE_METRICS)[number], number> = {
    delivery_rate: ratio(n('delivered'), n('sent')),
    open_rate: ratio(n('unique_opened'), n('delivered')),
    click_rate: ratio(n('unique_clicked'), n('delivered')),
    bounce_rate: ratio(n('bounced'), n('sent')),
    complaint_rate: ratio(n('complained'), n('delivered')),
  };
  return Object.fromEntries(
    wanted.map((metric) => [
      metric,
      metric in rates ? rates[metric as keyof typeof rates] : n(metric as CountedMetric),
    ]),
  );
}

/** GET /emails/metrics: the project's counts (and rates) over a range, in total and per period. */
export async function emailMetrics(caller: Caller, query: MetricsQuery, now = nowDate()): Promise<MetricsAnswer> {
  const problems: ErrorDetail[] = [];
  const end = query.end_date === undefined ? now : instant(query.end_date);
  if (!end)
    problems.push({
      code: 'invalid_date',
      message: 'end_date must be an ISO 8601 date or date-time',
      path: 'end_date',
    });
  const start =
    query.start_date === undefined ? new Date((end ?? now).getTime() - 6 * DAY_MS) : instant(query.start_date);
  if (!start)
    problems.push({
      code: 'invalid_date',
      message: 'start_date must be an ISO 8601 date or date-time',
      path: 'start_date',
    });
  if (start && end && start > end)
    problems.push({ code: 'invalid_range', message: 'start_date must not be after end_date', path: 'start_date' });
  if (start && end && end.getTime() - start.getTime() > MAX_RANGE_DAYS * DAY_MS)
    problems.push({
      code: 'invalid_range',
      message: `the range may be at most ${MAX_RANGE_DAYS} days`,
      path: 'start_date',
    });
  const granularity = (query.granularity ?? 'daily') as Granularity;
  if (!GRANULARITIES.includes(granularity)) {
    problems.push({
      code: 'unsupported_granularity',
      message: `granularity must be one of ${GRANULARITIES.join(', ')} (the counters are per UTC day)`,
      path: 'granularity',
    });
  }
  if (query.timezone !== undefined && query.timezone.toUpperCase() !== 'UTC')
    problems.push({ code: 'unsupported_timezone', message: 'only UTC periods are counted', path: 'timezone' });
  const dimensions = list(query.dimensions);
  for (const dimension of dimensions) {
    if (dimension !== 'period')
      problems.push({
        code: 'unsupported_dimension',
        message: `dimension ${dimension} is not offered: only period`,
        path: 'dimensions',
      });
  }
  for (const filter of ['domain_id', 'email_id', 'broadcast_id'] as const) {
    if (query[filter] !== undefined)
      problems.push({
        code: 'unsupported_filter',
        message: `${filter} is not offered: the counters are per project`,
        path: filter,
      });
  }
  const requested = list(query.metrics);
  for (const metric of requested) {
    if (!ALL_METRICS.includes(metric as Metric)) {
      const why = NOT_COUNTED.includes(metric) ? 'is not counted here' : 'is not a metric';
      problems.push({
        code: 'unsupported_metric',
        message: `${metric} ${why}; offered: ${ALL_METRICS.join(', ')}`,
        path: 'metrics',
      });
    }
  }
  if (problems.length || !start || !end) throw unprocessable(problems);
  const wanted = requested.length ? (requested as Metric[]) : [...ALL_METRICS];

  const items = await queryBetween(keys.metricsDays(caller.projectId), dayOf(start), dayOf(end));
  const totals: Partial<Record<CountedMetric, number>> = {};
  const perPeriod = new Map<string, Partial<Record<CountedMetric, number>>>();
  for (
    let day = new Date(`${dayOf(start)}T00:00:00Z`);
    dayOf(day) <= dayOf(end);
    day = new Date(day.getTime() + DAY_MS)
  ) {
    perPeriod.set(periodOf(dayOf(day), granularity), {}); // every period of the range, with or without mail
  }
  for (const item of items) {
    const period = perPeriod.get(periodOf(String(item.SK).slice('DAY#'.length), granularity))!;
    for (const metric of COUNTED_METRICS) {
      const value = Number(item[metric] ?? 0);
      totals[metric] = (totals[metric] ?? 0) + value;
      period[metric] = (period[metric] ?? 0) + value;
    }
  }
  return {
    object: 'metrics',
    start_date: start.toISOString(),
    end_date: end.toISOString(),
    metrics: wanted,
    dimensions: dimensions as 'period'[],
    granularity,
    totals: withRates(totals, wanted),
    ...(dimensions.includes('period')
      ? { data: [...perPeriod].map(([period, counts]) => ({ period, ...withRates(counts, wanted) })) }
      : {}),
  };
}
