/**
 * The dispatcher's throttle of a webhook whose endpoint keeps failing slowly, so that it cannot
 * take the dispatcher's slots from everyone else's endpoints.
 *
 * What costs the others is not a failure but the time it holds a slot: an endpoint that answers
 * 503 at once costs milliseconds, one that never answers holds an invocation for the whole 15 s
 * (3 s when it never accepts the connection: shared/platform/net/outbound.ts), and a burst of its
 * deliveries can hold every one of the dispatcher's 20 concurrent invocations. So:
 *
 * - A failed attempt that took SLOW_FAILURE_MS or more is slow; the webhook counts them in a row
 *   (`slow_failures`, beside `consecutive_failures`). A success, or a failure that came back
 *   quickly, sets it back to 0 (recordHealth in shared/webhooks/dispatch.ts); so does
 *   PATCH `status: enabled`.
 * - From THROTTLE_AFTER_SLOW_FAILURES slow failures in a row, the webhook is throttled: its
 *   attempts go out at most one per THROTTLE_SPACING_MS. A delivery due for an attempt reserves
 *   the webhook's next slot (`reserveSlot`: one UpdateItem on the webhook); when that slot is
 *   later than now, the delivery is held, with no HTTP attempt and no attempt counted: its
 *   `next_attempt_at` becomes the slot, `throttled_until` marks the slot as its own, and its message
 *   comes back then (ChangeMessageVisibility) and attempts without reserving again.
 *   A throttled webhook thus has at most 15 s / 5 s = 3 attempts in flight, whatever its backlog.
 * - Nothing is lost or skipped: every delivery still gets every attempt of the retry schedule,
 *   whose delays become minimums (a throttled endpoint's attempt can come later, never earlier).
 *   A disabled webhook still ends its held deliveries `failed` when they come back, and a deleted
 *   one drops them, as before.
 *
 * Costs: a held delivery is two more writes (the slot and the delivery) and one more receive of
 * its message (the delivery queue's maxReceiveCount allows for it). The throttle is per webhook,
 * not per endpoint URL: two webhooks of a project on one failing endpoint get a slot each.
 */
import type * as keys from '../platform/db/keys';
import { isConditionFailed, update, updateItem, type Item } from '../platform/db/table';
import type { DeliveryItem } from './deliveries';
import type { WebhookItem } from './webhooks';
import { now as clockNow } from '../platform/clock';

/** A failed attempt that held its slot this long counts as slow (a connect timeout, a hung answer). */
export const SLOW_FAILURE_MS = 2_000;
/** Slow failures in a row after which a webhook's attempts are spaced. */
export const THROTTLE_AFTER_SLOW_FAILURES = 3;
/** A throttled webhook gets one attempt per this (epoch ms between slots). */
export const THROTTLE_SPACING_MS = 5_000;

export const isThrottled = (webhook: Pick<WebhookItem, 'slow_failures'>): boolean =>
  (webhook.slow_failures ?? 0) >= THROTTLE_AFTER_SLOW_FAILURES;

/** The delivery holds a slot reserved earlier, due by `now` (with `toleranceMs`): it attempts without reserving another. */
export const holdsSlot = (delivery: Pick<DeliveryItem, 'throttled_until'>, now: number, toleranceMs: number): boolean =>
  delivery.throttled_until !== undefined &&
  delivery.throttled_until !== null &&
  delivery.throttled_until <= now + toleranceMs;

const taken = { tag: 'slot taken' };

/**
 * Takes the webhook's next attempt slot and answers its time (epoch ms): now when the last slot
 * handed out is past (or none was), else that slot, moving the next one THROTTLE_SPACING_MS on.
 * Two atomic conditional writes, no read: concurrent dispatchers get distinct slots. A webhook
 * deleted meanwhile, or writes lost three times over to others, answer one spacing from now.
 */
export async function reserveSlot(webhookKey: keys.Key, now = clockNow()): Promise<number> {
  for (let round = 0; round < 3; round++) {
    try {
      const item = await updateItem<Item & { throttle_next_at: number }>(
        update(
          webhookKey,
          {
            add: { throttle_next_at: THROTTLE_SPACING_MS },
            condition: { expression: 'throttle_next_at >= :now', values: { ':now': now } },
          },
          taken,
        ),
      );
      return item.throttle_next_at - THROTTLE_SPACING_MS;
    } catch (error) {
      if (!isConditionFailed(error, taken.tag)) throw error;
    }
    try {
      await updateItem(
        update(
          webhookKey,
          {
            set: { throttle_next_at: now + THROTTLE_SPACING_MS },
            condition: {
              expression:
                'attribute_exists(PK) AND (attribute_not_exists(throttle_next_at) OR throttle_next_at < :now)',
              values: { ':now': now },
            },
          },
          taken,
        ),
      );
      return now;
    } catch (error) {
      if (!isConditionFailed(error, taken.tag)) throw error;
    }
  }
  return now + THROTTLE_SPACING_MS;
}
