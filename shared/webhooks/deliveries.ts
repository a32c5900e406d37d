/**
 * Webhook deliveries: one record per (webhook, event), written by the fan-out worker and moved
 * on by the dispatcher (shared/webhooks/fanout.ts, shared/webhooks/dispatch.ts).
 *
 * Status: `pending` until an attempt gets a 2xx (`delivered`) or the last scheduled attempt
 * fails (`failed`); a manual retry puts any delivery back to `pending` with one more attempt.
 * A delivery whose webhook is disabled when its turn comes ends `failed` with `error:
 * "webhook disabled"` (retry it once the webhook is enabled again).
 *
 * Attempts are counted here (`attempt_count` against `attempt_limit`), never by SQS receive
 * counts, and each one is also recorded here, in `attempts` (`newAttempt`, below). After failed
 * attempt n the next one waits `retryDelaySeconds(n)`: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h
 * (8 attempts in about 28 h), or the comma list of seconds in `WEBHOOK_RETRY_SCHEDULE_SECONDS`
 * (tests run it in seconds).
 */
import { createHash } from 'node:crypto';
import * as keys from '../platform/db/keys';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import type { PostResult } from '../platform/net/outbound';
import type { DeliveryRecord } from './model';

export interface DeliveryItem extends Omit<DeliveryRecord, 'object'> {
  project_id: string;
  /** attempts allowed in all: the schedule's, plus one per manual retry */
  attempt_limit: number;
  last_attempt_at?: string;
  last_attempt_status?: 'succeeded' | 'failed';
  /** the dispatcher working on it now, and until when (epoch ms): a second message finds it taken */
  claim_token?: string;
  claimed_until?: number;
  /** the throttle slot (epoch ms) this delivery waits for; its attempt then goes without reserving another (shared/webhooks/throttle.ts) */
  throttled_until?: number | null;
  /** its event's: both go after 30 days */
  expires_at: number;
  /** its event's `created_at` (Resend's event log shows it); absent on deliveries written before it was kept */
  event_created_at?: string;
  /**
   * Its attempts, oldest first: appended by the write that counts each (`newAttempt`). Absent before the first,
   * and short of `attempt_count` on deliveries whose earlier attempts have records of their own (`AttemptItem`).
   */
  attempts?: AttemptRecord[];
}

export const toDeliveryRecord = (item: DeliveryItem): DeliveryRecord => ({
  object: 'webhook_delivery',
  id: item.id,
  webhook_id: item.webhook_id,
  event_id: item.event_id,
  event_type: item.event_type,
  status: item.status,
  attempt_count: item.attempt_count,
  response_code: item.response_code,
  error: item.error,
  next_attempt_at: item.next_attempt_at,
  completed_at: item.completed_at,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

export const DEFAULT_RETRY_SCHEDULE_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600];

/** Delays between attempts, in seconds: the default, or WEBHOOK_RETRY_SCHEDULE_SECONDS ("1,1,1"; "" = no retries). */
export function retrySchedule(env: NodeJS.ProcessEnv = process.env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE_SECONDS;
  if (raw === undefined) return DEFAULT_RETRY_SCHEDULE_SECONDS;
  const values = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map(Number);
  if (values.every((n) => Number.isInteger(n) && n >= 0)) return values;
  logger.error('WEBHOOK_RETRY_SCHEDULE_SECONDS is not a comma list of whole seconds; using the default', {
    value: raw,
  });
  return DEFAULT_RETRY_SCHEDULE_SECONDS;
}

/** Seconds to wait after failed attempt `attempt` (1-based); attempts past the schedule (manual retries) wait its last delay. */
export function retryDelaySeconds(attempt: number, schedule = retrySchedule()): number {
  if (schedule.length === 0) return 0;
  return schedule[Math.min(attempt, schedule.length) - 1];
}

/**
 * The id of the delivery of an event to a webhook, the same every time it is computed, so a
 * replayed stream record finds the delivery it made before instead of making a second one.
 * UUID-shaped (version 8, RFC 9562's custom layout): the first 48 bits are the event id's
 * UUIDv7 timestamp, so deliveries sort by their event's time like every other id sorts by its
 * own; the other 74 bits come from SHA-256 of `<webhook id>:<event id>`.
 */
export function deliveryId(webhookId: string, eventId: string): string {
  const bytes = createHash('sha256').update(`${webhookId}:${eventId}`).digest().subarray(0, 16);
  Buffer.from(eventId.replace(/-/g, '').slice(0, 12), 'hex').copy(bytes, 0);
  bytes[6] = 0x80 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface OutboxEvent {
  projectId: string;
  id: string;
  type: string;
  /** the envelope's `created_at` (ISO): a webhook gets the events created from its own creation on */
  createdAt: string;
  expiresAt: number;
}

/** The new, pending delivery of `event` to a webhook, with its keys (due at once). */
export function newDeliveryItem(event: OutboxEvent, webhookId: string, now: string) {
  const id = deliveryId(webhookId, event.id);
  const item: DeliveryItem = {
    id,
    project_id: event.projectId,
    webhook_id: webhookId,
    event_id: event.id,
    event_type: event.type,
    status: 'pending',
    attempt_count: 0,
    attempt_limit: retrySchedule().length + 1,
    response_code: null,
    error: null,
    next_attempt_at: now,
    completed_at: null,
    created_at: now,
    updated_at: now,
    expires_at: event.expiresAt,
    event_created_at: event.createdAt,
  };
  return {
    ...keys.webhookDelivery(event.projectId, webhookId, id),
    ...keys.webhookEventsIndex(event.projectId, id),
    type: 'webhook_delivery',
    ...item,
  };
}

/**
 * One attempt (Resend's `webhooks.events.attempts.list`), kept on its delivery: the dispatcher
 * appends it in the UpdateItem that counts the attempt (no write of its own, so an attempt is
 * never counted and not listed). `http_status_code` is 0 when nothing answered (refused, DNS,
 * timeout: Svix's convention too), and `response` then holds the reason instead of a body (at
 * most RESPONSE_KEPT_BYTES of it: the eight scheduled attempts add about 5 KB at worst).
 */
export interface AttemptRecord {
  /** a UUIDv7 of the attempt's time: attempts list newest first by id */
  id: string;
  /** 1-based, as the delivery's `attempt_count` counts it */
  number: number;
  http_status_code: number;
  response: string;
  sent_at: string;
}

export function newAttempt(number: number, sentAt: string, result: PostResult): AttemptRecord {
  return {
    id: newId(Date.parse(sentAt)),
    number,
    http_status_code: result.status ?? 0,
    response: result.body ?? result.error ?? '',
    sent_at: sentAt,
  };
}

/**
 * An attempt recorded before attempts were kept on their delivery: an item of its own in the
 * delivery's attempt partition (keys.ts "webhook attempt"), read until it expires with its delivery.
 */
export interface AttemptItem extends AttemptRecord {
  project_id: string;
  webhook_id: string;
  delivery_id: string;
  expires_at: number;
}
