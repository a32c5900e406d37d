/**
 * The due-email dispatcher under a backlog (issue 17): 10,000 emails due in the same minute are
 * each enqueued exactly once, page by page, by runs that stop at their bound and leave the rest to
 * the next run, even with two runs at the same time. A DynamoDB Local and an SQS of its own: the
 * runtime's dispatcher and sender never see these emails, and 10,000 leases and messages do not
 * hold up the runtime every other suite is talking to meanwhile. The runs go through the local
 * Lambda emulation (the function's needs, its 30 s timeout and the remaining time its handler
 * bounds itself by). The service's clock stands still for the test (shared/platform/clock.ts): a
 * lease a run takes lasts 2 minutes of it, and on a loaded machine the runs took longer than that,
 * so the first run's emails fell due again (21,000 enqueued); the runs' bounds are machine time.
 */
import {
  BatchWriteItemCommand,
  CreateTableCommand,
  DeleteTableCommand,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  DeleteMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { marshall } from '@aws-sdk/util-dynamodb';
import { handler as dispatch } from '../../functions/workers/dispatch-due-emails';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { createTableInput } from '../../lib/table-definition';
import { dispatchDueEmails } from '../../shared/emails/due';
import * as keys from '../../shared/platform/db/keys';
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
// Ten times the first run's bound: enough for the claim (each email exactly once over bounded runs, two of them
// at once). It was 20,000, which took 80-200 s of a 15-minute CI run on 2 cores; scale is the benchmarks' to show.
const BACKLOG = 10_000;

let dynamo: DynamoDBClient;
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

/** Setup: `count` queued emails of a few projects (every tenth a broadcast's), all due at `dueAt`, written 25 at a time (BatchWriteItem), 8 requests in flight. */
async function dueEmails(count: number, dueAt: string): Promise<string[]> {
  const projects = [newId(), newId(), newId()];
  const items = Array.from({ length: count }, (_, n) => {
    const projectId = projects[n % projects.length];
    const id = newId();
    return {
      ...keys.email(projectId, id),
      ...keys.emailDue(projectId, id, dueAt),
      type: 'email',
      project_id: projectId,
      id,
      last_event: 'queued',
      livemode: false,
      ...(n % 10 === 0 ? { broadcast_id: 'b-1' } : {}),
    };
  });
  const requests = [];
  for (let i = 0; i < items.length; i += 25) requests.push(items.slice(i, i + 25));
  for (let i = 0; i < requests.length; i += 8) {
    await Promise.all(
      requests.slice(i, i + 8).map(async (chunk) => {
        let pending = chunk.map((item) => ({ PutRequest: { Item: marshall(item) } }));
        while (pending.length) {
          const out = await dynamo.send(new BatchWriteItemCommand({ RequestItems: { [tableName]: pending } }));
          pending = (out.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }),
    );
  }
  return items.map((item) => item.id);
}

/** The ids of the emails of a broadcast among `ids` (every tenth, as `dueEmails` writes them). */
const broadcastIds = (ids: string[]) => ids.filter((_, n) => n % 10 === 0);

/** Every message on a send queue (the transactional one by default), received and deleted by 4 receivers side by side: the email ids, with repeats. */
async function drainSendQueue(queueUrl = sendQueueUrl): Promise<string[]> {
  const ids: string[] = [];
  const receiver = async () => {
    for (let empty = 0; empty < 2; ) {
      const out = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: 300,
        }),
      );
      const messages = out.Messages ?? [];
      if (!messages.length) {
        empty++;
        continue;
      }
      ids.push(...messages.map((m) => (JSON.parse(m.Body!) as { email_id: string }).email_id));
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  };
  await Promise.all([receiver(), receiver(), receiver(), receiver()]);
  return ids;
}

type Run = { enqueued: number; stoppedEarly: boolean };
const scheduledRun = () => invoke(workerFunction('dispatch-due-emails'), dispatch as never, {}) as Promise<Run>;

it('enqueues 10,000 emails due in the same minute exactly once, page by page over bounded runs', async () => {
  const ids = await dueEmails(BACKLOG, new Date(clockTime - 30_000).toISOString());

  // a run bounded to 1,000 stops early, having enqueued its pages: they are on the queue already
  const first = await dispatchDueEmails(nowDate(), { maxEmails: 1_000 });
  expect(first.stoppedEarly).toBe(true);
  expect(first.enqueued).toBeGreaterThanOrEqual(1_000);
  expect(first.enqueued).toBeLessThan(BACKLOG);
  const seen = [...(await drainSendQueue()), ...(await drainSendQueue(bulkQueueUrl))];
  expect(seen).toHaveLength(first.enqueued);

  // then scheduled runs, two at once the first time, until one finds nothing left
  const runs: Run[] = await Promise.all([scheduledRun(), scheduledRun()]);
  while (runs.at(-1)!.stoppedEarly || runs.at(-1)!.enqueued > 0) runs.push(await scheduledRun());
  expect(runs.at(-1)).toEqual({ enqueued: 0, stoppedEarly: false });
  const transactional = await drainSendQueue();
  const bulk = await drainSendQueue(bulkQueueUrl);
  seen.push(...transactional, ...bulk);
  // a broadcast's emails go back to the bulk lane, the others to the transactional one
  const ofBroadcast = new Set(broadcastIds(ids));
  expect(bulk.every((id) => ofBroadcast.has(id))).toBe(true);
  expect(transactional.some((id) => ofBroadcast.has(id))).toBe(false);

  expect(first.enqueued + runs.reduce((sum, run) => sum + run.enqueued, 0)).toBe(BACKLOG);
  expect(seen).toHaveLength(BACKLOG); // no email twice ...
  expect(new Set(seen)).toEqual(new Set(ids)); // ... and every one
}, 300_000);
