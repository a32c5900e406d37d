import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/log';
import { removeDeletedSegmentMemberships } from '#shared/segments';

/** Stop starting pages this long before the function's timeout: a page is a few transactions. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * The table's stream, filtered (functions/workers.ts) to removed segment items: removes the
 * memberships DELETE /segments/{id} left behind (shared/segments.ts). A segment not finished in
 * this invocation is reported as the failed record, so Lambda calls again from it; the members
 * removed so far stay removed, so each retry goes on where the last one stopped.
 */
export const handler = async (stream: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> => {
  for (const record of stream.Records) {
    const image = record.dynamodb?.OldImage;
    const projectId = image?.project_id?.S;
    const segmentId = image?.id?.S;
    if (!projectId || !segmentId) {
      // let through by the filter but not a segment item: nothing to clean, and a retry cannot change that
      logger.error('skipping a stream record that is not a segment item', { sequence_number: record.dynamodb?.SequenceNumber });
      continue;
    }
    const deadline = Date.now() + context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS;
    let done = false;
    try {
      done = await removeDeletedSegmentMemberships(projectId, segmentId, deadline);
    } catch (error) {
      logger.warn('segment cleanup failed; retried from this record', { project_id: projectId, segment_id: segmentId, error });
    }
    if (!done) return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
  }
  return { batchItemFailures: [] };
};
