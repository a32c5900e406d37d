/**
 * The suppression list's model: the entry as the API shows it, its sources, and what POST
 * /suppressions and the batch routes take. The logic (suppressions.ts, feedback.ts) uses the
 * types derived here.
 *
 * Every entry the API answers carries the contract's `source` and `message_id` and, beside them,
 * the same two values under Resend's names (`origin`, `source_id`), so the official SDK's
 * `Suppression` type reads it unchanged. Only the contract's pair is stored; the other is derived.
 */
import * as z from 'zod/mini';
import { BARE_ADDRESS, MAX_ADDRESS_LENGTH } from '../platform/mail/addresses';
import { id, timestamp } from '../platform/http/schemas';

export const SUPPRESSION_SOURCES = ['bounce', 'complaint', 'manual'] as const;
export type SuppressionSource = (typeof SUPPRESSION_SOURCES)[number];

const address = /* @__PURE__ */ (() =>
  z.string().check(z.trim(), z.maxLength(MAX_ADDRESS_LENGTH), z.regex(BARE_ADDRESS, 'must be an email address')))();

export const suppression = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('suppression'),
    id,
    email: z.string(),
    source: z.enum(SUPPRESSION_SOURCES),
    /** Resend's name for `source` */
    origin: z.enum(SUPPRESSION_SOURCES),
    subtype: z.nullable(z.string()),
    reason: z.nullable(z.string()),
    message_id: z.nullable(z.string()),
    /** Resend's name for `message_id`: the email that bounced or complained, null for `manual` */
    source_id: z.nullable(z.string()),
    created_at: timestamp,
  }))();
export type Suppression = z.output<typeof suppression>;

/** What a writer supplies for a new entry; id, created_at and Resend's names are made on insert. */
export type SuppressionEntry = Pick<Suppression, 'email' | 'source' | 'subtype' | 'reason' | 'message_id'>;

export const createSuppressionBody = /* @__PURE__ */ (() =>
  z.strictObject({
    email: address,
    reason: z.optional(z.string().check(z.maxLength(1000))),
  }))();
export type CreateSuppressionInput = z.output<typeof createSuppressionBody>;

/**
 * Addresses (or ids) per batch call: Resend's documented bound ("between 1 and 100"). A batch of
 * 100 takes several transactions (shared/suppressions/suppressions.ts says how that stays safe).
 */
export const MAX_BATCH_SUPPRESSIONS = 100;

const batchOf = <T extends z.ZodMiniType>(item: T) =>
  z.array(item).check(z.minLength(1), z.maxLength(MAX_BATCH_SUPPRESSIONS));

/** POST /suppressions/batch/add (the SDK's `suppressions.batch.add`): every address valid, or 422 naming its index (`emails.3`). */
export const batchAddBody = /* @__PURE__ */ (() => z.strictObject({ emails: batchOf(address) }))();

/** POST /suppressions/batch/remove (the SDK's `suppressions.batch.remove`): `emails` or `ids`, not both. */
export const batchRemoveBody = /* @__PURE__ */ (() =>
  z.strictObject({ emails: z.optional(batchOf(address)), ids: z.optional(batchOf(id)) }).check(
    z.refine((b) => (b.emails === undefined) !== (b.ids === undefined), {
      message: 'give either emails or ids, not both',
      path: ['ids'],
    }),
  ))();
export type BatchRemoveInput = z.output<typeof batchRemoveBody>;

/** One entry of a batch answer, in the order of the request: the SDK's `{object, id}`, with the address and whether this call created it. */
export const batchAdded = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('suppression'), id, email: z.string(), created: z.boolean() }))();
export type BatchAdded = z.output<typeof batchAdded>;
/** `deleted: false` when there was no such entry (`id` null then for an address); the SDK's `{object, id, deleted}` with the address. */
export const batchRemoved = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('suppression'),
    id: z.nullable(id),
    email: z.nullable(z.string()),
    deleted: z.boolean(),
  }))();
export type BatchRemoved = z.output<typeof batchRemoved>;
