/**
 * Received emails: what the inbound worker (shared/receiving/inbound.ts) stored for a project, read
 * through GET /emails/receiving and its attachments. Shapes follow Resend's receiving API
 * (`object: "email"`, `received_for`, `raw {download_url, expires_at}`, attachments with
 * `download_url`), plus SES's spam and virus verdicts.
 *
 * Item: the record below under keys.receivedEmail, with `ses_message_id`, `raw_key` (the object
 * SES stored), `attachments[].id` (UUIDv7, in message order; the object is at attachmentKey) and,
 * for a body too large for the item, `body_key` (a JSON object `{headers, text, html}` in the
 * bucket) instead of `headers`, `text` and `html`. `stored_at` is set when the attachments are
 * in the bucket (`email.stored`). The item expires with the raw message (INBOUND_RETENTION_DAYS).
 */
import { pageInOrder } from '../platform/list-page';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, queryPage, type Item, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { contentDisposition, getObject, presignGet } from '../platform/aws/s3';
import type { AttachmentData, AttachmentMeta, ReceivedEmail, ReceivedEmailSummary } from './model';

export interface StoredBody {
  headers: Record<string, string>;
  text: string | null;
  html: string | null;
}

export const attachmentKey = (projectId: string, receivedEmailId: string, attachmentId: string) => `attachments/${projectId}/${receivedEmailId}/${attachmentId}`;
export const bodyKey = (projectId: string, receivedEmailId: string) => `bodies/${projectId}/${receivedEmailId}.json`;

export function toSummary(item: Item): ReceivedEmailSummary {
  return {
    object: 'email',
    id: item.id,
    to: item.to ?? [],
    from: item.from ?? '',
    created_at: item.created_at,
    subject: item.subject ?? '',
    bcc: item.bcc ?? [],
    cc: item.cc ?? [],
    reply_to: item.reply_to ?? [],
    received_for: item.received_for ?? [],
    message_id: item.message_id ?? null,
    attachments: (item.attachments ?? []).map((a: AttachmentMeta) => ({
      id: a.id,
      filename: a.filename ?? null,
      size: a.size,
      content_type: a.content_type,
      content_disposition: a.content_disposition,
      content_id: a.content_id ?? null,
    })),
    spam_verdict: item.spam_verdict ?? null,
    virus_verdict: item.virus_verdict ?? null,
  };
}

const missing = () => notFound('Received email', 'email_id');
const missingAttachment = () => notFound('Attachment', 'attachment_id');

async function readItem(caller: Caller, receivedEmailId: string): Promise<Item> {
  const item = await getItem(keys.receivedEmail(caller.projectId, receivedEmailId));
  if (!item) throw missing();
  return item;
}

export async function listReceivedEmails(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.receivedEmails(caller.projectId), page);
  return { records: items.map(toSummary), hasMore };
}

/** The received email with its bodies (from the bucket when they were too large for the item) and a download URL for the raw message. */
export async function getReceivedEmail(caller: Caller, receivedEmailId: string): Promise<ReceivedEmail> {
  const item = await readItem(caller, receivedEmailId);
  let body: StoredBody = { headers: item.headers ?? {}, text: item.text ?? null, html: item.html ?? null };
  if (item.body_key) {
    const stored = await getObject(item.body_key);
    body = stored ? (JSON.parse(stored.toString('utf8')) as StoredBody) : { headers: {}, text: null, html: null };
  }
  const raw = item.raw_key ? await presignGet(item.raw_key, { contentType: 'message/rfc822', contentDisposition: contentDisposition('attachment', `${item.id}.eml`) }) : null;
  return { ...toSummary(item), html: body.html, text: body.text, headers: body.headers, raw };
}

async function withDownloadUrl(caller: Caller, item: Item, meta: AttachmentMeta): Promise<AttachmentData> {
  const url = await presignGet(attachmentKey(caller.projectId, item.id, meta.id), {
    contentType: meta.content_type,
    contentDisposition: contentDisposition(meta.content_disposition, meta.filename),
  });
  return { object: 'attachment', ...meta, ...url };
}

/** One page of the email's attachments, in message order (`after`/`before`: an attachment id of this email). */
export async function listAttachments(caller: Caller, receivedEmailId: string, page: PageRequest) {
  const item = await readItem(caller, receivedEmailId);
  const { slice, hasMore } = pageInOrder(toSummary(item).attachments, page, 'an attachment of this email');
  return { records: await Promise.all(slice.map((meta) => withDownloadUrl(caller, item, meta))), hasMore };
}

export async function getAttachment(caller: Caller, receivedEmailId: string, attachmentId: string): Promise<AttachmentData> {
  const item = await readItem(caller, receivedEmailId);
  const meta = toSummary(item).attachments.find((a) => a.id === attachmentId);
  if (!meta) throw missingAttachment();
  return withDownloadUrl(caller, item, meta);
}
