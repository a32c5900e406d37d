/**
 * Send quotas: how many emails a project may have accepted in a UTC day and a UTC month
 * (shared/access/project-settings.ts; unset: unlimited). The count is a counter item per period
 * (keys.sendCount), added to in the very transaction that accepts the emails, with the condition
 * that it stays within the quota: no extra round trip, and exact however many requests race (a
 * transaction that would pass the quota fails whole, and writes nothing).
 *
 * What counts: every email accepted by a live key (an email of a batch is one; its recipients are
 * not counted apart, unlike Resend), and every broadcast recipient the fan-out makes an email
 * for. A retry sends an email already counted. Test keys are not counted (their mail never reaches SES).
 *
 * The counters' write rate is at most the project's accepting requests a second, which its API
 * rate limit bounds (a transaction writes an item with 2 units: at the default 10 requests a second
 * far from DynamoDB's 1,000 units a second per item).
 *
 * Only a project with a quota has its counters in the accepting transactions: transactions that
 * share an item conflict, and a project's parallel sends and broadcast pages would take turns on its
 * counters. A project without one (the default) only has its usage counted, by a plain ADD after
 * the emails are accepted (`countUsage`), which never conflicts with another ADD.
 */
import * as keys from '../platform/db/keys';
import { batchGet, update, updateItem, type UpdateSpec, type WriteAction } from '../platform/db/table';
import { ApiError } from '../platform/errors';
import type { ProjectSettings } from '../access/project-settings';

/** Kept a little past their period (DynamoDB's TTL); the usage of older periods is not read. */
const DAY_TTL_SECONDS = 40 * 86_400;
const MONTH_TTL_SECONDS = 400 * 86_400;

export type QuotaPeriod = 'daily' | 'monthly';

export interface QuotaUsage {
  daily: number;
  monthly: number;
}

/** The counter of each period that `now` falls in (UTC). */
export function quotaPeriods(now = new Date()): Record<QuotaPeriod, string> {
  const iso = now.toISOString();
  return { daily: `DAY#${iso.slice(0, 10)}`, monthly: `MONTH#${iso.slice(0, 7)}` };
}

const QUOTA_OF: Record<QuotaPeriod, keyof ProjectSettings> = { daily: 'daily_quota', monthly: 'monthly_quota' };
/** The condition tag of a transaction refused by a period's quota. */
export const quotaTag = (period: QuotaPeriod) => `${period} quota`;

/** `emails` more on a period's counter (kept past its period by TTL), under `condition` when given. */
function countWrite(projectId: string, period: QuotaPeriod, emails: number, now: Date, condition?: UpdateSpec['condition']): WriteAction {
  const expiresAt = Math.floor(now.getTime() / 1000) + (period === 'daily' ? DAY_TTL_SECONDS : MONTH_TTL_SECONDS);
  return update(keys.sendCount(projectId, quotaPeriods(now)[period]), { add: { n: emails }, set: { expires_at: expiresAt }, condition }, { tag: quotaTag(period), withItem: true });
}

/**
 * The writes that count `emails` more against both periods, each with its quota's condition
 * (`n <= quota - emails`, a missing counter as 0) when the project has one.
 */
export function quotaWrites(projectId: string, emails: number, settings: ProjectSettings, now = new Date()): WriteAction[] {
  return (['daily', 'monthly'] as const).map((period) => {
    const quota = settings[QUOTA_OF[period]] as number | null;
    // no counter yet counts as 0, unless the emails alone are over the quota
    const expression = emails > (quota ?? 0) ? 'attribute_exists(#n) AND #n <= :room' : 'attribute_not_exists(#n) OR #n <= :room';
    return countWrite(projectId, period, emails, now, quota === null ? undefined : { expression, names: { '#n': 'n' }, values: { ':room': quota - emails } });
  });
}

export const hasQuota = (settings: ProjectSettings): boolean => settings.daily_quota !== null || settings.monthly_quota !== null;

/** A project without a quota: `emails` more in its usage (both periods side by side); answers the usage after them. */
export async function countUsage(projectId: string, emails: number, now = new Date()): Promise<QuotaUsage> {
  const [daily, monthly] = await Promise.all([updateItem(countWrite(projectId, 'daily', emails, now)), updateItem(countWrite(projectId, 'monthly', emails, now))]);
  return { daily: Number(daily.n), monthly: Number(monthly.n) };
}

/** The emails counted so far in the periods of `now` (one BatchGet). */
export async function quotaUsage(projectId: string, now = new Date()): Promise<QuotaUsage> {
  const periods = quotaPeriods(now);
  const items = await batchGet([keys.sendCount(projectId, periods.daily), keys.sendCount(projectId, periods.monthly)]);
  const count = (period: string) => Number(items.find((item) => item.PK === keys.sendCount(projectId, period).PK)?.n ?? 0);
  return { daily: count(periods.daily), monthly: count(periods.monthly) };
}

/** Resend's usage headers: the emails sent so far this (UTC) day and month, this request's included. */
export const quotaHeaders = (usage: QuotaUsage): Record<string, string> => ({ 'x-resend-daily-quota': String(usage.daily), 'x-resend-monthly-quota': String(usage.monthly) });

/** 429 for a request that would pass a quota; `used`: the count as the refused transaction found it. */
export function quotaExceeded(period: QuotaPeriod, quota: number, used: number, emails: number): ApiError {
  const code = `${period}_quota_exceeded`;
  const message = `The project's ${period} quota is ${quota} emails; ${used} have been sent ${period === 'daily' ? 'today (UTC)' : 'this month (UTC)'}, so ${emails === 1 ? 'this email does' : `these ${emails} emails do`} not fit`;
  return new ApiError(429, 'application_error', message, [{ code, message, path: '' }], { [`x-resend-${period}-quota`]: String(used) });
}
