/**
 * The local stand-in for Lambda's SQS trigger, against the local SQS (in memory): partial
 * batch failures stay on the queue and come back, a thrown handler fails the whole batch, and
 * a message that keeps failing ends in the DLQ.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { startLocalSqs, type LocalSqs } from '../../local/aws/sqs';
import { OWN_STAND_IN_CREDENTIALS } from '../support/stand-ins';
import { QueuePoller } from '../../local/lambda/queue-poller';

let server: LocalSqs;
let sqs: SQSClient;

beforeAll(async () => {
  server = await startLocalSqs({ region: 'ap-southeast-2', credentials: OWN_STAND_IN_CREDENTIALS });
  sqs = new SQSClient({ endpoint: server.endpoint, region: 'ap-southeast-2', credentials: OWN_STAND_IN_CREDENTIALS });
});

afterAll(async () => {
  sqs.destroy();
  await server.close();
});

async function queueWithDlq(name: string, maxReceiveCount: number) {
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: '1', // a failed message comes back a second later
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }),
      },
    }),
  );
  const arn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn!;
  return { url: queue.QueueUrl!, arn, dlqUrl: dlq.QueueUrl! };
}

const send = (url: string, bodies: string[]) =>
  sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: url,
      Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })),
    }),
  );

/** Polls like the runtime does until `done` holds (failed messages reappear after the 1 s visibility timeout). */
async function pollUntil(poller: QueuePoller, done: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done()) && Date.now() < deadline) {
    if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
  }
}

it('delivers batches of at most batchSize and redelivers only the reported failures', async () => {
  const queue = await queueWithDlq('partial', 5);
  await send(queue.url, ['ok-1', 'fail-once', 'ok-2']);
  const seen: string[] = [];
  const batchSizes: number[] = [];
  let failedOnce = false;
  const poller = new QueuePoller({
    fn: { name: 'TestConsumer', needs: {}, timeoutMs: 30_000 },
    sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    batchSize: 2,
    handler: async (event: SQSEvent) => {
      batchSizes.push(event.Records.length);
      const batchItemFailures = [];
      for (const record of event.Records) {
        expect(record.eventSourceARN).toBe(queue.arn);
        if (record.body === 'fail-once' && !failedOnce) {
          failedOnce = true;
          batchItemFailures.push({ itemIdentifier: record.messageId });
        } else seen.push(record.body);
      }
      return { batchItemFailures };
    },
  });
  await pollUntil(poller, () => seen.length === 3);
  expect(seen.sort()).toEqual(['fail-once', 'ok-1', 'ok-2']);
  expect(Math.max(...batchSizes)).toBeLessThanOrEqual(2);
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl }))).Messages ?? []).toHaveLength(0);
});

it('fails the whole batch when the handler throws, and moves a poison message to the DLQ', async () => {
  const queue = await queueWithDlq('poison', 2);
  await send(queue.url, ['poison', 'fine']);
  const handled: string[] = [];
  const poller = new QueuePoller({
    fn: { name: 'TestConsumer', needs: {}, timeoutMs: 30_000 },
    sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    batchSize: 1,
    handler: async (event: SQSEvent) => {
      if (event.Records[0].body === 'poison') throw new Error('cannot handle');
      handled.push(event.Records[0].body);
    },
    onError: () => undefined,
  });
  const dead: string[] = [];
  await pollUntil(poller, async () => {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10 }));
    dead.push(...(out.Messages ?? []).map((m) => m.Body!));
    return dead.length > 0;
  });
  expect(handled).toEqual(['fine']);
  expect(dead).toEqual(['poison']);
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url }))).Messages ?? []).toHaveLength(0);
});

it('fails the whole batch of an invocation that outlives its timeout, so its messages come back', async () => {
  const queue = await queueWithDlq('timed-out', 5);
  await send(queue.url, ['slow']);
  let calls = 0;
  const poller = new QueuePoller({
    fn: { name: 'SlowConsumer', needs: {}, timeoutMs: 200 },
    sqs,
    queueUrl: queue.url,
    queueArn: queue.arn,
    batchSize: 10,
    onError: () => undefined,
    handler: async () => {
      calls += 1;
      if (calls === 1) await new Promise((r) => setTimeout(r, 600)); // past the 200 ms timeout: Lambda stops it
      return { batchItemFailures: [] };
    },
  });
  await pollUntil(poller, () => calls >= 2);
  expect(calls).toBe(2); // the timed-out batch was not deleted: the message came back after its visibility timeout
  const left = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.url, WaitTimeSeconds: 0 }));
  expect(left.Messages ?? []).toHaveLength(0); // the second, timely invocation deleted it
});
