import type { SQSEvent } from 'aws-lambda';
import { fanOutPage } from '#shared/broadcasts/fanout';
import type { FanOutMessage } from '#shared/broadcasts/queue';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';

function parse(body: string): FanOutMessage {
  const message = JSON.parse(body) as Partial<FanOutMessage>;
  if (
    typeof message.project_id !== 'string' ||
    typeof message.broadcast_id !== 'string' ||
    typeof message.after !== 'string'
  ) {
    throw new Error('not a broadcast fan-out message');
  }
  return message as FanOutMessage;
}

/**
 * The broadcast-fanout queue's consumer: one page of a broadcast per message (shared/broadcasts/fanout.ts).
 * A page that fails is reported as a batch item failure and done again on redelivery, which
 * sends nobody twice; an unreadable message ends in the DLQ after the queue's maxReceiveCount.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      await fanOutPage(parse(record.body), record.messageId);
    },
    {
      sequential: true,
      onError: (error, record) =>
        logger.error('broadcast fan-out page failed', { message_id: record.messageId, error }),
    },
  );
