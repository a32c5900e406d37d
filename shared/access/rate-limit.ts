/**
 * Per-project API rate limits: every authenticated request counts against its project's limit
 * (./project-settings.ts), in fixed wall-clock seconds, across every key and token of the project.
 *
 * The count is one UpdateItem on the project's item for the current second (keys.rateWindow): ADD
 * 1 with the condition that the count is under the limit, so a refused request writes nothing and
 * no second ever admits more than the limit, however many Lambdas run at once (the condition is
 * the gate; requests in flight cannot pass it). The only inexactness is the second itself: each
 * function reads its own clock (Lambda's are NTP-synchronised, within a few ms), so a request at
 * a second's edge may count in the neighbouring one.
 *
 * No serial round trip: a key never changes project, so a function remembers which project each
 * key hash belongs to once it has looked the key up; from then on the count runs beside the
 * key's lookup (one round trip for both). The first request of a key in a function's life looks
 * the key up first (one more round trip, once). A key revoked after that still has its requests
 * counted until its lookup refuses it (the 401 it gets then was counted; nothing else is written).
 *
 * `API_RATE_LIMITING=off` turns counting off (the benchmark's run without limits, bench/api-latency.ts).
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, update, updateItem } from '../platform/db/table';
import { ApiError } from '../platform/errors';
import type { Authentication } from '../platform/http/pipeline';
import { hashToken } from './api-key-token';
import { authenticateKey } from './api-keys';
import { projectSettings, type RateLimitSource } from '../project/settings';
import { now as clockNow } from '../platform/clock';

/** How long a second's counter is kept (DynamoDB's TTL deletes it within days; nothing reads an old one). */
const WINDOW_TTL_SECONDS = 120;
const KNOWN_KEYS_MAX = 10_000;

export interface RateCount {
  limit: number;
  /** the setting the limit comes from (the 429's message names it); unknown to a count made without the project's settings */
  source?: RateLimitSource;
  /** requests of this second, this one included when admitted */
  count: number;
  admitted: boolean;
  /** whole seconds until the window resets */
  resetSeconds: number;
}

/** Counts one request of `projectId` in the second of `now`, unless the second is full. */
export async function countRequest(projectId: string, limit: number, now = clockNow()): Promise<RateCount> {
  const second = Math.floor(now / 1000);
  const resetSeconds = Math.max(1, Math.ceil(((second + 1) * 1000 - now) / 1000)); // the window is this second: 1
  const full = { tag: 'rate limited', withItem: true };
  try {
    const item = await updateItem(
      update(
        keys.rateWindow(projectId, second),
        {
          add: { count: 1 },
          set: { expires_at: second + WINDOW_TTL_SECONDS },
          condition: {
            expression: 'attribute_not_exists(#count) OR #count < :limit',
            names: { '#count': 'count' },
            values: { ':limit': limit },
          },
        },
        full,
      ),
    );
    return { limit, count: Number(item.count), admitted: true, resetSeconds };
  } catch (error) {
    if (!isConditionFailed(error, full.tag)) throw error;
    return { limit, count: Number(error.item?.count ?? limit), admitted: false, resetSeconds };
  }
}

/** The IETF draft headers Resend sends on every response. */
export const rateLimitHeaders = (count: RateCount): Record<string, string> => ({
  'ratelimit-limit': String(count.limit),
  'ratelimit-remaining': String(Math.max(0, count.limit - count.count)),
  'ratelimit-reset': String(count.resetSeconds),
});

/** What a 429 says the limit is: the setting to change, whoever reads it (a developer locally, an operator on AWS). */
const LIMIT_SETTING: Record<RateLimitSource, string> = {
  project: "the project's own limit, set by an operator with `npm run project -- limits --rate`",
  API_RATE_LIMIT_PER_SECOND:
    "API_RATE_LIMIT_PER_SECOND, the deployment's default for projects without a limit of their own",
  'built-in': 'the built-in default, as API_RATE_LIMIT_PER_SECOND is not set',
};

export const rateLimited = (count: RateCount): ApiError => {
  const setting = count.source ? ` (${LIMIT_SETTING[count.source]})` : '';
  const message = `Too many requests: this project may make ${count.limit} requests a second${setting}; retry after ${count.resetSeconds} s`;
  return new ApiError(429, 'application_error', message, [{ code: 'rate_limit_exceeded', message, path: '' }], {
    ...rateLimitHeaders(count),
    'retry-after': String(count.resetSeconds),
  });
};

/** Key hash -> project, for the keys this function has looked up (a key never changes project). */
const knownKeys = new Map<string, string>();

const limiting = () => process.env.API_RATE_LIMITING !== 'off';

async function counted(projectId: string): Promise<RateCount> {
  const settings = await projectSettings(projectId);
  return { ...(await countRequest(projectId, settings.rate_limit)), source: settings.rate_limit_source };
}

/** The bearer token's caller, counted against its project's rate limit (see the top of this file). */
export async function authenticateCounted(token: string): Promise<Authentication> {
  if (!limiting()) return authenticateKey(token);
  const hash = hashToken(token);
  const known = knownKeys.get(hash);
  let found: Awaited<ReturnType<typeof authenticateKey>>;
  let count: RateCount;
  if (known) {
    [found, count] = await Promise.all([authenticateKey(token), counted(known)]);
    if (!found.caller) {
      knownKeys.delete(hash); // revoked or expired: the next request looks it up first
      return found;
    }
  } else {
    found = await authenticateKey(token);
    if (!found.caller) return found;
    if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value as string);
    knownKeys.set(hash, found.caller.projectId);
    count = await counted(found.caller.projectId);
  }
  return { ...found, headers: rateLimitHeaders(count), refusal: count.admitted ? undefined : rateLimited(count) };
}
