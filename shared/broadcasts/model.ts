/**
 * The broadcasts feature's model: the broadcast as the API shows it, its statuses, and what create
 * and update take; the record and input types are derived from these schemas. The stored item
 * (BroadcastItem, shared/broadcasts/broadcasts.ts) stays with the logic: it extends the table's Item.
 */
import * as z from 'zod/mini';
import { scheduledAtInput } from '../emails/model';
import { addresses, fromAddress } from '../platform/mail/schemas';
import { headerSafe, id, timestamp } from '../platform/http/schemas';

export const BROADCAST_STATUSES = ['draft', 'scheduled', 'queued', 'sending', 'sent', 'canceled', 'failed'] as const;
export type BroadcastStatus = (typeof BROADCAST_STATUSES)[number];

const counters = /* @__PURE__ */ (() =>
  z.object({
    recipients: z.number(),
    sent: z.number(),
    skipped: z.number(),
    failed: z.number(),
  }))();

export const broadcast = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('broadcast'),
    id,
    name: z.nullable(z.string()),
    segment_id: id,
    /** the same segment id under Resend's older name (its audiences became segments), as Resend still answers it */
    audience_id: id,
    topic_id: z.nullable(id),
    from: z.string(),
    subject: z.string(),
    reply_to: z.nullable(z.array(z.string())),
    preview_text: z.nullable(z.string()),
    html: z.nullable(z.string()),
    text: z.nullable(z.string()),
    status: z.enum(BROADCAST_STATUSES),
    counters,
    created_at: timestamp,
    scheduled_at: z.nullable(timestamp),
    sent_at: z.nullable(timestamp),
  }))();
export type BroadcastRecord = z.output<typeof broadcast>;

/** A contact's outcome in a broadcast's fan-out (shared/broadcasts/fanout.ts), as the broadcast's counters count them. */
export const RECIPIENT_OUTCOMES = ['sent', 'skipped', 'failed'] as const;

/** What `resend.broadcasts.recipients` sends as `type` (the SDK requires it); GET /broadcasts/{id}/recipients accepts these and `all`, and lists every recipient for each (its operation says why). */
export const RECIPIENT_EVENT_TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
export const RECIPIENT_BOUNCE_TYPES = ['permanent', 'transient', 'undetermined'] as const;

/**
 * One contact of a broadcast's segment as the fan-out handled it: Resend's `{id, contact_id, email}`
 * (`id` is the contact's id too: the list's cursor), the outcome, and for a recipient that got an
 * email its id and current status.
 */
export const broadcastRecipient = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('broadcast_recipient'),
    id,
    contact_id: id,
    /** null for a contact deleted before the fan-out reached it */
    email: z.nullable(z.string()),
    outcome: z.enum(RECIPIENT_OUTCOMES),
    /** why it was skipped or failed (`unsubscribed`, `topic_opt_out`, `suppressed`, `contact_deleted`, `email_too_large`, `daily_quota_exceeded`, ...); null when sent */
    reason: z.nullable(z.string()),
    email_id: z.nullable(id),
    /** the email's `last_event`; `skipped` or `failed` when it got none; null once its email's record expired */
    status: z.nullable(z.string()),
    created_at: timestamp,
  }))();
export type BroadcastRecipientRecord = z.output<typeof broadcastRecipient>;

const name = /* @__PURE__ */ (() => z.string().check(z.trim(), z.maxLength(256)))();
const subject = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(998), headerSafe))();
const previewText = /* @__PURE__ */ (() => z.string().check(z.maxLength(998)))();
/** When to send (POST /broadcasts and POST /broadcasts/{id}/send): an ISO 8601 time with offset, or a phrase such as "in 1 hour" (shared/emails/schedule-phrase.ts). */
export const scheduledAt = scheduledAtInput;
const htmlOrText = (b: { html?: string | null; text?: string | null }) =>
  (b.html ?? undefined) !== undefined || (b.text ?? undefined) !== undefined;

export const createBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      segment_id: id,
      topic_id: z.optional(z.nullable(id)),
      name: z.optional(name),
      from: fromAddress,
      subject,
      reply_to: z.optional(addresses),
      preview_text: z.optional(previewText),
      html: z.optional(z.string()),
      text: z.optional(z.string()),
      scheduled_at: z.optional(scheduledAt),
      send: z.optional(z.boolean()),
    })
    .check(
      z.refine(htmlOrText, { message: 'html or text is required', path: ['html'] }),
      z.refine((b) => !(b.send === false && b.scheduled_at), {
        message: 'scheduled_at schedules the sending; it cannot go with send: false',
        path: ['scheduled_at'],
      }),
    ))();
export type CreateBroadcastInput = z.output<typeof createBody>;

export const updateBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      segment_id: z.optional(id),
      topic_id: z.optional(z.nullable(id)),
      name: z.optional(name),
      from: z.optional(fromAddress),
      subject: z.optional(subject),
      reply_to: z.optional(addresses),
      preview_text: z.optional(previewText),
      html: z.optional(z.nullable(z.string())),
      text: z.optional(z.nullable(z.string())),
    })
    .check(z.refine((b) => Object.keys(b).length > 0, { message: 'give at least one field to change', path: [] })))();
export type UpdateBroadcastInput = z.output<typeof updateBody>;
