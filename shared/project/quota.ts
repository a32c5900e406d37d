/**
 * Send quotas: how many emails a project may have accepted in a UTC day and a UTC month
 * (shared/project/settings.ts; unset: unlimited). The count is a counter item per period
 * (keys.sendCount), added to in the very transaction that accepts the emails, with the condition
 * that it stays within the quota: no extra round trip, and exact however many requests race (a
 * transaction that would pass the quota fails whole, and writes nothing).
 *
 * What counts: every email accepted by a live key (an email of a batch is one; its recipients are
 * not counted apart, unlike Resend), and every broadcast recipient the fan-out makes an email
 * for. A retry sends an email already counted. Test keys are not counted (their mail never reaches SES).
 *
 * Every accepting transaction counts its emails, so every API send stays one write (DESIGN.md's
 * calls budget). Transactions that share an item conflict, though, and a project's parallel sends
 * and broadcast pages would take turns on one counter. So only a project with a quota counts on
 * the period's main counter (the one its condition reads: exact, and serial by nature); a project
 * without one (the default) counts on one of USAGE_SHARDS counters of the period, picked at random
 * per transaction, which two transactions share one time in USAGE_SHARDS. The usage is the main
 * counter plus the shards (one BatchGet, read after the write, beside the enqueue).
 *
 * A quota set on a project (changeProjectSettings) first folds the periods' shards into the main
 * counters, so the quota counts what was sent before it. Lambdas still holding the old settings
 * (PROJECT_SETTINGS_CACHE_SECONDS) count on shards for that long: those emails are in the usage
 * but not in what the quota's condition reads (the next change of a quota folds them in).
 *
 * The main counter's write rate is at most the project's accepting requests a second, which its
 * API rate limit bounds (a transaction writes an item with 2 units: at the default 10 requests a
 * second far from DynamoDB's 1,000 units a second per item).
 */
import * as keys from '../platform/db/keys';
import {
  batchGet,
  isConditionFailed,
  transactRetryingConflicts,
  update,
  type UpdateSpec,
  type WriteAction,
} from '../platform/db/table';
import { ApiError } from '../platform/errors';
import type { ProjectSettings } from './settings';
import { nowDate } from '../platform/clock';

/** Kept a little past their period (DynamoDB's TTL); the usage of older periods is not read. */
const DAY_TTL_SECONDS = 40 * 86_400;
const MONTH_TTL_SECONDS = 400 * 86_400;

export type QuotaPeriod = 'daily' | 'monthly';

export interface QuotaUsage {
  daily: number;
  monthly: number;
}

/** The counter of each period that `now` falls in (UTC). */
export function quotaPeriods(now = nowDate()): Record<QuotaPeriod, string> {
  const iso = now.toISOString();
  return { daily: keys.sendCountPeriod.day(iso.slice(0, 10)), monthly: keys.sendCountPeriod.month(iso.slice(0, 7)) };
}

const QUOTA_OF: Record<QuotaPeriod, keyof ProjectSettings> = { daily: 'daily_quota', monthly: 'monthly_quota' };
/** The condition tag of a transaction refused by a period's quota. */
export const quotaTag = (period: QuotaPeriod) => `${period} quota`;

/** How many counters a period's usage is spread over for a project without a quota (see the top). */
export const USAGE_SHARDS = 8;
const counterOf = (projectId: string, period: string, shard?: number) =>
  keys.sendCount(projectId, shard === undefined ? period : `${period}#${shard}`);

/** `emails` more on a period's counter (its main one, or `shard`; kept past its period by TTL), under `condition` when given. */
function countWrite(
  projectId: string,
  period: QuotaPeriod,
  emails: number,
  now: Date,
  options: { condition?: UpdateSpec['condition']; shard?: number },
): WriteAction {
  const expiresAt = Math.floor(now.getTime() / 1000) + (period === 'daily' ? DAY_TTL_SECONDS : MONTH_TTL_SECONDS);
  return update(
    counterOf(projectId, quotaPeriods(now)[period], options.shard),
    { add: { n: emails }, set: { expires_at: expiresAt }, condition: options.condition },
    { tag: quotaTag(period), withItem: true },
  );
}

export const hasQuota = (settings: ProjectSettings): boolean =>
  settings.daily_quota !== null || settings.monthly_quota !== null;

