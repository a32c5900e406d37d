/**
 * The due-email dispatcher under a backlog (issue 17): 2,000 emails due in the same minute are each
 * enqueued exactly once, page by page, by runs that stop at their bound and leave the rest to the
 * next run, even with two runs at the same time. Each run here is bounded to RUN_BOUND emails
 * (dispatchDueEmails' `maxEmails`, the bound the scheduled handler's runs have at MAX_PER_RUN beside
 * their deadline), so 2,000 (pages of 200 in each of 8 shards: two pages a shard) take at least five
 * runs, two of them side by side on the same pages; the test counts the runs that stopped at their
 * bound, so it fails if the bound stops mattering. The bounded runs go through the local Lambda
 * emulation as the dispatcher's function (its needs, its 30 s timeout), and the scheduled handler
 * itself then finds nothing left. 10,000 emails with the handler's own bounds (its deadline) are a
 * benchmark's (bench/due-backlog.ts, `BENCH_ONLY=due`): at that size this test took 45-199 s of the gate.
 * A DynamoDB Local and an SQS of its own: the runtime's dispatcher and sender never see these
 * emails, and the leases and messages do not hold up the runtime every other suite is talking to
 * meanwhile. The service's clock stands still for the test (shared/platform/clock.ts): a lease a run
 * takes lasts 2 minutes of it, so however slow the machine no email falls due again (with a moving
 * clock, runs on a loaded machine once outlived the first run's leases and enqueued its emails again).
 */
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { dueEmailItems, receiveAll } from '../../bench/due-backlog';
import { writeRaw } from '../../bench/raw-write';
import { handler as dispatch } from '../../functions/workers/dispatch-due-emails';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { createTableInput } from '../../lib/table-definition';
import { dispatchDueEmails, type DueRun } from '../../shared/emails/due';
import { newId } from '../../shared/platform/ids';
import { nowDate, setClockSource } from '../../shared/platform/clock';
import { useRuntimeTable } from '../support/table';
import { startLocalSqs, type LocalSqs } from '../../local/aws/sqs';
import { OWN_STAND_IN_CREDENTIALS } from '../support/stand-ins';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../local/aws/dynamodb';
import { freePort } from '../../local/ports';

useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: OWN_STAND_IN_CREDENTIALS };
const suffix = newId().slice(-12);
const tableName = `due-dispatcher-${suffix}`;
const saved = { ...process.env };
const VARIABLES = [
  'TABLE_NAME',
  'AWS_ENDPOINT_URL_DYNAMODB',
  'AWS_ENDPOINT_URL_SQS',
  'QUEUE_URL_SEND',
  'QUEUE_URL_SEND_BULK',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
];
// Enough for several bounded runs, two of them at once, with every shard two pages long (8 shards, pages of 200:
// shared/emails/due.ts). It was 20,000, then 10,000 (45-199 s on 2 cores); the size is bench/due-backlog.ts's to show.
const BACKLOG = 2_000;
/**
 * Each bounded run's `maxEmails`. A run reads a page before it checks its bound, so it enqueues at
 * least RUN_BOUND and fewer than RUN_BOUND + 200 before it stops: 2,000 take five runs or more, and
 * every one but the last stops at its bound.
 */
const RUN_BOUND = 300;

let dynamo: DynamoDBClient;
let writer: DynamoDBDocumentClient;
let sqs: SQSClient;
let sendQueueUrl: string;
let bulkQueueUrl: string;
let ownDynamo: DynamoDbLocal;
let ownSqs: LocalSqs;

const clockTime = Date.now();

