/**
 * The account-wide send rate and daily quota. SES allows `MaxSendRate` emails per second and
 * `Max24HourSend` per rolling 24 hours for the whole account (GetAccount), whatever number of
 * sender Lambdas run, so the rate is kept in the table: counters per second, incremented with a
 * condition that they stay at or under their limit.
 *
 * - Pacing: within a second, slot n waits until n/rate of its first 850 ms has passed, so sends
 *   are spread evenly rather than bunched at the start of each second (SES, on its own clock,
 *   would see a bunch straddle two seconds as a burst over the rate). A sender that wakes up too
 *   late in its slot's second (under 100 ms left) takes a slot of a later second instead, so a
 *   send goes out in the second that counted it.
 * - Lanes: transactional mail (POST /emails, batches, retries) may take every slot of a second;
 *   bulk mail (broadcasts) only up to the rate less a reserve (a fifth, at least one), so a
 *   transactional email always finds a slot within the second even behind a broadcast's backlog.
 * - Shards: one item takes 1,000 write units a second; above SHARD_RATE sends a second, a
 *   second's counter is split over several items, each with its share of the rate (the shares
 *   add up to the rate), and a sender tries them in a random order.
 * - No slot within the wait: NoSendSlot, with when to come back (the first second found full
 *   is not a promise of the next free one; the caller adds the queue's backlog, ./sender.ts).
 * - The daily quota: GetAccount's `SentLast24Hours`, read at most every minute, plus this
 *   instance's own sends since; within QUOTA_MARGIN of `Max24HourSend` no slot is given (other
 *   senders' sends since the reading are what the margin covers), NoSendSlot after 15 minutes.
 *
 * `SEND_RATE_PER_SECOND` overrides the rate SES reports (e.g. to stay below it, or for the
 * benchmark); the quota is still SES's.
 */
import { GetAccountCommand } from '../platform/aws/ses';
import * as keys from '../platform/db/keys';
import { isConditionFailed, update, updateItem } from '../platform/db/table';
import { sesClient } from '../platform/aws/ses';
import { logger } from '../platform/log';
import { clockStandsStill, now, waitOnClock } from '../platform/clock';

/** The lanes of the send path (./send-queue.ts): bulk never takes the transactional reserve. */
export type SendLane = 'transactional' | 'bulk';
/** A broadcast's emails are bulk, every other email transactional. */
export const laneOf = (email: { broadcast_id?: string | null }): SendLane =>
  email.broadcast_id ? 'bulk' : 'transactional';

const ACCOUNT_CACHE_MS = 60 * 1000;
interface Account {
  rate: number;
  /** Max24HourSend; undefined or negative: no daily limit known */
  max24Hours?: number;
  sentLast24Hours: number;
  at: number;
}
let cached: Account | undefined;
/** Sends this instance made since the account was read. */
let sentSinceReading = 0;

async function account(): Promise<Account> {
  if (cached && now() - cached.at < ACCOUNT_CACHE_MS) return cached;
  const out = await sesClient.send(new GetAccountCommand({}));
  cached = {
    rate: Math.max(1, Math.floor(out.SendQuota?.MaxSendRate ?? 1)),
    max24Hours: out.SendQuota?.Max24HourSend,
    sentLast24Hours: out.SendQuota?.SentLast24Hours ?? 0,
    at: now(),
  };
  sentSinceReading = 0;
  return cached;
}

export async function maxSendRate(): Promise<number> {
  const override = Number(process.env.SEND_RATE_PER_SECOND);
  if (override > 0) return override;
  return (await account()).rate;
}

/** The slots of a second bulk mail may take: the rate less a fifth (at least one slot) kept for transactional mail. */
export const bulkLimit = (rate: number): number => Math.max(1, rate - Math.max(1, Math.ceil(rate / 5)));

/** Sends a second one counter item takes at most (half of an item's 1,000 write units a second). */
export const SHARD_RATE = 500;
/** The counters of a second at `rate`: each shard's limit, adding up to the rate (per lane, the same split of the lane's limit). */
export function shardLimits(limit: number, rate: number): number[] {
  const shards = Math.ceil(rate / SHARD_RATE);
  return Array.from({ length: shards }, (_, i) => Math.floor(limit / shards) + (i < limit % shards ? 1 : 0));
}

/** How close to Max24HourSend sending stops: a minute at the rate, at most 1% of the quota. */
const quotaMargin = (a: Account, rate: number): number => Math.min(rate * 60, Math.ceil((a.max24Hours ?? 0) / 100));
/** When the daily quota is used up, senders come back after this. */
const QUOTA_RETRY_SECONDS = 15 * 60;

/** Slots are spread over the first PACED_MS of each second, leaving GUARD_MS for the request to reach SES. */
const PACED_MS = 850;
const GUARD_MS = 100;
/**
 * A transactional send whose slot is in the second already under way goes at once rather than at its
 * paced place (after the bulk's places, most of a second later), once the second is this far in: it
 * is counted in that second either way, and it is nowhere near either of the second's edges.
 */
const EARLY_MS = 100;

