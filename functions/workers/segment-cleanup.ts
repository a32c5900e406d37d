import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processStreamBatch, RETRY } from '#shared/platform/aws/batch';
import { removeDeletedSegmentMemberships } from '#shared/audience/segments';

/** Stop starting pages this long before the function's timeout: a page is a few transactions. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * The table's stream, filtered (functions/workers.ts) to removed segment items: removes the
 * memberships DELETE /segments/{id} left behind (shared/audience/segments.ts). A segment not finished in
 * this invocation is reported as the failed record, so Lambda calls again from it; the members
 * removed so far stay removed, so each retry goes on where the last one stopped.
 */
export const handler = (stream: DynamoDBStreamEvent, context: Context) =>
  processStreamBatch(
    stream,
    async (record) => {
      const image = record.dynamodb?.OldImage;
      const projectId = image?.project_id?.S;
      const segmentId = image?.id?.S;
      if (!projectId || !segmentId) {
        // let through by the filter but not a segment item: nothing to clean, and a retry cannot change that
        logger.error('skipping a stream record that is not a segment item', {
          sequence_number: record.dynamodb?.SequenceNumber,
        });
        return;
      }
      const deadline = Date.now() + context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS;
      if (!(await removeDeletedSegmentMemberships(projectId, segmentId, deadline))) return RETRY;
    },
    {
      onError: (error, record) =>
        logger.warn('segment cleanup failed; retried from this record', {
          project_id: record.dynamodb?.OldImage?.project_id?.S,
          segment_id: record.dynamodb?.OldImage?.id?.S,
          error,
        }),
    },
  );