beforeAll(async () => {
  setClockSource(() => clockTime);
  ownDynamo = await startDynamoDbLocal({ port: freePort });
  ownSqs = await startLocalSqs({ region: 'ap-southeast-2', credentials: OWN_STAND_IN_CREDENTIALS }); // in memory
  const sqsEndpoint = ownSqs.endpoint;
  dynamo = new DynamoDBClient({ ...config, endpoint: ownDynamo.endpoint });
  writer = DynamoDBDocumentClient.from(dynamo);
  sqs = new SQSClient({ ...config, endpoint: sqsEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false }))); // no stream: nothing reads it (lib/table-definition.ts)
  sendQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `send-${suffix}` }))).QueueUrl!;
  bulkQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `send-bulk-${suffix}` }))).QueueUrl!;
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_DYNAMODB: ownDynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    QUEUE_URL_SEND: sendQueueUrl,
    QUEUE_URL_SEND_BULK: bulkQueueUrl,
    AWS_ACCESS_KEY_ID: OWN_STAND_IN_CREDENTIALS.accessKeyId, // what this suite's own SQS accepts
    AWS_SECRET_ACCESS_KEY: OWN_STAND_IN_CREDENTIALS.secretAccessKey,
  });
}, 60_000);

afterAll(async () => {
  setClockSource(Date.now);
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  for (const url of [sendQueueUrl, bulkQueueUrl])
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  await ownDynamo?.stop();
  await ownSqs?.close();
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
  sqs.destroy();
});

const dispatcher = workerFunction('dispatch-due-emails');
/** A run bounded to RUN_BOUND emails and no deadline (the bound, not machine time, stops it), as the dispatcher's function: its needs, its timeout. */
const boundedRun = () =>
  invoke(dispatcher, () => dispatchDueEmails(nowDate(), { maxEmails: RUN_BOUND }), {}) as Promise<DueRun>;
/** A run of the scheduled handler itself: its own bounds (MAX_PER_RUN, its deadline). */
const scheduledRun = () => invoke(dispatcher, dispatch as never, {}) as Promise<DueRun>;

it('enqueues 2,000 emails due in the same minute exactly once, page by page over bounded runs, two at once', async () => {
  const items = dueEmailItems(BACKLOG, new Date(clockTime - 30_000).toISOString());
  await writeRaw(writer, tableName, items);

  // a bounded run stops early, having enqueued its pages: they are on the queue already
  const first = await boundedRun();
  expect(first.stoppedEarly).toBe(true);
  expect(first.enqueued).toBeGreaterThanOrEqual(RUN_BOUND);
  const seen = [...(await receiveAll(sqs, sendQueueUrl)), ...(await receiveAll(sqs, bulkQueueUrl))];
  expect(seen).toHaveLength(first.enqueued);

  // two runs at once, reading the same pages and leasing from them side by side: each stops at its bound
  const runs = [first, ...(await Promise.all([boundedRun(), boundedRun()]))];
  expect(runs.map((run) => run.stoppedEarly)).toEqual([true, true, true]);
  // then one after another until one gets to the end of the backlog
  while (runs.at(-1)!.stoppedEarly) runs.push(await boundedRun());
  const stoppedEarly = runs.filter((run) => run.stoppedEarly);
  expect(stoppedEarly.length).toBeGreaterThanOrEqual(4); // see RUN_BOUND
  for (const run of stoppedEarly) expect(run.enqueued).toBeGreaterThanOrEqual(RUN_BOUND);
  // the scheduled handler finds nothing left
  expect(await scheduledRun()).toEqual({ enqueued: 0, stoppedEarly: false });

  const transactional = await receiveAll(sqs, sendQueueUrl);
  const bulk = await receiveAll(sqs, bulkQueueUrl);
  seen.push(...transactional, ...bulk);
  // a broadcast's emails go back to the bulk lane, the others to the transactional one
  const ofBroadcast = new Set(items.filter((item) => item.broadcast_id).map((item) => item.id));
  expect(bulk.every((id) => ofBroadcast.has(id))).toBe(true);
  expect(transactional.some((id) => ofBroadcast.has(id))).toBe(false);

  expect(runs.reduce((sum, run) => sum + run.enqueued, 0)).toBe(BACKLOG);
  expect(seen).toHaveLength(BACKLOG); // no email twice ...
  expect(new Set(seen)).toEqual(new Set(items.map((item) => item.id))); // ... and every one
}, 120_000);