/**
 * The writes that count `emails` more against both periods, for the accepting transaction: on the
 * main counters, each with its quota's condition (`n <= quota - emails`, a missing counter as 0),
 * when the project has a quota; else on a shard picked at random.
 */
export function quotaWrites(
  projectId: string,
  emails: number,
  settings: ProjectSettings,
  now = nowDate(),
): WriteAction[] {
  if (!hasQuota(settings)) {
    const shard = Math.floor(Math.random() * USAGE_SHARDS);
    return (['daily', 'monthly'] as const).map((period) => countWrite(projectId, period, emails, now, { shard }));
  }
  return (['daily', 'monthly'] as const).map((period) => {
    const quota = settings[QUOTA_OF[period]] as number | null;
    // no counter yet counts as 0, unless the emails alone are over the quota
    const expression =
      emails > (quota ?? 0) ? 'attribute_exists(#n) AND #n <= :room' : 'attribute_not_exists(#n) OR #n <= :room';
    return countWrite(projectId, period, emails, now, {
      condition: quota === null ? undefined : { expression, names: { '#n': 'n' }, values: { ':room': quota - emails } },
    });
  });
}

const shardsOf = (projectId: string, period: string) =>
  Array.from({ length: USAGE_SHARDS }, (_, shard) => counterOf(projectId, period, shard));

/** The emails counted so far in the periods of `now`: main counters and shards (one BatchGet). */
export async function quotaUsage(projectId: string, now = nowDate()): Promise<QuotaUsage> {
  const periods = quotaPeriods(now);
  const items = await batchGet(
    [periods.daily, periods.monthly].flatMap((period) => [
      counterOf(projectId, period),
      ...shardsOf(projectId, period),
    ]),
  );
  const prefix = (period: string) => counterOf(projectId, period).PK;
  const count = (period: string) =>
    items
      .filter((item) => item.PK === prefix(period) || String(item.PK).startsWith(`${prefix(period)}#`))
      .reduce((sum, item) => sum + Number(item.n ?? 0), 0);
  return { daily: count(periods.daily), monthly: count(periods.monthly) };
}

/** Resend's usage headers: the emails sent so far this (UTC) day and month, this request's included. */
export const quotaHeaders = (usage: QuotaUsage): Record<string, string> => ({
  'x-resend-daily-quota': String(usage.daily),
  'x-resend-monthly-quota': String(usage.monthly),
});

/** 429 for a request that would pass a quota; `used`: the count as the refused transaction found it. */
export function quotaExceeded(period: QuotaPeriod, quota: number, used: number, emails: number): ApiError {
  const code = `${period}_quota_exceeded`;
  const message = `The project's ${period} quota is ${quota} emails; ${used} have been sent ${period === 'daily' ? 'today (UTC)' : 'this month (UTC)'}, so ${emails === 1 ? 'this email does' : `these ${emails} emails do`} not fit`;
  return new ApiError(429, 'application_error', message, [{ code, message, path: '' }], {
    [`x-resend-${period}-quota`]: String(used),
  });
}

/**
 * Moves what the shards of the periods of `now` counted onto the main counters, each shard in a
 * transaction of its own that takes exactly what was read from it (a shard that moved meanwhile
 * is read again), so nothing is counted twice or lost however many sends run meanwhile.
 */
export async function foldUsageShards(projectId: string, now = nowDate()): Promise<void> {
  const periods = quotaPeriods(now);
  for (const period of ['daily', 'monthly'] as const) {
    const expiresAt = Math.floor(now.getTime() / 1000) + (period === 'daily' ? DAY_TTL_SECONDS : MONTH_TTL_SECONDS);
    for (let attempt = 1; attempt <= 5; attempt++) {
      const shards = (await batchGet(shardsOf(projectId, periods[period]))).filter((item) => Number(item.n) > 0);
      if (!shards.length) break;
      try {
        for (const shard of shards) {
          const n = Number(shard.n);
          await transactRetryingConflicts([
            update(
              { PK: String(shard.PK), SK: String(shard.SK) },
              { add: { n: -n }, condition: { expression: '#n = :seen', names: { '#n': 'n' }, values: { ':seen': n } } },
              { tag: 'shard moved' },
            ),
            update(counterOf(projectId, periods[period]), { add: { n }, set: { expires_at: expiresAt } }),
          ]);
        }
        break;
      } catch (error) {
        if (!isConditionFailed(error, 'shard moved') || attempt === 5) throw error;
      }
    }
  }
}
