/**
 * The one partial-batch loop of every queue and stream consumer (the idea of Powertools for AWS
 * Lambda's processPartialResponse): the worker gives a handler for one record, the loop answers
 * Lambda's `batchItemFailures`, so a failed record comes back without the rest of its batch.
 *
 * A record fails when its handler throws (the worker's `onError` logs it) or answers RETRY (it
 * is to come back later, nothing went wrong). A record that can never succeed, and that the
 * worker would rather drop than retry, is the handler's call: it logs and returns.
 *
 * - SQS (`processSqsBatch`): each failed message is reported by its id; the others are deleted.
 *   Records are handled all at once, or one after the other with `sequential`.
 * - DynamoDB streams (`processStreamBatch`): order matters, so records are handled one after the
 *   other, and the first failure stops the batch. Only that record is reported: Lambda retries a
 *   stream batch from the lowest sequence number reported, so every later record comes again
 *   with it (`streamFailureAt`).
 */
import type {
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
  SQSRecord,
} from 'aws-lambda';

/** A handler's answer for a record that should come back later: reported as failed, without an error. */
export const RETRY = 'retry';
export type RecordOutcome = void | typeof RETRY;

export interface BatchOptions<R> {
  /** logs a handler's error; the record is reported as failed */
  onError: (error: unknown, record: R) => void;
}

/** Whether the record failed (its handler threw, or answered RETRY). */
async function failed<R>(
  record: R,
  handleRecord: (record: R) => Promise<RecordOutcome>,
  onError: BatchOptions<R>['onError'],
): Promise<boolean> {
  try {
    return (await handleRecord(record)) === RETRY;
  } catch (error) {
    onError(error, record);
    return true;
  }
}

/** An SQS batch: every message whose handler failed is reported by its id. */
export async function processSqsBatch(
  event: SQSEvent,
  handleRecord: (record: SQSRecord) => Promise<RecordOutcome>,
  options: BatchOptions<SQSRecord> & { sequential?: boolean },
): Promise<SQSBatchResponse> {
  let results: boolean[] = [];
  if (options.sequential) {
    for (const record of event.Records) results.push(await failed(record, handleRecord, options.onError));
  } else {
    results = await Promise.all(event.Records.map((record) => failed(record, handleRecord, options.onError)));
  }
  return {
    batchItemFailures: event.Records.filter((_, i) => results[i]).map((record) => ({
      itemIdentifier: record.messageId,
    })),
  };
}

/** A stream batch, in order: stops at the first record whose handler failed and reports it (Lambda retries from there). */
export async function processStreamBatch(
  event: DynamoDBStreamEvent,
  handleRecord: (record: DynamoDBRecord) => Promise<RecordOutcome>,
  options: BatchOptions<DynamoDBRecord>,
): Promise<DynamoDBBatchResponse> {
  for (const [index, record] of event.Records.entries()) {
    if (await failed(record, handleRecord, options.onError)) return streamFailureAt(event.Records, index);
  }
  return { batchItemFailures: [] };
}

/**
 * The answer for a stream batch whose record `index` is the first that failed (none when -1): its
 * sequence number. Lambda checkpoints before it and calls again from it, later records included.
 */
export function streamFailureAt(records: readonly DynamoDBRecord[], index: number): DynamoDBBatchResponse {
  return { batchItemFailures: index < 0 ? [] : [{ itemIdentifier: records[index].dynamodb?.SequenceNumber ?? '' }] };
}
