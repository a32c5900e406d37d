import * as z from 'zod/mini';
import { EVENT_TYPES } from '../events/model';
import { defineOperation } from '../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  deleted,
  id,
  listOf,
  listQuery,
  notFoundResponse,
} from '../platform/http/schemas';
import { endpointProblem } from '../platform/net/endpoint';
import {
  delivery,
  SIGNATURE_ALGORITHMS,
  webhook,
  webhookEvent,
  webhookEventAttempt,
  webhookEventDetail,
  webhookEventLog,
  webhookEventReplayed,
  webhookWithSecret,
} from './model';

const endpoint = /* @__PURE__ */ (() =>
  z.string().check(
    z.trim(),
    z.maxLength(2048),
    z.superRefine((value, ctx) => {
      const problem = endpointProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
    }),
  ))();
const events = /* @__PURE__ */ (() =>
  z.array(z.enum(EVENT_TYPES)).check(z.minLength(1), z.maxLength(EVENT_TYPES.length)))();
const description = /* @__PURE__ */ (() => z.nullable(z.string().check(z.trim(), z.maxLength(256))))();

const webhookParams = /* @__PURE__ */ (() => z.strictObject({ webhookId: id }))();
const deliveryParams = /* @__PURE__ */ (() => z.strictObject({ webhookId: id, deliveryId: id }))();
const signing =
  'Deliveries are signed per Standard Webhooks: headers `webhook-id` (the event id), `webhook-timestamp`, `webhook-signature` ' +
  '(`v1,<base64 HMAC-SHA256>` of `<id>.<timestamp>.<body>` for `hmac_sha256`; `v1a,<base64 Ed25519 signature>` of the same ' +
  'for `ed25519`, verified with `public_key`), and the same values as `svix-id`, `svix-timestamp`, `svix-signature`.';
