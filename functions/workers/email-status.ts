import type { SQSEvent } from 'aws-lambda';
import { applySesEvent } from '#shared/emails/status';
import { readSesNotification } from '#shared/platform/aws/ses-notification';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';

/**
 * The email-events queue's consumer: every SES event (SNS envelope) moves its email's status
 * forward and becomes an `email.*` platform event. A message that cannot be read, or whose
 * email is unknown (yet), is a batch item failure: retried, then kept in the DLQ.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const outcome = await applySesEvent(readSesNotification(record.body));
      if (outcome === 'unknown_email') throw new Error('no email for this SES event');
    },
    {
      sequential: true,
      onError: (error, record) => logger.warn('SES event not applied', { message_id: record.messageId, error }),
    },
  );
