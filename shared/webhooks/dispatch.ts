/**
 * One attempt of one webhook delivery, for each message of the delivery queue.
 *
 * 1. Read the delivery and its webhook (one BatchGet). Nothing to do when the delivery is not
 *    `pending` or the webhook is gone; a disabled webhook ends the delivery `failed`.
 * 2. A message that comes before the attempt is due (a duplicate, or one whose delay could not
 *    be set) goes back to sleep until then. A webhook whose endpoint keeps failing slowly is
 *    throttled (shared/webhooks/throttle.ts): a due delivery takes its next slot and, when that
 *    is later, sleeps until then with no attempt made or counted.
 * 3. Claim the attempt: a conditional write on (`pending`, this attempt count, no live claim).
 *    A second message for the same delivery finds it taken and is dropped, so two messages
 *    never POST the same attempt; a claim of a dispatcher that died expires after CLAIM_MS.
 * 4. POST the event, signed (shared/webhooks/signing.ts, shared/platform/net/outbound.ts). To a
 *    webhook with `include_content`, an `email.received` event goes with the message added to its
 *    `data` (`contentOf`: read at each attempt, so the stored event, and the event log's `payload`,
 *    stay without it).
 * 5. Record the attempt on the delivery, only while the claim is ours, with the attempt's own
 *    record (status code, start of the answer) appended to it in the same UpdateItem; then on the webhook
 *    (recordHealth): a 2xx resets its failure counters and sets `last_success_at`; anything else
 *    adds one to `consecutive_failures`, sets `last_failure_at` and, when it was the last
 *    attempt allowed (the delivery ends `failed`), adds one to the failed-deliveries count; a
 *    failure that took SLOW_FAILURE_MS or more adds one to `slow_failures`, a quick one resets it.
 * 6. A first success makes a `pending` webhook `enabled`; the MAX_FAILED_DELIVERIES-th failed
 *    delivery in a row disables it, with `webhook.endpoint.disabled`, in one transaction.
 *
 * Answers how many seconds until the message should come back (the next attempt), or undefined
 * when it is done with.
 */
import { countMetric } from '../platform/metrics';
import { randomUUID } from 'node:crypto';
import * as keys from '../platform/db/keys';
import { applyUpdate, batchGet, getItem, isConditionFailed, transact, update, type Item } from '../platform/db/table';
import { eventWrite, withResendFields } from '../events/events';
import type { PlatformEvent } from '../events/model';
import { nowIso } from '../platform/ids';
import { now } from '../platform/clock';
import { logger } from '../platform/log';
import { newAttempt, retryDelaySeconds, type DeliveryItem } from './deliveries';
import { postWebhook, WEBHOOK_TIMEOUT_MS } from '../platform/net/outbound';
import type { DeliveryMessage } from './queue';
import { signatureHeaders } from './signing';
import { holdsSlot, isThrottled, reserveSlot, SLOW_FAILURE_MS } from './throttle';
import { MAX_FAILED_DELIVERIES, signingSecrets, toWebhook, type WebhookItem } from './webhooks';

/** How long a claim holds: the POST's timeout and then some. Shorter than the queue's visibility timeout. */
export const CLAIM_MS = WEBHOOK_TIMEOUT_MS + 30_000;
/** A healthy webhook's `last_success_at` is rewritten at most this often (see recordHealth). */
const SUCCESS_WRITE_INTERVAL_MS = 10_000;
/** A message this close to the attempt's time counts as on time (SQS delays are whole seconds). */
const EARLY_TOLERANCE_MS = 1_000;

/** Every conditional write here fails as 'lost' when another dispatcher, or a delete, got there first. */
const lost = { tag: 'lost' };
const ignoreLost = (error: unknown) => {
  if (!isConditionFailed(error, lost.tag)) throw error;
};
const statusIs = (status: string, count: number) => ({
  expression: '#status = :status AND attempt_count = :count',
  names: { '#status': 'status' },
  values: { ':status': status, ':count': count },
});

/**
 * The fields a webhook with `include_content` gets beside an `email.received` event's `data`
 * (shared/receiving/webhook-content.ts; the worker passes it, as receiving comes after webhooks).
 */
export type ContentOf = (projectId: string, event: PlatformEvent) => Promise<Record<string, unknown>>;