const includeContent = /* @__PURE__ */ (() => z.boolean())();
const contentNote =
  // 256 KB: INLINE_BODY_BYTES of shared/receiving/inbound.ts; 1 hour: DOWNLOAD_URL_TTL_SECONDS of shared/platform/aws/s3.ts
  '`include_content: true` (default false): its `email.received` deliveries also carry the message in `data`: `text`, `html`, ' +
  '`attachments` with `size`, and `content_url`/`content_url_expires_at`. When headers, text and html take at most 256 KB ' +
  'of JSON, `text` and `html` are in the payload and `content_url` is null; past it they are null and `content_url` is a ' +
  'presigned URL (valid 1 hour from the attempt) of `{headers, text, html}` as JSON. Other events are unchanged.';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createWebhook',
    summary: 'Subscribe an endpoint to events',
    description:
      '`endpoint` must be https (plain http only to a loopback address, and only in the local runtime); `events` are event ' +
      'types of the contract (422 names a bad one by its index). The webhook starts `pending` and becomes `enabled` with ' +
      'its first successful delivery. The answer carries `signing_secret` (`whsec_...`), shown only here. ' +
      // 20: DEFAULT_MAX_WEBHOOKS_PER_PROJECT of ./webhooks.ts (not imported: operations stay free of the table client)
      "A project has at most 20 webhooks (the deployment's `MAX_WEBHOOKS_PER_PROJECT`), " +
      'since every event is one request per webhook: one more is 409 `webhook_limit_reached` and creates nothing. ' +
      'Several webhooks may share an endpoint (within that limit). ' +
      '`signature_algorithm`: `hmac_sha256` (default; `signing_secret` `whsec_...` shown only here) or `ed25519` ' +
      '(`signing_secret` null; the webhook shows `public_key` `whpk_...`, the private key never leaves the service). ' +
      `${contentNote} ${signing}`,
    tags: ['Webhooks'],
    auth: 'api_key',
    body: z.strictObject({
      endpoint,
      events,
      description: z.optional(description),
      signature_algorithm: z.optional(z.enum(SIGNATURE_ALGORITHMS)),
      include_content: z.optional(includeContent),
    }),
    responses: {
      201: { description: 'The new webhook with its signing secret', schema: webhookWithSecret },
      ...commonErrors,
      409: conflictResponse,
    },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listWebhooks',
    summary: 'List webhooks, newest first',
    tags: ['Webhooks'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of webhooks', schema: listOf(webhook) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getWebhook',
    summary: 'Get a webhook',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    responses: { 200: { description: 'The webhook', schema: webhook }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateWebhook',
    summary: 'Update a webhook',
    description:
      'At least one field. `status: disabled` stops deliveries (emits `webhook.endpoint.disabled`); `status: enabled` ' +
      'resumes them and resets `consecutive_failures`. Other changes emit `webhook.endpoint.updated`. ' +
      `${contentNote} \`signature_algorithm\` is fixed at creation.`,
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    body: z
      .strictObject({
        endpoint: z.optional(endpoint),
        events: z.optional(events),
        description: z.optional(description),
        status: z.optional(z.enum(['enabled', 'disabled'])),
        include_content: z.optional(includeContent),
      })
      .check(z.refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })),
    responses: { 200: { description: 'The updated webhook', schema: webhook }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    description:
      'Deliveries stop at once; its delivery records expire with their events (30 days). A second delete is 404.',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    responses: {
      200: { description: 'The webhook is gone', schema: deleted('webhook') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const rotateSecret = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'rotateWebhookSecret',
    summary: "Rotate a webhook's signing secret",
    description:
      'A new `signing_secret`, shown only in this answer (an `ed25519` webhook: a new key pair, its `public_key` in the ' +
      'answer, `signing_secret` null). The old secret or key keeps signing for 24 hours, so deliveries carry ' +
      'two signatures (space-separated in `webhook-signature`) while receivers switch; a second rotation drops the oldest. ' +
      'Two rotations racing: the second gets 409.',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    responses: {
      200: { description: 'The webhook with its new signing secret', schema: webhookWithSecret },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const listDeliveries = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listWebhookDeliveries',
    summary: "List a webhook's deliveries, newest event first",
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    query: listQuery,
    responses: {
      200: { description: 'A page of deliveries', schema: listOf(delivery) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const getDelivery = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getWebhookDelivery',
    summary: 'Get a webhook delivery',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: deliveryParams,
    responses: { 200: { description: 'The delivery', schema: delivery }, ...commonErrors, 404: notFoundResponse },
  }))();

export const retryDelivery = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'retryWebhookDelivery',
    summary: 'Retry a webhook delivery',
    description:
      "Queues one more attempt, now, whatever the delivery's status: it goes back to `pending` (a delivery still in its " +
      'schedule keeps the rest of it). 422 `webhook_disabled` when the webhook is disabled: enable it first.',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: deliveryParams,
    responses: {
      202: { description: 'The delivery, queued for redelivery', schema: delivery },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listEvents = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listProjectWebhookEvents',
    summary: 'List recent webhook events',
    description:
      'One item per delivery of an event to a webhook, newest event first: the event (`type`, `data`, `created_at`) and ' +
      'its latest attempt (`attempt`: number, `succeeded` or `failed`, response code, time; null before the first). ' +
      "`id` is the delivery's id. Paginated with `limit` (1-100, default 20) and `after` (an id); items appear within a " +
      'second or so of the delivery (an index read).',
    tags: ['Webhooks'],
    auth: 'api_key',
    query: z.strictObject({ limit: listQuery.shape.limit, after: z.optional(id) }),
    responses: { 200: { description: 'A page of webhook events', schema: listOf(webhookEvent) }, ...commonErrors },
  }))();

// Resend's event log of a webhook (the SDK's webhooks.events.*), over the same delivery records (./event-log.ts)

const eventParams = /* @__PURE__ */ (() => z.strictObject({ webhookId: id, eventId: id }))();
/** Resend's list query: `limit` and `after` only (its documentation: `before` is not supported here). */
const eventLogQuery = /* @__PURE__ */ (() => z.strictObject({ limit: listQuery.shape.limit, after: z.optional(id) }))();
const eventLogNote =
  "Resend's event log of the webhook, over the delivery records that `/webhooks/{webhookId}/deliveries` lists: one entry " +
  "per delivery, named by its event's id (the `webhook-id` header the endpoint got, the delivery's `event_id`), not by the " +
  'delivery id. `status`: `pending` before the first attempt, `attempting` while retries are left after a failed attempt ' +
  '(or a replay is queued), `success` once delivered, `failed` when the retry schedule ran out. ';

export const listEventLog = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listWebhookEvents',
    summary: 'List the events delivered to a webhook, newest first',
    description: `${eventLogNote}Paginated with \`limit\` (1-100, default 20) and \`after\` (an event id); \`before\` is not supported, as on Resend.`,
    tags: ['Webhooks'],
    auth: 'api_key',
    params: webhookParams,
    query: eventLogQuery,
    responses: {
      200: { description: 'A page of the webhook event log', schema: listOf(webhookEventLog) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const getEventLogEntry = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getWebhookEvent',
    summary: 'Get an event delivered to a webhook, with its payload',
    description:
      `${eventLogNote}\`payload\` is the event exactly as it was sent; \`next_attempt_at\` is null once the status is ` +
      '`success` or `failed`. 404 when the event was not delivered to this webhook.',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: eventParams,
    responses: {
      200: { description: 'The event log entry', schema: webhookEventDetail },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const replayEvent = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'replayWebhookEvent',
    summary: 'Replay an event to a webhook',
    description:
      "The same as retrying the event's delivery (`POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry`): one more attempt, " +
      'queued now, whatever the status, so an event already delivered is sent again. 202, as the retry answers; ' +
      '422 `webhook_disabled` when the webhook is disabled.',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: eventParams,
    responses: {
      202: { description: 'The replay is queued', schema: webhookEventReplayed },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listEventAttempts = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listWebhookEventAttempts',
    summary: "List the attempts of an event's delivery to a webhook, newest first",
    description:
      // 512: RESPONSE_KEPT_BYTES of ./http.ts (not imported: operations stay free of the HTTP client)
      'One entry per attempt: `http_status_code` the endpoint answered (0 when nothing answered: refused, unresolvable, ' +
      `timed out after 15 s) and \`response\`, the first 512 bytes of its answer's body (or why there was none). ` +
      'Paginated with `limit` and `after` (an attempt id). Attempts made before attempt records existed, and one whose dispatcher ' +
      "died between recording it on the delivery and writing its record, are not listed (the delivery's `attempt_count` counts them).",
    tags: ['Webhooks'],
    auth: 'api_key',
    params: eventParams,
    query: eventLogQuery,
    responses: {
      200: { description: 'A page of attempts', schema: listOf(webhookEventAttempt) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export type CreateWebhookInput = z.output<typeof create.body>;
export type UpdateWebhookInput = z.output<typeof update.body>;
