import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { applySesEvent, sesEventFromSqsBody } from '#shared/email-status';
import { logger } from '#shared/log';

/**
 * The email-events queue's consumer: every SES event (SNS envelope) moves its email's status
 * forward and becomes an `email.*` platform event. A message that cannot be read, or whose
 * email is unknown (yet), is a batch item failure: retried, then kept in the DLQ.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const failures: string[] = [];
  for (const record of event.Records) {
    try {
      const outcome = await applySesEvent(sesEventFromSqsBody(record.body));
      if (outcome === 'unknown_email') throw new Error('no email for this SES event');
    } catch (error) {
      logger.warn('SES event not applied', { message_id: record.messageId, error });
      failures.push(record.messageId);
    }
  }
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
};
