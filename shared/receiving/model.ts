/**
 * The receiving feature's model: a received email (whole and as a summary) and its attachments as
 * the API shows them; the record types are derived from these schemas. The stored body
 * (StoredBody) stays with the logic that reads it.
 */
import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/schemas';

/** SES's verdicts, lower-cased: `pass`, `fail`, `gray`, `processing_failed`, or `disabled` when the rule does not scan. */
export const VERDICTS = ['pass', 'fail', 'gray', 'processing_failed', 'disabled'] as const;
export type Verdict = (typeof VERDICTS)[number];
const verdict = /* @__PURE__ */ (() => z.nullable(z.enum(VERDICTS)))();
const attachmentMeta = /* @__PURE__ */ (() => ({
  id,
  filename: z.nullable(z.string()),
  size: z.number(),
  content_type: z.string(),
  content_disposition: z.enum(['attachment', 'inline']),
  content_id: z.nullable(z.string()),
}))();
const downloadUrl = /* @__PURE__ */ (() => ({ download_url: z.string(), expires_at: timestamp }))();

/** A received email in lists and in `email.received` / `email.stored` events: everything but the bodies, headers and raw URL. */
export const receivedEmailSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('email'),
    id,
    to: z.array(z.string()),
    from: z.string(),
    created_at: timestamp,
    subject: z.string(),
    bcc: z.array(z.string()),
    cc: z.array(z.string()),
    reply_to: z.array(z.string()),
    received_for: z.array(z.string()),
    message_id: z.nullable(z.string()),
    attachments: z.array(z.object(attachmentMeta)),
    spam_verdict: verdict,
    virus_verdict: verdict,
  }))();
export type ReceivedEmailSummary = z.output<typeof receivedEmailSummary>;
export type AttachmentMeta = ReceivedEmailSummary['attachments'][number];

export const receivedEmail = /* @__PURE__ */ (() =>
  z.extend(receivedEmailSummary, {
    html: z.nullable(z.string()),
    text: z.nullable(z.string()),
    headers: z.record(z.string(), z.string()),
    raw: z.nullable(z.object(downloadUrl)),
    truncated: z.boolean().check(
      z.meta({
        description:
          'true when `text`, `html` or `headers` were cut so the answer fits a response (the bodies get 4 MB of JSON between them, the headers 512 KB; ' +
          'Lambda answers at most 6 MB): the whole message is always in `raw.download_url`. Not a Resend field.',
      }),
    ),
  }))();
export type ReceivedEmail = z.output<typeof receivedEmail>;

export const attachment = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('attachment'), ...attachmentMeta, ...downloadUrl }))();
export type AttachmentData = z.output<typeof attachment>;
