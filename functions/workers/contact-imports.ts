import type { Context, SQSEvent } from 'aws-lambda';
import { importQueue, runImport, type ImportMessage } from '#shared/audience/imports';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';

function parse(body: string): ImportMessage {
  const message = JSON.parse(body) as Partial<ImportMessage>;
  if (typeof message.project_id !== 'string' || typeof message.import_id !== 'string')
    throw new Error('not a contact import message');
  return message as ImportMessage;
}

/**
 * The contact-imports queue's consumer: one import per message, page by page from its record's
 * cursor (shared/audience/imports.ts). Near the timeout it sends the message again and ends this
 * one (a continuation); a run that fails is reported as a batch item failure and goes on from the
 * cursor on redelivery, with no row written twice; an unreadable message ends in the DLQ.
 */
export const handler = (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const deadline = Date.now() + (context?.getRemainingTimeInMillis?.() ?? 60_000);
  return processSqsBatch(
    event,
    async (record) => {
      const message = parse(record.body);
      if ((await runImport(message, deadline)) === 'continue') await importQueue.enqueue([message]);
    },
    {
      sequential: true,
      onError: (error, record) => logger.error('contact import failed', { message_id: record.messageId, error }),
    },
  );
};
