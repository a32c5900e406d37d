/**
 * The webhooks feature's model: the webhook, its deliveries and the webhook-events items as the
 * API shows them, with their statuses; the record types are derived from these schemas. What
 * create and update take stays in operations.ts: the endpoint check (shared/platform/net/endpoint.ts)
 * is logic. The stored items (WebhookItem, DeliveryItem) stay with the logic that writes them.
 */
import * as z from 'zod/mini';
import { event, EVENT_TYPES } from '../events/model';
import { API_VERSION } from '../platform/http/api-version';
import { id, timestamp } from '../platform/http/schemas';

export const WEBHOOK_STATUSES = ['enabled', 'disabled', 'pending'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** How deliveries are signed (shared/webhooks/signing.ts): Standard Webhooks `v1` (HMAC) or `v1a` (Ed25519). */
export const SIGNATURE_ALGORITHMS = ['hmac_sha256', 'ed25519'] as const;
export type SignatureAlgorithm = (typeof SIGNATURE_ALGORITHMS)[number];

export const webhook = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('webhook'),
    id,
    api_version: z.literal(API_VERSION),
    endpoint: z.string(),
    events: z.array(z.enum(EVENT_TYPES)),
    description: z.nullable(z.string()),
    status: z.enum(WEBHOOK_STATUSES),
    secret_prefix: z.string(),
    signature_algorithm: z.enum(SIGNATURE_ALGORITHMS),
    /** an `ed25519` webhook's key to verify with (`whpk_` + base64 of its 32 bytes; not a secret); null for `hmac_sha256` */
    public_key: z.nullable(z.string()),
    /** whether its `email.received` deliveries carry the message (shared/webhooks/dispatch.ts) */
    include_content: z.boolean(),
    consecutive_failures: z.number(),
    last_success_at: z.nullable(timestamp),
    last_failure_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type Webhook = z.output<typeof webhook>;

/** The webhook as create and rotate answer it: the only time its secret is shown (null for `ed25519`: it has no secret to share). */
export const webhookWithSecret = /* @__PURE__ */ (() =>
  z.extend(webhook, { signing_secret: z.nullable(z.string()) }))();

export const delivery = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('webhook_delivery'),
    id,
    webhook_id: id,
    event_id: id,
    event_type: z.enum(EVENT_TYPES),
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number(),
    response_code: z.nullable(z.number()),
    error: z.nullable(z.string()),
    next_attempt_at: z.nullable(timestamp),
    completed_at: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
/**
 * A delivery as stored and shown: the schema's type, except that `event_type` is any string (the
 * fan-out copies it from the event item of the table's stream, where it is a plain string).
 */
export type DeliveryRecord = Omit<z.output<typeof delivery>, 'event_type'> & { event_type: string };

/** An item of GET /webhook-events: one delivery with its event. */
export const webhookEvent = /* @__PURE__ */ (() =>
  z.object({
    id,
    webhook_id: id,
    type: z.enum(EVENT_TYPES),
    data: z.record(z.string(), z.unknown()),
    created_at: z.nullable(timestamp),
    attempt: z.nullable(
      z.object({
        number: z.number(),
        status: z.enum(['succeeded', 'failed']),
        response_code: z.nullable(z.number()),
        at: timestamp,
      }),
    ),
  }))();
/** The schema's type, `type` a plain string as DeliveryRecord's `event_type` is. */
export type WebhookEvent = Omit<z.output<typeof webhookEvent>, 'type'> & { type: string };

/**
 * Resend's event log of one webhook (`webhooks.events.*` of the SDK): one entry per delivery, named
 * by its event's id. Status from the delivery's: `pending` before the first attempt, `attempting`
 * while retries are left after a failed one (or a replay is queued), `success` once delivered,
 * `failed` when the schedule ran out.
 */
export const EVENT_LOG_STATUSES = ['success', 'pending', 'failed', 'attempting'] as const;
export type EventLogStatus = (typeof EVENT_LOG_STATUSES)[number];

export const webhookEventLog = /* @__PURE__ */ (() =>
  z.object({
    id,
    type: z.enum(EVENT_TYPES),
    created_at: timestamp,
    status: z.enum(EVENT_LOG_STATUSES),
  }))();
export type WebhookEventLog = Omit<z.output<typeof webhookEventLog>, 'type'> & { type: string };

/** One entry with what was sent: `payload` is the event as delivered, null if it expired before its delivery record did. */
export const webhookEventDetail = /* @__PURE__ */ (() =>
  z.extend(webhookEventLog, {
    object: z.literal('webhook_event'),
    next_attempt_at: z.nullable(timestamp),
    payload: z.nullable(event),
  }))();
export type WebhookEventDetail = WebhookEventLog & {
  object: 'webhook_event';
  next_attempt_at: string | null;
  payload: Record<string, unknown> | null;
};

export const webhookEventReplayed = /* @__PURE__ */ (() => z.object({ object: z.literal('webhook_event'), id }))();

export const webhookEventAttempt = /* @__PURE__ */ (() =>
  z.object({
    id,
    http_status_code: z.number(),
    response: z.string(),
    sent_at: timestamp,
  }))();
export type WebhookEventAttempt = z.output<typeof webhookEventAttempt>;
