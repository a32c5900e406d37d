/**
 * The local stand-in for Lambda's DynamoDB stream trigger, against the test runtime's DynamoDB
 * Local: a transactional write shows up, the filter drops other records, and a reported failure
 * retries from the failed record without re-delivering the ones before it.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { StreamPoller } from '../../lib/local/lambda/stream-poller';
import { put, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();
const config = { endpoint: runtime.dynamoDbEndpoint, region: 'ap-southeast-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

it('feeds filtered INSERTs in order and retries from the first reported failure', async () => {
  const dynamo = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  const streamArn = (await dynamo.send(new DescribeTableCommand({ TableName: runtime.tableName }))).Table!.LatestStreamArn!;
  const marker = newId();
  const received: string[] = [];
  let failNext = true;
  const poller = new StreamPoller({
    fn: { name: 'TestConsumer', needs: {}, timeoutMs: 30_000 },
    streams,
    streamArn,
    batchSize: 10,
    maxRetryAttempts: 3,
    filter: { eventName: ['INSERT'], dynamodb: { NewImage: { marker: { S: [marker] } } } },
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
