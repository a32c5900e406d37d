import type { SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';
import { applySuppressionFeedback, NoEmailForNotification } from '#shared/suppressions/feedback';
import { MalformedSesNotification } from '#shared/platform/aws/ses-notification';

/**
 * The suppression queue's consumer: SES Bounce and Complaint events (SNS envelopes) become
 * suppression entries (shared/suppressions/feedback.ts has the rules). Messages are handled
 * concurrently; one that cannot be read or applied is a batch item failure, retried and then
 * kept in the DLQ, while the rest of its batch goes through.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const outcome = await applySuppressionFeedback(record.body);
      if (outcome.suppressed || outcome.withdrawn)
        logger.info('suppression list updated', { message_id: record.messageId, ...outcome });
    },
    {
      onError: (error, record) => {
        const malformed = error instanceof MalformedSesNotification || error instanceof NoEmailForNotification;
        logger[malformed ? 'warn' : 'error'](
          malformed ? 'SES notification not readable' : 'SES notification not applied',
          { message_id: record.messageId, error },
        );
      },
    },
  );
