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

/** Raw messages, attachments and records are kept this long (the bucket's lifecycle rule says the same, lib/inbound.ts). */
export const retentionDays = (): number => {
  const days = Number(process.env.INBOUND_RETENTION_DAYS ?? 30);
  return Number.isInteger(days) && days > 0 ? days : 30;
};

export interface StoredBody {
  headers: Record<string, string>;
  text: string | null;
  html: string | null;
}

export const attachmentKey = (projectId: string, receivedEmailId: string, attachmentId: string) =>
  `attachments/${projectId}/${receivedEmailId}/${attachmentId}`;
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

/**
 * What of a body one answer carries, in bytes of JSON: Lambda answers at most 6 MB (a larger one is
 * a 500 on AWS), and the rest of the answer (addresses, attachments' metadata, the raw URL) stays
 * well under the 1.5 MB left. Past these, `text` and `html` are cut and `truncated` says so; the
 * whole message stays in `raw` (Resend's own answer to a large message: a download URL).
 */
export const BODY_RESPONSE_BYTES = 4 * 1024 * 1024;
export const HEADERS_RESPONSE_BYTES = 512 * 1024;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** `text` cut (at a character, never inside a surrogate pair) so its JSON takes at most `bytes`. */
export function cutToJsonBytes(text: string, bytes: number): string {
  let length = Math.min(text.length, bytes);
  while (length > 0 && jsonBytes(text.slice(0, length)) > bytes) length = Math.floor(length * 0.9);
  if (length > 0 && /[\uD800-\uDBFF]/.test(text[length - 1])) length -= 1;
  return text.slice(0, length);
}

/** The body as one answer can carry it: under BODY_RESPONSE_BYTES and HEADERS_RESPONSE_BYTES, cut (in proportion to each part's size) and flagged when over. */
function answerable(body: StoredBody): StoredBody & { truncated: boolean } {
  const text = body.text ?? '';
  const html = body.html ?? '';
  const headersFit = jsonBytes(body.headers) <= HEADERS_RESPONSE_BYTES;
  const bodiesFit = jsonBytes(text) + jsonBytes(html) <= BODY_RESPONSE_BYTES;
  if (headersFit && bodiesFit) return { ...body, truncated: false };
  const headers = headersFit ? body.headers : {};
  if (bodiesFit) return { ...body, headers, truncated: true };
  const share = (part: string) => Math.floor((BODY_RESPONSE_BYTES * part.length) / (text.length + html.length));
  return {
    headers,
    text: body.text === null ? null : cutToJsonBytes(text, share(text)),
    html: body.html === null ? null : cutToJsonBytes(html, share(html)),
    truncated: true,
  };
}

/**
 * The received email with its bodies (from the bucket when they were too large for the item, cut to
 * fit an answer: `answerable`) and a download URL for the raw message. A body object the bucket's
 * lifecycle already removed reads as no body.
 */
export async function getReceivedEmail(caller: Caller, receivedEmailId: string): Promise<ReceivedEmail> {
  const item = await readItem(caller, receivedEmailId);
  let body: StoredBody = { headers: item.headers ?? {}, text: item.text ?? null, html: item.html ?? null };
  if (item.body_key) {
    const stored = await getObject(item.body_key);
    body = stored ? (JSON.parse(stored.toString('utf8')) as StoredBody) : { headers: {}, text: null, html: null };
  }
  const raw = item.raw_key
    ? await presignGet(item.raw_key, {
        contentType: 'message/rfc822',
        contentDisposition: contentDisposition('attachment', `${item.id}.eml`),
      })
    : null;
  const { headers, text, html, truncated } = answerable(body);
  return { ...toSummary(item), html, text, headers, raw, truncated };
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

export async function getAttachment(
  caller: Caller,
  receivedEmailId: string,
  attachmentId: string,
): Promise<AttachmentData> {
  const item = await readItem(caller, receivedEmailId);
  const meta = toSummary(item).attachments.find((a) => a.id === attachmentId);
  if (!meta) throw missingAttachment();
  return withDownloadUrl(caller, item, meta);
}