export async function dispatchDelivery(message: DeliveryMessage, contentOf?: ContentOf): Promise<number | undefined> {
  const deliveryKey = keys.webhookDelivery(message.project_id, message.webhook_id, message.delivery_id);
  const webhookKey = keys.webhook(message.project_id, message.webhook_id);
  // the event too when the message names it: one round trip for the three (an event gone is read as gone)
  const eventKey = message.event_id ? keys.event(message.project_id, message.event_id) : undefined;
  const found = await batchGet<Item>([deliveryKey, webhookKey, ...(eventKey ? [eventKey] : [])]);
  const delivery = found.find((i) => i.type === 'webhook_delivery') as DeliveryItem | undefined;
  const webhook = found.find((i) => i.type === 'webhook') as WebhookItem | undefined;
  const eventRead = found.find((i) => i.type === 'event');
  if (!delivery || delivery.status !== 'pending' || !webhook) return undefined;

  if (webhook.status === 'disabled') {
    const at = nowIso();
    await applyUpdate(
      update(
        deliveryKey,
        {
          set: { status: 'failed', error: 'webhook disabled', completed_at: at, next_attempt_at: null, updated_at: at },
          condition: statusIs('pending', delivery.attempt_count),
        },
        lost,
      ),
    ).catch(ignoreLost);
    return undefined;
  }
  const wait = Date.parse(delivery.next_attempt_at ?? '') - now();
  if (wait > EARLY_TOLERANCE_MS) return wait / 1000;
  if (isThrottled(webhook) && !holdsSlot(delivery, now(), EARLY_TOLERANCE_MS)) {
    const slot = await reserveSlot(webhookKey);
    if (slot - now() > EARLY_TOLERANCE_MS) return hold(deliveryKey, delivery, slot);
  }

  const secrets = await signingSecrets(webhook); // before the claim: a KMS failure leaves the delivery free for the retry
  const token = randomUUID();
  try {
    const claim = statusIs('pending', delivery.attempt_count);
    claim.expression += ' AND (attribute_not_exists(claimed_until) OR claimed_until < :now)';
    await applyUpdate(
      update(
        deliveryKey,
        {
          set: { claim_token: token, claimed_until: now() + CLAIM_MS },
          condition: { ...claim, values: { ...claim.values, ':now': now() } },
        },
        lost,
      ),
    );
  } catch (error) {
    ignoreLost(error);
    return undefined; // another message of this delivery is being handled right now
  }

  const event =
    eventKey && message.event_id === delivery.event_id
      ? eventRead
      : await getItem(keys.event(message.project_id, delivery.event_id));
  let sent = event ? withResendFields(event.event as PlatformEvent) : undefined;
  if (sent && contentOf && webhook.include_content && sent.type === 'email.received')
    sent = { ...sent, data: { ...sent.data, ...(await contentOf(message.project_id, sent)) } };
  const body = sent ? JSON.stringify(sent) : '';
  const sentAt = nowIso();
  const started = Date.now(); // machine time: how long the POST took (a slow failure)
  const result = event
    ? await postWebhook(webhook.endpoint, body, signatureHeaders(secrets, delivery.event_id, body))
    : { ok: false, status: null, error: 'the event has expired' };

  const slow = !result.ok && Date.now() - started >= SLOW_FAILURE_MS;
  const attempt = delivery.attempt_count + 1;
  const final = !result.ok && (attempt >= delivery.attempt_limit || !event);
  const delay = result.ok || final ? undefined : retryDelaySeconds(attempt);
  const at = nowIso();
  try {
    await applyUpdate(
      update(
        deliveryKey,
        {
          set: {
            status: result.ok ? 'delivered' : final ? 'failed' : 'pending',
            attempt_count: attempt,
            response_code: result.status,
            error: result.error,
            last_attempt_at: at,
            last_attempt_status: result.ok ? 'succeeded' : 'failed',
            next_attempt_at: delay === undefined ? null : new Date(now() + delay * 1000).toISOString(),
            completed_at: delay === undefined ? at : null,
            updated_at: at,
          },
          append: { attempts: [newAttempt(attempt, sentAt, result)] },
          remove: ['claim_token', 'claimed_until', 'throttled_until'],
          condition: { expression: 'claim_token = :token', values: { ':token': token } },
        },
        lost,
      ),
    );
  } catch (error) {
    ignoreLost(error);
    logger.warn('webhook attempt not recorded: the claim expired and another dispatcher took the delivery', {
      delivery_id: delivery.id,
    });
    return undefined;
  }
  countMetric('WebhookDeliveries', { Outcome: result.ok ? 'delivered' : final ? 'failed' : 'retrying' });
  await recordHealth(webhookKey, webhook, { ok: result.ok, final, slow }, at);
  return delay;
}

/**
 * A throttled webhook's delivery waits for its slot: `next_attempt_at` says when (the API shows
 * it), `throttled_until` that the slot is its own; no attempt is made or counted. Answers the
 * seconds until then, for the message's visibility.
 */
