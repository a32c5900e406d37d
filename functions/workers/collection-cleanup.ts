import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processStreamBatch, RETRY } from '#shared/platform/aws/batch';
import { removeDeletedSegmentMemberships } from '#shared/audience/segments';
import { removeDeletedInboxItems } from '#shared/inboxes/cleanup';

/** Stop starting pages this long before the function's timeout: a page is a few transactions. */
const SAFETY_MARGIN_MS = 10_000;

/**
 * The table's stream, filtered (functions/workers.ts) to removed segment and inbox items: removes
 * what DELETE /segments/{id} (the memberships: shared/audience/segments.ts) and DELETE /inboxes/{id}
 * (the inbox's partition: shared/inboxes/cleanup.ts) left behind. One not finished in this
 * invocation is reported as the failed record, so Lambda calls again from it; what was removed
 * stays removed, so each retry goes on where the last one stopped.
 */
export const handler = (stream: DynamoDBStreamEvent, context: Context) =>
  processStreamBatch(
    stream,
    async (record) => {
      const image = record.dynamodb?.OldImage;
      const projectId = image?.project_id?.S;
      const id = image?.id?.S;
      const type = image?.type?.S;
      if (!projectId || !id || (type !== 'segment' && type !== 'inbox')) {
        // let through by the filter but not a segment or inbox item: nothing to clean, and a retry cannot change that
        logger.error('skipping a stream record that is not a segment or inbox item', {
          sequence_number: record.dynamodb?.SequenceNumber,
        });
        return;
      }
      const deadline = Date.now() + context.getRemainingTimeInMillis() - SAFETY_MARGIN_MS;
      const done =
        type === 'segment'
          ? await removeDeletedSegmentMemberships(projectId, id, deadline)
          : await removeDeletedInboxItems(projectId, id, deadline);
      if (!done) return RETRY;
    },
    {
      onError: (error, record) =>
        logger.warn('collection cleanup failed; retried from this record', {
          project_id: record.dynamodb?.OldImage?.project_id?.S,
          type: record.dynamodb?.OldImage?.type?.S,
          id: record.dynamodb?.OldImage?.id?.S,
          error,
        }),
    },
  );
