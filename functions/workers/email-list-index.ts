import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { streamFailureAt } from '#shared/platform/aws/batch';
import { itemOfImage } from '#shared/platform/aws/stream-image';
import { indexEmailChanges } from '#shared/emails/list-index';

/**
 * The table's stream, filtered (functions/workers.ts) to inserted and changed email items: the
 * entries GET /emails' filters read (shared/emails/list-index.ts), the whole batch folded into one
 * set of writes. A failure reports the batch's first record: Lambda calls again with all of it,
 * and writing the same entries again changes nothing.
 */
export async function handler(stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const changes = stream.Records.map((record) => ({
    ...(record.eventName === 'MODIFY' ? { before: itemOfImage(record.dynamodb?.OldImage) } : {}),
    after: itemOfImage(record.dynamodb?.NewImage),
  }));
  try {
    await indexEmailChanges(changes);
    return streamFailureAt(stream.Records, -1);
  } catch (error) {
    logger.warn('indexing emails for GET /emails failed; the batch is retried', {
      records: stream.Records.length,
      error,
    });
    return streamFailureAt(stream.Records, 0);
  }
}
