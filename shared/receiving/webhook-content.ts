/**
 * The message that an `email.received` delivery carries to a webhook with `include_content`
 * (shared/webhooks/dispatch.ts adds these fields to the event's `data` at each attempt):
 *
 * - `text` and `html` when the body is in the received email's item, i.e. its headers, text and
 *   html take at most INLINE_BODY_BYTES (256 KB) of JSON (shared/receiving/inbound.ts): a
 *   delivery stays under about 300 KB with the rest of the event.
 * - past that, `text` and `html` are null and `content_url` is a presigned GET of the body object
 *   (`{headers, text, html}` as JSON, the one GET /emails/receiving/{id} reads), valid
 *   DOWNLOAD_URL_TTL_SECONDS (1 hour) from the attempt, `content_url_expires_at` says until when;
 *   each attempt presigns anew. Both null while the body is inline.
 * - `attachments`: Resend's flat list with `size` added (the metadata the event's object holds);
 *   their content stays behind GET /emails/receiving/{id}/attachments.
 *
 * A received email already gone (past INBOUND_RETENTION_DAYS) reads as no body: all null.
 */
import * as keys from '../platform/db/keys';
import { getItem } from '../platform/db/table';
import { presignGet } from '../platform/aws/s3';
import type { PlatformEvent } from '../events/model';
import type { AttachmentMeta } from './model';

export async function receivedContent(projectId: string, event: PlatformEvent): Promise<Record<string, unknown>> {
  const object = event.data.object as { id?: unknown; attachments?: AttachmentMeta[] };
  const attachments = (object.attachments ?? []).map((a) => ({
    id: a.id,
    filename: a.filename ?? null,
    content_type: a.content_type,
    content_disposition: a.content_disposition,
    content_id: a.content_id ?? null,
    size: a.size,
  }));
  const none = { text: null, html: null, attachments, content_url: null, content_url_expires_at: null };
  const item = typeof object.id === 'string' ? await getItem(keys.receivedEmail(projectId, object.id)) : undefined;
  if (!item) return none;
  if (!item.body_key) return { ...none, text: item.text ?? null, html: item.html ?? null };
  const url = await presignGet(item.body_key as string, { contentType: 'application/json' });
  return { ...none, content_url: url.download_url, content_url_expires_at: url.expires_at };
}
