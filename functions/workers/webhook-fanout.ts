import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { streamFailureAt } from '#shared/platform/aws/batch';
import { EVENT_SK_PREFIX } from '#shared/platform/db/keys';
import type { OutboxEvent } from '#shared/webhooks/deliveries';
import { fanOut } from '#shared/webhooks/fanout';

/**
 * The table's stream, filtered (functions/workers.ts) to inserted event items: each becomes a
 * delivery per subscribed webhook and a message on the delivery queue (shared/webhooks/fanout.ts).
 * A failure reports the first record that did not go out; Lambda retries from there.
 */
function outboxEvent(record: DynamoDBRecord): OutboxEvent {
  const image = record.dynamodb?.NewImage;
  const sk = image?.SK?.S ?? '';
  const event = {
    projectId: image?.project_id?.S ?? '',
    id: sk.slice(EVENT_SK_PREFIX.length),
    type: image?.event_type?.S ?? '',
    createdAt: image?.event?.M?.created_at?.S ?? '',
    expiresAt: Number(image?.expires_at?.N),
  };
  if (
    !event.projectId ||
    !sk.startsWith(EVENT_SK_PREFIX) ||
    !event.type ||
    !event.createdAt ||
    !Number.isFinite(event.expiresAt)
  )
    throw new Error('not an event item');
  return event;
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const events = stream.Records.flatMap((record) => {
    try {
      return [{ record, event: outboxEvent(record) }];
    } catch (error) {
      // let through by the filter but not an event item: nothing to deliver, and a retry cannot change that
      logger.error('skipping a stream record that is not an event item', {
        sequence_number: record.dynamodb?.SequenceNumber,
        error,
      });
      return [];
    }
  });
  // One fan-out for the whole batch (one Query per project, enqueues of 10), so not processStreamBatch's record at a time.
  const failedAt = await fanOut(events.map((e) => e.event));
  return streamFailureAt(stream.Records, failedAt === -1 ? -1 : stream.Records.indexOf(events[failedAt].record));
};
