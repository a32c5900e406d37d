/**
 * The local stand-in for Lambda's DynamoDB stream trigger, against the test runtime's DynamoDB
 * Local: a transactional write shows up, the filter drops other records, and a reported failure
 * retries from the failed record without re-delivering the ones before it; with a checkpoint
 * file, a poller made again (the runtime restarted) resumes after the last record handled.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { createTableInput } from '../../lib/table-definition';
import { StreamPoller } from '../../local/lambda/stream-poller';
import { put, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();
const config = {
  endpoint: runtime.dynamoDbEndpoint,
  region: 'ap-southeast-2',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
};

/** A test consumer of the table's stream that takes only the INSERTs of items with this `marker`. */
const markedConsumer = (streams: DynamoDBStreamsClient, streamArn: string, marker: string) => ({
  fn: { name: 'TestConsumer', needs: {}, timeoutMs: 30_000 },
  streams,
  streamArn,
  batchSize: 10,
  maxRetryAttempts: 3,
  filter: { eventName: ['INSERT'], dynamodb: { NewImage: { marker: { S: [marker] } } } },
});

it('feeds filtered INSERTs in order and retries from the first reported failure', async () => {
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: runtime.tableName }))).Table!
    .LatestStreamArn!;
  const marker = newId();
  const received: string[] = [];
  let failNext = true;
  const poller = new StreamPoller({
    ...markedConsumer(streams, streamArn, marker),
    handler: async (event: DynamoDBStreamEvent) => {
      const failures = [];
      for (const record of event.Records) {
        const n = record.dynamodb!.NewImage!.n.N!;
        if (n === '2' && failNext) {
          failNext = false;
          failures.push({ itemIdentifier: record.dynamodb!.SequenceNumber! });
          break; // Lambda semantics: everything from the failure on is retried
        }
        received.push(n);
      }
      return { batchItemFailures: failures };
    },
  });
  await poller.pollOnce(); // positions at LATEST before the writes

  await transact([1, 2, 3].map((n) => put({ PK: `TEST#${marker}`, SK: `N#${n}`, type: 'test', marker, n })));
  await transact([put({ PK: `TEST#${marker}`, SK: 'OTHER', type: 'test', marker: 'someone-else', n: 99 })]);

  const deadline = Date.now() + 10_000;
  while (received.length < 3 && Date.now() < deadline) {
    await poller.pollOnce();
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(received).toEqual(['1', '2', '3']);
  dynamo.destroy();
  streams.destroy();
});

it('polls at once when woken, instead of at the end of its pause (the control API drain wakes it)', async () => {
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: runtime.tableName }))).Table!
    .LatestStreamArn!;
  const marker = newId();
  const received: string[] = [];
  const poller = new StreamPoller({
    ...markedConsumer(streams, streamArn, marker),
    handler: async (event: DynamoDBStreamEvent) => {
      for (const record of event.Records) received.push(record.dynamodb!.NewImage!.n.N!);
      return { batchItemFailures: [] };
    },
    idleMs: 600_000, // a pause longer than the test may take: only wake() can end it
  });
  poller.start();
  const quiet = (since: number) =>
    new Promise<void>((resolve) => {
      const check = () => (poller.quietSince >= since ? resolve() : setTimeout(check, 10));
      check();
    });
  await quiet(1); // the first poll (positions at LATEST) found nothing: pausing now
  await transact([put({ PK: `TEST#${marker}`, SK: 'N#1', type: 'test', marker, n: 1 })]);
  const woken = Date.now();
  poller.wake();
  // a poll begun after the wake found the record, then the next (woken again) found nothing
  while (received.length === 0) await new Promise((r) => setTimeout(r, 10));
  poller.wake();
  await quiet(woken);
  expect(received).toEqual(['1']);
  await poller.stop();
  dynamo.destroy();
  streams.destroy();
});

describe('with a checkpoint file (the runtime keeps one per function under DATA_DIR/streams)', () => {
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const tableName = `stream-checkpoints-${newId().slice(-12)}`;
  const dir = mkdtempSync(join(tmpdir(), 'stream-checkpoints-'));
  const checkpointFile = join(dir, 'streams', 'TestConsumer.json');
  let streamArn: string;

  beforeAll(async () => {
    await dynamo.send(new CreateTableCommand(createTableInput(tableName)));
    streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: tableName }))).Table!.LatestStreamArn!;
  });
  afterAll(async () => {
    await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    dynamo.destroy();
    streams.destroy();
  });

  const write = (n: number) =>
    dynamo.send(
      new PutItemCommand({
        TableName: tableName,
        Item: { PK: { S: 'TEST' }, SK: { S: `N#${n}` }, n: { N: String(n) } },
      }),
    );
  /** A poller as the runtime makes one, feeding `received`; `failOn` reports that record failed (once). */
  const poller = (received: string[], failOn?: string) =>
    new StreamPoller({
      fn: { name: 'TestConsumer', needs: {}, timeoutMs: 30_000 },
      streams,
      streamArn,
      batchSize: 2,
      maxRetryAttempts: 3,
      filter: { eventName: ['INSERT'] },
      checkpointFile,
      handler: async (event: DynamoDBStreamEvent) => {
        for (const record of event.Records) {
          const n = record.dynamodb!.NewImage!.n.N!;
          if (n === failOn) {
            failOn = undefined;
            return { batchItemFailures: [{ itemIdentifier: record.dynamodb!.SequenceNumber! }] };
          }
          received.push(n);
        }
        return { batchItemFailures: [] };
      },
    });
  async function pollUntil(p: StreamPoller, received: string[], count: number, thenOnce = true): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (received.length < count && Date.now() < deadline) {
      await p.pollOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
    if (thenOnce) await p.pollOnce(); // and nothing more comes
  }

  it('starts a new stream at its beginning, then resumes after the last record handled: what was written while it was down comes, nothing twice', async () => {
    await write(1); // before the first poll: TRIM_HORIZON, as the stack's mappings start
    const first: string[] = [];
    const before = poller(first);
    await write(2);
    await write(3);
    await pollUntil(before, first, 3);
    expect(first).toEqual(['1', '2', '3']);
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8'))).toMatchObject({ streamArn });

    // the runtime is down: these are committed meanwhile
    await write(4);
    await write(5);
    const second: string[] = [];
    await pollUntil(poller(second), second, 2);
    expect(second).toEqual(['4', '5']);
  });

  it('keeps a failed record for after a restart: the checkpoint stops before it', async () => {
    await write(6);
    await write(7);
    const failing: string[] = [];
    const p = poller(failing, '7');
    await pollUntil(p, failing, 1, false);
    expect(failing).toEqual(['6']); // 7 failed and is pending here; the runtime stops before its retry

    const after: string[] = [];
    await pollUntil(poller(after), after, 1);
    expect(after).toEqual(['7']);
  });

  it('drops a checkpoint of another stream (the table was made again) and starts at the beginning', async () => {
    writeFileSync(
      checkpointFile,
      JSON.stringify({ streamArn: `${streamArn}-gone`, shards: { 'shardId-gone': '000000000000000000999' } }),
    );
    const all: string[] = [];
    await pollUntil(poller(all), all, 7);
    expect(all).toEqual(['1', '2', '3', '4', '5', '6', '7']);
  });
});
