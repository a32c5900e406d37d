/**
 * The account-wide send rate. SES allows `MaxSendRate` emails per second for the whole account
 * (GetAccount), whatever number of sender Lambdas run, so the limit is kept in the table: one
 * counter item per second, incremented with a condition that it stays at or under the limit.
 * A sender that finds a second full takes a slot of the next one at once and sleeps until it.
 * Within a second, slot n waits until n/rate of its first 850 ms has passed, so sends are spread
 * evenly rather than bunched at the start of each second (SES, on its own clock, would see a
 * bunch straddle two seconds as a burst over the rate). A sender that wakes up too late in its
 * slot's second (under 100 ms left) takes a slot of a later second instead, so a send goes out in
 * the second that counted it. `SEND_RATE_PER_SECOND` overrides the rate SES reports (e.g. to stay
 * below it, or for the benchmark).
 */
import { GetAccountCommand } from '../platform/aws/ses';
import * as keys from '../platform/db/keys';
import { isConditionFailed, update, updateItem } from '../platform/db/table';
import { sesClient } from '../platform/aws/ses';

const ACCOUNT_CACHE_MS = 5 * 60 * 1000;
let cached: { rate: number; at: number } | undefined;

export async function maxSendRate(): Promise<number> {
  const override = Number(process.env.SEND_RATE_PER_SECOND);
  if (override > 0) return override;
  if (cached && Date.now() - cached.at < ACCOUNT_CACHE_MS) return cached.rate;
  const account = await sesClient.send(new GetAccountCommand({}));
  const rate = Math.max(1, Math.floor(account.SendQuota?.MaxSendRate ?? 1));
  cached = { rate, at: Date.now() };
  return rate;
}

/** Slots are spread over the first PACED_MS of each second, leaving GUARD_MS for the request to reach SES. */
const PACED_MS = 850;
const GUARD_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until a send slot is free in some second and takes it. Gives up (throws) after `maxWaitMs`. */
export async function acquireSendSlot(maxWaitMs = 5_000): Promise<void> {
  const rate = await maxSendRate();
  const deadline = Date.now() + maxWaitMs;
  let second = Math.floor(Date.now() / 1000);
  for (;;) {
    try {
      const counter = await updateItem(
        update(
          keys.sendRate(second),
          {
            add: { sent: 1 },
            set: { type: 'send_rate', expires_at: second + 120 },
            condition: { expression: 'attribute_not_exists(#sent) OR #sent < :rate', names: { '#sent': 'sent' }, values: { ':rate': rate } },
          },
          { tag: 'second full' },
        ),
      );
      const slotStart = second * 1000 + ((Number(counter.sent) - 1) * PACED_MS) / rate;
      if (slotStart > Date.now()) await sleep(slotStart - Date.now());
      // Woken (or delayed) too close to, or into, the next second: this second's counter may not
      // be the one SES sees the send in, so take a slot of a later second instead. A send only
      // goes out with GUARD_MS of its counted second left to reach SES.
      if (Date.now() < second * 1000 + 1000 - GUARD_MS) return;
      second = Math.floor(Date.now() / 1000);
    } catch (error) {
      if (!isConditionFailed(error, 'second full')) throw error;
      // Full: reserve a slot of the next second right away rather than waiting for it to begin,
      // so senders hold their slots before the second starts instead of all racing for its
      // counter at the boundary (where the race's latency used up the second's early slots).
      second = Math.max(second + 1, Math.floor(Date.now() / 1000));
    }
    if (second * 1000 > deadline) throw new Error('no send slot free: the account send rate is taken');
  }
}
