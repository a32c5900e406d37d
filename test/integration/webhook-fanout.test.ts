/**
 * The fan-out killed between the commit and the enqueue still delivers every event exactly
 * once to each subscribed webhook.
 *
 * The real fan-out and dispatcher handlers run here, fed by pollers of our own (Lambda's batch
 * semantics, local/*-poller.ts) from a table and a queue of this test's own in the
 * runtime's DynamoDB Local and SQS, so the runtime's own fan-out never sees these events. The
 * stream handler is wrapped:
 *   1st batch: the deliveries are written but no message can be sent (the queue URL points at
 *              a queue that does not exist): the batch fails, as if the Lambda died there;
 *   2nd batch: everything goes out, then the invocation throws (it died before Lambda could
 *              checkpoint), so the same records come a third time and the messages go again;
 *   3rd batch: as it should.
 * Receipts are counted per endpoint by `webhook-id` (the event id).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { WEBHOOK_FANOUT_FILTER } from '../../functions/workers';
import { handler as dispatcherHandler } from '../../functions/workers/webhook-dispatcher';
import { handler as fanOut } from '../../functions/workers/webhook-fanout';
import type { FilterPattern } from '../../local/lambda/event-filter';
import { QueuePoller } from '../../local/lambda/queue-poller';
import { StreamPoller } from '../../local/lambda/stream-poller';
import { createTableInput } from '../../lib/table-definition';
import type { Caller } from '../../shared/platform/caller';
import * as keys from '../../shared/platform/db/keys';
import { queryPage, transact } from '../../shared/platform/db/table';
import { eventWrite } from '../../shared/events/events';
import { newId } from '../../shared/platform/ids';
import { createWebhook, updateWebhook } from '../../shared/webhooks/webhooks';
import { projectEvents, useRuntimeTable } from '../support/table';
import { sqsRecord } from '../support/sqs';
import { waitFor } from '../support/wait';
import { workerFunction } from '../../local/lambda/invocation';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: runtimeCredentials() };
const suffix = newId().slice(-12);
const tableName = `webhook-fanout-${suffix}`;
const saved = { ...process.env };

let dynamo: DynamoDBClient;
let streams: DynamoDBStreamsClient;
let sqs: SQSClient;
let server: Server;
let queueUrl: string;
let streamArn: string;
const receipts: { path: string; id: string }[] = [];

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  streams = new DynamoDBStreamsClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  sqs = new SQSClient({ ...config, endpoint: runtime.sqsEndpoint });
  streamArn = (await dynamo.send(new CreateTableCommand(createTableInput(tableName)))).TableDescription!
    .LatestStreamArn!;
  queueUrl = (
    await sqs.send(
      new CreateQueueCommand({ QueueName: `webhook-delivery-${suffix}`, Attributes: { VisibilityTimeout: '30' } }),
    )
  ).QueueUrl!;
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_SQS: runtime.sqsEndpoint,
    QUEUE_URL_WEBHOOK_DELIVERY: queueUrl,
    ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true',
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1',
  });
  server = createServer((req, res) => {
    receipts.push({ path: req.url!, id: String(req.headers['webhook-id']) });
    req.resume().on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => {
    server.close(resolve);
    server.closeAllConnections();
  });
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl })).catch(() => undefined);
  for (const name of [
    'TABLE_NAME',
    'AWS_ENDPOINT_URL_SQS',
    'QUEUE_URL_WEBHOOK_DELIVERY',
    'ALLOW_HTTP_LOOPBACK_WEBHOOKS',
    'WEBHOOK_RETRY_SCHEDULE_SECONDS',
  ]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
  streams.destroy();
  sqs.destroy();
});

it('delivers each event exactly once per subscribed webhook when the first stream batches die', async () => {
  const caller: Caller = { projectId: newId(), livemode: true, permission: 'full_access' };
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [a, b, c, d] = await Promise.all([
    createWebhook(caller, { endpoint: `${base}/a`, events: ['email.sent'] }),
    createWebhook(caller, { endpoint: `${base}/b`, events: ['email.sent', 'email.delivered'] }),
    createWebhook(caller, { endpoint: `${base}/c`, events: ['domain.created'] }),
    createWebhook(caller, { endpoint: `${base}/d`, events: ['email.sent'] }),
  ]);
  await updateWebhook(caller, d.id, { status: 'disabled' });

  const invocations: string[] = [];
  const stream = new StreamPoller({
    fn: workerFunction('webhook-fanout'),
    streams,
    streamArn,
    batchSize: 100,
    maxRetryAttempts: 10,
    filter: WEBHOOK_FANOUT_FILTER as FilterPattern,
    handler: async (event: DynamoDBStreamEvent) => {
      invocations.push(`${event.Records.length} records`);
      if (invocations.length === 1) {
        process.env.QUEUE_URL_WEBHOOK_DELIVERY = `${runtime.sqsEndpoint}/000000000000/no-such-queue-${suffix}`;
        try {
          return await fanOut(event); // deliveries written, no message sent
        } finally {
          process.env.QUEUE_URL_WEBHOOK_DELIVERY = queueUrl;
        }
      }
      const result = await fanOut(event);
      if (invocations.length === 2) throw new Error('died before the checkpoint');
      return result;
    },
  });
  await stream.pollOnce(); // positions at LATEST, after the webhooks' own events

  const sent = Array.from({ length: 15 }, (_, i) => ({ id: `e${i}` }));
  await transact(sent.slice(0, 8).map((o) => eventWrite(caller, 'email.sent', o)));
  await transact([
    ...sent.slice(8).map((o) => eventWrite(caller, 'email.sent', o)),
    ...['x', 'y'].map((id) => eventWrite(caller, 'email.delivered', { id })),
  ]);
  const events = await waitFor(
    () => projectEvents(caller.projectId),
    (items) =>
      items.filter((i) => i.event_type !== 'webhook.endpoint.created' && i.event_type !== 'webhook.endpoint.disabled')
        .length === 17,
  );
  const idsOf = (type: string) =>
    events
      .filter((e) => e.event_type === type)
      .map((e) => e.event.id as string)
      .sort();

  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  const dispatcher = new QueuePoller({
    fn: workerFunction('webhook-dispatcher'),
    sqs,
    queueUrl,
    queueArn,
    batchSize: 10,
    concurrency: 3,
    handler: dispatcherHandler as never,
    idleMs: 50,
  });
  const until = async (done: () => boolean, timeoutMs = 20_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done() && Date.now() < deadline) {
      await Promise.all([stream.pollOnce(), dispatcher.pollOnce(), dispatcher.pollOnce(), dispatcher.pollOnce()]);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await until(() => receipts.length >= 15 + 17);
  // then until a round of every poller handles nothing (the stream read to its end, no delivery
  // message visible): a duplicate, if any, has been delivered by then
  for (let round = 0; ; round++) {
    const handled = await Promise.all([
      stream.pollOnce(),
      dispatcher.pollOnce(),
      dispatcher.pollOnce(),
      dispatcher.pollOnce(),
    ]);
    if (handled.every((n) => n === 0)) break;
    if (round === 100) throw new Error('the stream and the delivery queue did not settle');
  }

  expect(invocations.slice(0, 3)).toEqual(['17 records', '17 records', '17 records']); // the same batch, three times
  const count = (path: string) => {
    const ids = receipts.filter((r) => r.path === path).map((r) => r.id);
    return { total: ids.length, unique: [...new Set(ids)].sort() };
  };
  expect(count('/a')).toEqual({ total: 15, unique: idsOf('email.sent') });
  expect(count('/b')).toEqual({ total: 17, unique: [...idsOf('email.sent'), ...idsOf('email.delivered')].sort() });
  expect(count('/c').total).toBe(0); // not subscribed
  expect(count('/d').total).toBe(0); // disabled
  const deliveries = [
    ...(await queryPage(keys.webhookDeliveries(caller.projectId, a.id), { limit: 100 })).items,
    ...(await queryPage(keys.webhookDeliveries(caller.projectId, b.id), { limit: 100 })).items,
  ];
  expect(deliveries).toHaveLength(32);
  expect(deliveries.every((x) => x.status === 'delivered' && x.attempt_count === 1)).toBe(true);
  expect(new Set(deliveries.map((x) => x.webhook_id))).toEqual(new Set([a.id, b.id]));
  void c;
}, 60_000);

it('reports an unreadable delivery message as a batch item failure, so it ends in the DLQ', async () => {
  const gone = JSON.stringify({ project_id: newId(), webhook_id: newId(), delivery_id: newId() }); // readable, but no such delivery: done with
  const result = await dispatcherHandler({
    Records: [sqsRecord('bad-json', '{'), sqsRecord('bad-shape', '{"project_id":1}'), sqsRecord('gone', gone)],
  } as never);
  expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['bad-json', 'bad-shape']);
});

it("sends each delivery message in its project's message group (an SQS fair queue: one project's backlog does not delay another's)", async () => {
  const { deliveryQueue } = await import('../../shared/webhooks/queue');
  const { ReceiveMessageCommand, DeleteMessageBatchCommand } = await import('@aws-sdk/client-sqs');
  const [p1, p2] = [newId(), newId()];
  const messages = [p1, p2, p1].map((project_id) => ({ project_id, webhook_id: newId(), delivery_id: newId() }));
  expect(await deliveryQueue.enqueue(messages)).toEqual([]);
  // the file's queue may still hold earlier tests' deliveries (visible again after their 30 s): ours are told by their ids
  const ours = new Set(messages.map((m) => m.delivery_id));
  const mine: { Body?: string; Attributes?: Record<string, string> }[] = [];
  while (mine.length < messages.length) {
    const batch =
      (
        await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            MessageSystemAttributeNames: ['All'],
            VisibilityTimeout: 60,
            WaitTimeSeconds: 5,
          }),
        )
      ).Messages ?? [];
    if (batch.length > 0)
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    mine.push(...batch.filter((m) => ours.has(JSON.parse(m.Body!).delivery_id)));
  }
  const groups = mine.map((m) => [JSON.parse(m.Body!).delivery_id, m.Attributes?.MessageGroupId]);
  expect(groups.sort()).toEqual(messages.map((m) => [m.delivery_id, m.project_id]).sort());
});
