/**
 * A project's limits, kept on its project item and changed by an operator (`npm run project --
 * limits`): the API rate limit (requests a second; unset: API_RATE_LIMIT_PER_SECOND, which the stack
 * sets from its ApiRateLimitPerSecond parameter, 10 unless given, and `npm start` to 1,000 unless
 * given, local/settings.ts; else 10) and
 * the send quotas (emails a UTC day and a UTC month; unset: unlimited) and the contact limit
 * (contacts the project may hold; unset: CONTACT_LIMIT_PER_PROJECT, else 1,000,000). A contact
 * limit bounds what one tenant takes of the shared table and of the one contact-imports worker
 * (issue 32, 12); a million is above any list a project of a self-hosted service plausibly mails
 * (a broadcast to all of them takes SES's default 14 emails a second 20 hours), and low enough that
 * a runaway script or import stops there. POST /contacts past it, and each import row that would
 * create a contact past it, is refused with `contact_limit_reached` (shared/audience/contacts.ts,
 * imports.ts). The count is the project's contact counters (shared/project/contact-count.ts),
 * read before the write: creates racing each other may pass the limit by the few in flight.
 *
 * Every authenticated request needs them, so a function keeps what it read for
 * PROJECT_SETTINGS_CACHE_SECONDS (60): within that time a request reads nothing; after it, the
 * request still uses what it has while one read refreshes it beside the request (never a read
 * before the request's own work). A change therefore applies within a minute and one request.
 */
import * as keys from '../platform/db/keys';
import { getItem, type Item } from '../platform/db/table';
import { DEFAULT_API_RATE_LIMIT } from './model';
import { liveProjectId } from './test-mode';
import { now as clockNow } from '../platform/clock';

/** Which setting a project's API rate limit comes from: a 429 names it (./rate-limit.ts), so the caller knows what to change. */
export type RateLimitSource = 'project' | 'API_RATE_LIMIT_PER_SECOND' | 'built-in';

/** Why and since when a project's sending is paused (on its project item). */
export interface SendingPause {
  reason: string;
  since: string;
  bounce_rate: number;
  complaint_rate: number;
}

export interface ProjectSettings {
  /** API requests a second */
  rate_limit: number;
  rate_limit_source: RateLimitSource;
  /** emails a UTC day, null: unlimited */
  daily_quota: number | null;
  /** emails a UTC month, null: unlimited */
  monthly_quota: number | null;
  /** contacts the project may hold */
  contact_limit: number;
  /** set while the reputation guard has paused the project's sending (shared/emails/reputation.ts) */
  sending_paused: SendingPause | null;
  /** the project's SES tenant once made (shared/domains/tenants.ts) */
  ses_tenant: { name: string; arn: string } | null;
}

export const wholeNumber = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : undefined;

const deploymentRateLimit = (env: Record<string, string | undefined>) =>
  wholeNumber(Number(env.API_RATE_LIMIT_PER_SECOND));

/** API_RATE_LIMIT_PER_SECOND when it is a whole number from 1, else 10. */
export function defaultRateLimit(env: Record<string, string | undefined> = process.env): number {
  return deploymentRateLimit(env) ?? DEFAULT_API_RATE_LIMIT;
}

export const DEFAULT_CONTACT_LIMIT = 1_000_000;

/** CONTACT_LIMIT_PER_PROJECT when it is a whole number from 1, else 1,000,000 (the top of this file says why). */
export function defaultContactLimit(env: Record<string, string | undefined> = process.env): number {
  return wholeNumber(Number(env.CONTACT_LIMIT_PER_PROJECT)) ?? DEFAULT_CONTACT_LIMIT;
}

const cacheMs = () => {
  const seconds = Number(process.env.PROJECT_SETTINGS_CACHE_SECONDS);
  return (Number.isFinite(seconds) && seconds >= 0 ? seconds : 60) * 1000;
};

/** The settings a project item holds, unset values as their defaults. */
export const settingsOf = (item: Item): ProjectSettings => ({
  rate_limit: wholeNumber(item.rate_limit) ?? defaultRateLimit(),
  rate_limit_source: wholeNumber(item.rate_limit)
    ? 'project'
    : deploymentRateLimit(process.env)
      ? 'API_RATE_LIMIT_PER_SECOND'
      : 'built-in',
  daily_quota: wholeNumber(item.daily_quota) ?? null,
  monthly_quota: wholeNumber(item.monthly_quota) ?? null,
  contact_limit: wholeNumber(item.contact_limit) ?? defaultContactLimit(),
  sending_paused: (item.sending_paused as SendingPause | undefined) ?? null,
  ses_tenant: (item.ses_tenant as ProjectSettings['ses_tenant'] | undefined) ?? null,
});

/** The project's settings as stored; undefined when there is no such project. */
export async function readProjectSettings(projectId: string): Promise<ProjectSettings | undefined> {
  const item = await getItem(keys.project(liveProjectId(projectId))); // a test twin has its project's settings (./test-mode.ts)
  return item ? settingsOf(item) : undefined;
}

const cached = new Map<string, { settings: Promise<ProjectSettings>; readAt: number; refreshing?: boolean }>();

/** The project's settings as this function last read them (see the top of this file). */
export function projectSettings(projectId: string, now = clockNow()): Promise<ProjectSettings> {
  const entry = cached.get(projectId);
  if (entry && (now - entry.readAt < cacheMs() || entry.refreshing)) return entry.settings;
  const read = readProjectSettings(projectId).then((settings) => settings ?? settingsOf({})); // no such project: the defaults
  if (!entry) {
    const fresh = { settings: read, readAt: now };
    cached.set(projectId, fresh);
    read.catch(() => cached.get(projectId) === fresh && cached.delete(projectId)); // try again next time
    return read;
  }
  // stale: answer with what we have, refresh beside it
  entry.refreshing = true;
  read.then(
    (settings) => cached.set(projectId, { settings: Promise.resolve(settings), readAt: clockNow() }),
    () => (entry.refreshing = false),
  );
  return entry.settings;
}

/** Forgets what this function read of the project's settings: the next request reads them again. */
export function forgetProjectSettings(projectId: string): void {
  cached.delete(projectId);
}
