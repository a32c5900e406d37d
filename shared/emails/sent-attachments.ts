/**
 * GET /emails/{id}/attachments and /{attachment_id}: a sent email's attachments as Resend lists
 * them, each with a presigned download URL (DOWNLOAD_URL_TTL_SECONDS) served under its own name and
 * type. The list is the email's content object's; a `path` attachment has no bytes (size, URL:
 * null) until the sender fetched it. Emails accepted before attachments were stored apart list
 * theirs with no download URL.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { contentDisposition, presignGet } from '../platform/aws/s3';
import { pageInOrder } from '../platform/list-page';
import { attachmentKey, storedAttachmentSize, type StoredAttachment } from './attachments';
import { getEmailContent } from './content';

export interface SentAttachment {
  object: 'attachment';
  id: string;
  filename: string | null;
  size: number | null;
  content_type: string;
  content_disposition: 'attachment' | 'inline';
  content_id: string | null;
  download_url: string | null;
  expires_at: string | null;
}

const missingEmail = () => notFound('Email', 'email_id');

/** The email's attachments as its content lists them (404 for an email that is not the caller's). */
async function attachmentsOf(caller: Caller, emailId: string): Promise<StoredAttachment[]> {
  const [item, content] = await Promise.all([
    getItem(keys.email(caller.projectId, emailId)),
    getEmailContent(caller.projectId, emailId),
  ]);
  if (!item) throw missingEmail();
  // content from before attachments were stored apart carries them inline, without ids
  return (content?.attachments ?? []).filter((a): a is StoredAttachment => 'id' in a && typeof a.id === 'string');
}

async function withDownloadUrl(caller: Caller, emailId: string, a: StoredAttachment): Promise<SentAttachment> {
  const disposition = a.content_id ? 'inline' : 'attachment';
  const size = a.size ?? (await storedAttachmentSize(caller.projectId, emailId, a.id)) ?? null; // a path one: once the sender stored it
  const url =
    size === null
      ? { download_url: null, expires_at: null }
      : await presignGet(attachmentKey(caller.projectId, emailId, a.id), {
          bucket: 'content',
          contentType: a.content_type,
          contentDisposition: contentDisposition(disposition, a.filename),
        });
  return {
    object: 'attachment',
    id: a.id,
    filename: a.filename,
    size,
    content_type: a.content_type,
    content_disposition: disposition,
    content_id: a.content_id,
    ...url,
  };
}

export async function listSentAttachments(
  caller: Caller,
  emailId: string,
  page: PageRequest,
): Promise<{ records: SentAttachment[]; hasMore: boolean }> {
  const { slice, hasMore } = pageInOrder(await attachmentsOf(caller, emailId), page, 'an attachment of this email');
  return { records: await Promise.all(slice.map((a) => withDownloadUrl(caller, emailId, a))), hasMore };
}

export async function getSentAttachment(
  caller: Caller,
  emailId: string,
  attachmentId: string,
): Promise<SentAttachment> {
  const found = (await attachmentsOf(caller, emailId)).find((a) => a.id === attachmentId);
  if (!found) throw notFound('Attachment', 'attachment_id');
  return withDownloadUrl(caller, emailId, found);
}