/** No send slot within the wait: come back in `retryAfterSeconds` (SES was not called). */
export class NoSendSlot extends Error {
  override name = 'NoSendSlot';
  constructor(
    readonly retryAfterSeconds: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** False when the daily quota is (nearly) used up; an account that cannot be read does not stop sending (the rate still holds). */
let unreadableUntil = 0;
async function withinDailyQuota(rate: number): Promise<boolean> {
  if (now() < unreadableUntil) return true;
  const a = await account().catch((error) => {
    logger.warn('SES GetAccount failed; the daily quota is not checked for a minute', { error });
    unreadableUntil = now() + ACCOUNT_CACHE_MS;
    return undefined;
  });
  if (!a || a.max24Hours === undefined || a.max24Hours < 0) return true;
  return a.sentLast24Hours + sentSinceReading < a.max24Hours - quotaMargin(a, rate);
}

/** Takes a slot of `second` in one of its counters (random order); returns the slot's place in the second and its counter, or undefined when every counter is full. */
async function takeSlot(second: number, limits: number[]): Promise<{ place: number; shard: number } | undefined> {
  const order = limits.map((_, i) => i).sort(() => Math.random() - 0.5);
  for (const shard of order) {
    try {
      const counter = await updateItem(
        update(
          keys.sendRate(second, shard),
          {
            add: { sent: 1 },
            set: { type: 'send_rate', expires_at: second + 120 },
            condition: {
              expression: 'attribute_not_exists(#sent) OR #sent < :limit',
              names: { '#sent': 'sent' },
              values: { ':limit': limits[shard] },
            },
          },
          { tag: 'second full' },
        ),
      );
      return { place: (Number(counter.sent) - 1) * limits.length + shard, shard };
    } catch (error) {
      if (!isConditionFailed(error, 'second full')) throw error;
    }
  }
  return undefined;
}

/** Gives a slot of `second` back, for a sender that will not send in that second (see acquireSendSlot). */
async function releaseSlot(second: number, shard: number): Promise<void> {
  await updateItem(update(keys.sendRate(second, shard), { add: { sent: -1 } })).catch((error) =>
    logger.warn('a send slot was not given back', { second, error }),
  );
}

/**
 * Waits until a send slot of `lane` is free in some second and takes it (see the module comment);
 * returns that second (epoch seconds). Throws NoSendSlot when none is free within `maxWaitMs`, or
 * when the daily quota is used up.
 */
export async function acquireSendSlot(lane: SendLane = 'transactional', maxWaitMs = 5_000): Promise<number> {
  const rate = await maxSendRate();
  if (!(await withinDailyQuota(rate)))
    throw new NoSendSlot(QUOTA_RETRY_SECONDS, "the account's 24-hour sending quota is used up");
  const limits = shardLimits(lane === 'bulk' ? bulkLimit(rate) : rate, rate);
  const deadline = now() + maxWaitMs;
  let second = Math.floor(now() / 1000);
  for (;;) {
    const taken = await takeSlot(second, limits);
    if (taken !== undefined) {
      const { place } = taken;
      // Every send waits until its second has begun, and bulk ones for their paced place: a burst sent
      // at once straddles the second's end on SES's clock and is throttled there (bench/send-pipeline.ts
      // showed it). A transactional send in the second under way goes at once (EARLY_MS).
      const paced = second * 1000 + (place * PACED_MS) / rate;
      const slotStart = lane === 'transactional' ? Math.min(paced, Math.max(second * 1000 + EARLY_MS, now())) : paced;
      // A wait on the clock (a timer; a second one covers a machine clock nudged meanwhile). A clock
      // still before the slot's second after it (the local runtime's manual clock, where a wait ends
      // at once) gets the slot back and the email comes back then, rather than sending into a second
      // SES does not count it in, or holding slots of seconds no sender will send in.
      for (let tries = 0; tries < 2 && slotStart > now(); tries++) await waitOnClock(slotStart - now());
      if (now() < second * 1000) {
        await releaseSlot(second, taken.shard);
        throw new NoSendSlot(
          Math.max(1, Math.ceil((second * 1000 - now()) / 1000)),
          "the send slot's second has not begun",
        );
      }
      // Woken (or delayed) too close to, or into, the next second: this second's counter may not
      // be the one SES sees the send in, so take a slot of a later second instead. A send only
      // goes out with GUARD_MS of its counted second left to reach SES; on a clock that stands still
      // (the local manual clock) no time passes on the way there, so the whole second counts.
      const guardMs = clockStandsStill() ? 0 : GUARD_MS;
      if (now() < second * 1000 + 1000 - guardMs) {
        sentSinceReading += 1;
        return second;
      }
      // a later second, never this one again: woken in its last GUARD_MS it would take slot after slot of it
      // (and on a manual clock that stands still there, every slot it has)
      second = Math.max(second + 1, Math.floor(now() / 1000));
    } else {
      // Full: reserve a slot of the next second right away rather than waiting for it to begin,
      // so senders hold their slots before the second starts instead of all racing for its
      // counter at the boundary (where the race's latency used up the second's early slots).
      second = Math.max(second + 1, Math.floor(now() / 1000));
    }
    if (second * 1000 > deadline)
      throw new NoSendSlot(
        Math.max(1, Math.ceil((second * 1000 - now()) / 1000)),
        'no send slot free: the account send rate is taken',
      );
  }
}

/**
 * When a message that found no slot should come back: not before the first free second could be
 * (`waitSeconds`), and spread around when the lane's backlog (messages waiting, at the lane's
 * rate) should have gone out, so a long backlog is not received again and again for nothing
 * (each receive counts toward the queue's maxReceiveCount). At most SQS's 12 hours.
 */
export function slotRetrySeconds(
  waitSeconds: number,
  backlog: number,
  laneRate: number,
  random = Math.random(),
): number {
  const backlogSeconds = (backlog / Math.max(1, laneRate)) * (0.5 + random);
  return Math.min(12 * 60 * 60, Math.max(1, Math.ceil(waitSeconds), Math.ceil(backlogSeconds)));
}
