import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { MalformedReceipt, receiveInbound } from '#shared/inbound';
import { logger } from '#shared/log';

/**
 * The inbound queue's consumer: SES receipt notifications (SNS envelopes) become received emails
 * with `email.received` and `email.stored` (shared/inbound.ts has the steps). Messages are handled
 * concurrently; one that cannot be read or stored is a batch item failure, retried and then kept
 * in the inbound DLQ, while the rest of its batch goes through.
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const results = await Promise.all(
    event.Records.map(async (record) => {
      try {
        const outcome = await receiveInbound(record.body);
        if (outcome?.stored.length) logger.info('inbound mail received', { message_id: record.messageId, ...outcome });
        return undefined;
      } catch (error) {
        const malformed = error instanceof MalformedReceipt;
        logger[malformed ? 'warn' : 'error'](malformed ? 'SES receipt notification not readable' : 'inbound mail not stored', { message_id: record.messageId, error });
        return record.messageId;
      }
    }),
  );
  return { batchItemFailures: results.filter((id): id is string => id !== undefined).map((itemIdentifier) => ({ itemIdentifier })) };
};