async function hold(deliveryKey: keys.Key, delivery: DeliveryItem, slot: number): Promise<number> {
  await applyUpdate(
    update(
      deliveryKey,
      {
        set: { next_attempt_at: new Date(slot).toISOString(), throttled_until: slot, updated_at: nowIso() },
        condition: statusIs('pending', delivery.attempt_count),
      },
      lost,
    ),
  ).catch(ignoreLost);
  countMetric('WebhookDeliveries', { Outcome: 'throttled' });
  return Math.max(1, (slot - now()) / 1000);
}

/**
 * The attempt on the webhook: its failure counters and last success or failure. Plain
 * UpdateItems, not a transaction with the delivery: every delivery of a webhook writes this one
 * item, and concurrent transactions on one item fail with TransactionConflict. So that a busy
 * healthy webhook is not one hot item written per delivery, a success writes only when it
 * changes something: counters to reset, a `pending` status, or a `last_success_at` older than
 * SUCCESS_WRITE_INTERVAL_MS. A fault here is logged, not retried: the delivery is recorded.
 */
async function recordHealth(
  webhookKey: keys.Key,
  webhook: WebhookItem,
  { ok, final, slow }: { ok: boolean; final: boolean; slow: boolean },
  at: string,
): Promise<void> {
  const exists = { expression: 'attribute_exists(PK)' };
  const stale = !webhook.last_success_at || Date.parse(webhook.last_success_at) < now() - SUCCESS_WRITE_INTERVAL_MS;
  try {
    if (!ok) {
      await applyUpdate(
        update(
          webhookKey,
          {
            set: { last_failure_at: at, ...(slow ? {} : { slow_failures: 0 }) },
            add: {
              consecutive_failures: 1,
              ...(final ? { failed_deliveries: 1 } : {}),
              ...(slow ? { slow_failures: 1 } : {}),
            },
            condition: exists,
          },
          lost,
        ),
      );
    } else if (
      webhook.consecutive_failures > 0 ||
      (webhook.failed_deliveries ?? 0) > 0 ||
      (webhook.slow_failures ?? 0) > 0 ||
      webhook.status === 'pending' ||
      stale
    ) {
      await applyUpdate(
        update(
          webhookKey,
          {
            set: { consecutive_failures: 0, failed_deliveries: 0, slow_failures: 0, last_success_at: at },
            condition: exists,
          },
          lost,
        ),
      );
    }
    if (ok && webhook.status === 'pending') {
      const pending = {
        expression: '#status = :pending',
        names: { '#status': 'status' },
        values: { ':pending': 'pending' },
      };
      await applyUpdate(update(webhookKey, { set: { status: 'enabled' }, condition: pending }, lost)).catch(ignoreLost);
    }
    if (final) await disableIfFailing(webhookKey);
  } catch (error) {
    if (!isConditionFailed(error, lost.tag))
      logger.error('webhook health not recorded', { webhook_id: webhook.id, error }); // lost: deleted meanwhile
  }
}

/**
 * Disables the webhook, with its event, once MAX_FAILED_DELIVERIES deliveries in a row have
 * failed. A transaction on an item that other dispatchers are updating may be cancelled with a
 * conflict: it is tried again, and failing that the next failed delivery tries.
 */
async function disableIfFailing(webhookKey: keys.Key): Promise<void> {
  for (let round = 0; round < 3; round++) {
    const current = await getItem<WebhookItem & Item>(webhookKey);
    if (!current || current.status === 'disabled' || (current.failed_deliveries ?? 0) < MAX_FAILED_DELIVERIES) return;
    const at = nowIso();
    try {
      await transact([
        update(
          webhookKey,
          {
            set: { status: 'disabled', updated_at: at },
            condition: {
              expression: '#status <> :disabled',
              names: { '#status': 'status' },
              values: { ':disabled': 'disabled' },
            },
          },
          lost,
        ),
        eventWrite(
          { projectId: current.project_id, livemode: current.livemode },
          'webhook.endpoint.disabled',
          toWebhook({ ...current, status: 'disabled', updated_at: at }),
        ),
      ]);
      logger.warn('webhook disabled after failed deliveries', {
        webhook_id: current.id,
        project_id: current.project_id,
        failed_deliveries: current.failed_deliveries,
      });
      return;
    } catch (error) {
      if (isConditionFailed(error, lost.tag)) return; // disabled by someone else meanwhile
      if ((error as Error).name !== 'TransactionCanceledException' || round === 2) throw error;
      await new Promise((r) => setTimeout(r, 50 * (round + 1)));
    }
  }
}
