import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#shared/log';
import { sendQueuedEmail } from '#shared/sender';

/**
 * The send queue's consumer: each message names one email. Messages are handled concurrently;
 * an email that must be tried again later, and a message that cannot be read, are reported as
 * batch item failures (the latter ends in the DLQ after the queue's maxReceiveCount).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const message = JSON.parse(record.body) as { project_id?: unknown; email_id?: unknown };
        if (typeof message.project_id !== 'string' || typeof message.email_id !== 'string') throw new Error('not a send message');
        const outcome = await sendQueuedEmail(message.project_id, message.email_id);
        return outcome === 'retry' ? record.messageId : undefined;
      } catch (error) {
        logger.error('send failed', { message_id: record.messageId, error });
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: results.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
};
