/** The partial-batch loop every queue and stream consumer uses: which records it reports, in which order it runs them. */
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent, SQSRecord } from 'aws-lambda';
import { processSqsBatch, processStreamBatch, RETRY, streamFailureAt } from '../../shared/platform/aws/batch';

const sqsEvent = (...bodies: string[]): SQSEvent => ({
  Records: bodies.map((body, i) => ({ messageId: `m${i}`, body }) as SQSRecord),
});
const streamEvent = (...names: string[]): DynamoDBStreamEvent => ({
  Records: names.map(
    (name, i) =>
      ({
        eventName: 'INSERT',
        dynamodb: { SequenceNumber: String(100 + i), NewImage: { name: { S: name } } },
      }) as DynamoDBRecord,
  ),
});
const nameOf = (record: DynamoDBRecord) => record.dynamodb?.NewImage?.name?.S;
const ids = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((f) => f.itemIdentifier);
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('processSqsBatch', () => {
  it('reports each message whose handler threw or answered RETRY, by id, and logs only the errors', async () => {
    const logged: string[] = [];
    const response = await processSqsBatch(
      sqsEvent('ok', 'throw', 'retry', 'ok', 'throw'),
      async (record) => {
        if (record.body === 'throw') throw new Error(`bad ${record.messageId}`);
        if (record.body === 'retry') return RETRY;
      },
      { onError: (error, record) => logged.push(`${record.messageId}: ${(error as Error).message}`) },
    );
    expect(ids(response)).toEqual(['m1', 'm2', 'm4']);
    expect(logged).toEqual(['m1: bad m1', 'm4: bad m4']);
  });

  it('answers no failures for an empty batch or one that went through', async () => {
    expect(await processSqsBatch(sqsEvent(), async () => {}, { onError: () => {} })).toEqual({ batchItemFailures: [] });
    expect(await processSqsBatch(sqsEvent('a', 'b'), async () => {}, { onError: () => {} })).toEqual({
      batchItemFailures: [],
    });
  });

  it('runs the handlers at once by default, one after the other with sequential', async () => {
    const run = async (sequential: boolean) => {
      const trace: string[] = [];
      await processSqsBatch(
        sqsEvent('a', 'b', 'c'),
        async (record) => {
          trace.push(`start ${record.body}`);
          await tick();
          trace.push(`end ${record.body}`);
        },
        { sequential, onError: () => {} },
      );
      return trace;
    };
    expect(await run(false)).toEqual(['start a', 'start b', 'start c', 'end a', 'end b', 'end c']);
    expect(await run(true)).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

describe('processStreamBatch', () => {
  it('stops at the first failure and reports that record by its sequence number (Lambda retries from there)', async () => {
    const seen: string[] = [];
    const logged: string[] = [];
    const response = await processStreamBatch(
      streamEvent('a', 'b', 'throw', 'd', 'e'),
      async (record) => {
        seen.push(nameOf(record)!);
        if (nameOf(record) === 'throw') throw new Error('boom');
      },
      { onError: (error, record) => logged.push(`${record.dynamodb?.SequenceNumber}: ${(error as Error).message}`) },
    );
    expect(seen).toEqual(['a', 'b', 'throw']);
    expect(ids(response)).toEqual(['102']);
    expect(logged).toEqual(['102: boom']);
  });

  it('treats RETRY as a failure without an error, and a record the handler drops as done', async () => {
    const logged: unknown[] = [];
    const response = await processStreamBatch(
      streamEvent('drop', 'retry', 'c'),
      async (record) => (nameOf(record) === 'retry' ? RETRY : undefined),
      { onError: (error) => logged.push(error) },
    );
    expect(ids(response)).toEqual(['101']);
    expect(logged).toEqual([]);
  });

  it('answers no failures when every record went through, one record at a time, in order', async () => {
    const trace: string[] = [];
    const response = await processStreamBatch(
      streamEvent('a', 'b'),
      async (record) => {
        trace.push(`start ${nameOf(record)}`);
        await tick();
        trace.push(`end ${nameOf(record)}`);
      },
      { onError: () => {} },
    );
    expect(response).toEqual({ batchItemFailures: [] });
    expect(trace).toEqual(['start a', 'end a', 'start b', 'end b']);
  });
});

describe('streamFailureAt', () => {
  it('names the record at the index; none for -1', () => {
    const { Records } = streamEvent('a', 'b', 'c');
    expect(ids(streamFailureAt(Records, 1))).toEqual(['101']);
    expect(ids(streamFailureAt(Records, 0))).toEqual(['100']);
    expect(streamFailureAt(Records, -1)).toEqual({ batchItemFailures: [] });
  });
});
