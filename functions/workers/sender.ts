import type { SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processSqsBatch, RETRY } from '#shared/platform/aws/batch';
import { sendQueuedEmail } from '#shared/emails/sender';

/**
 * The send queue's consumer: each message names one email. Messages are handled concurrently;
 * an email that must be tried again later, and a message that cannot be read, are reported as
 * batch item failures (the latter ends in the DLQ after the queue's maxReceiveCount).
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const message = JSON.parse(record.body) as { project_id?: unknown; email_id?: unknown };
      if (typeof message.project_id !== 'string' || typeof message.email_id !== 'string') throw new Error('not a send message');
      if ((await sendQueuedEmail(message.project_id, message.email_id)) === 'retry') return RETRY;
    },
    { onError: (error, record) => logger.error('send failed', { message_id: record.messageId, error }) },
  );
