/**
 * The attachment-fetch queue's consumer: one email per message, its `path` attachments fetched and
 * stored before it goes on to its send lane (shared/emails/attachment-fetch.ts). Idempotent (the
 * email is claimed with a condition; a duplicate finds it taken or done); a message that cannot be
 * read, or whose email could not be written, is a batch item failure and comes back (then the DLQ,
 * while the email's lease brings it back through the due-email dispatcher).
 */
import type { SQSEvent } from 'aws-lambda';
import { fetchEmailAttachments } from '#shared/emails/attachment-fetch';
import { processSqsBatch } from '#shared/platform/aws/batch';
import { logger } from '#shared/platform/log';

export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const message = JSON.parse(record.body) as { project_id?: unknown; email_id?: unknown };
      if (typeof message.project_id !== 'string' || typeof message.email_id !== 'string')
        throw new Error('not an attachment-fetch message');
      await fetchEmailAttachments(message.project_id, message.email_id);
    },
    { onError: (error, record) => logger.error('attachment fetch failed', { message_id: record.messageId, error }) },
  );
