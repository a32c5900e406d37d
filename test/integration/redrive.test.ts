/**
 * The documented re-drive of a dead-letter queue (`npm run redrive`, lib/redrive.ts): it finds the
 * DLQ of every queue of functions/workers.ts in the runtime's SQS, and a message that failed into
 * a DLQ goes back to the queue it came from, once. That one runs against a local SQS of its own
 * (local/aws/sqs.ts, what the runtime runs) on a clock the test moves, as the runtime's
 * LOCAL_CLOCK=manual: the message's visibility timeout runs out when the test says, not a second
 * of the machine's time later.
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { queues } from '../../functions/workers';
import { startLocalSqs } from '../../local/aws/sqs';
import { deadLetterQueueUrl, redrive } from '../../lib/redrive';
import { useRuntimeTable } from '../support/table';
import { OWN_STAND_IN_CREDENTIALS, runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
let sqs: SQSClient;
beforeAll(() => {
  sqs = new SQSClient({ endpoint: runtime.sqsEndpoint, region: 'ap-southeast-2', credentials: runtimeCredentials() });
});
afterAll(() => sqs.destroy());

it.each(queues.map((q) => [q.name]))('finds the DLQ of the %s queue', async (name) => {
  expect(await deadLetterQueueUrl(sqs, name, { local: true })).toMatch(new RegExp(`/${name}-dlq$`));
});

it('refuses a queue the service does not have', async () => {
  await expect(deadLetterQueueUrl(sqs, 'no-such-queue', { local: true })).rejects.toThrow(/no queue no-such-queue/);
});

it('sends a message that failed into the DLQ back to its queue, once', async () => {
  let t = Date.now();
  const local = await startLocalSqs({
    region: 'ap-southeast-2',
    credentials: OWN_STAND_IN_CREDENTIALS,
    clock: { now: () => t, manual: true },
  });
  const own = new SQSClient({
    endpoint: local.endpoint,
    region: 'ap-southeast-2',
    credentials: OWN_STAND_IN_CREDENTIALS,
  });
  try {
    const name = 'redrive';
    const dlqUrl = (await own.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
    const dlqArn = (await own.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] })))
      .Attributes!.QueueArn!;
    const queueUrl = (
      await own.send(
        new CreateQueueCommand({
          QueueName: name,
          Attributes: {
            VisibilityTimeout: '1',
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }),
          },
        }),
      )
    ).QueueUrl!;
    await own.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"bounce":"reader@example.com"}' }));
    const inDlq = async () =>
      Number(
        (
          await own.send(
            new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
          )
        ).Attributes!.ApproximateNumberOfMessages,
      );
    const receive = async () =>
      (await own.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }))).Messages ?? [];
    // received and not deleted (its consumer failed): in flight for its second
    expect(await receive()).toHaveLength(1);
    expect(await receive()).toEqual([]);
    expect(await inDlq()).toBe(0);
    // visible again a second later: past maxReceiveCount, SQS moves it to the DLQ instead of answering it
    t += 1000;
    expect(await receive()).toEqual([]);
    expect(await inDlq()).toBe(1);

    expect(await redrive(own, name, dlqUrl)).toMatchObject({ messages: 1, status: 'COMPLETED', moved: 1 });
    expect(await inDlq()).toBe(0);
    const back = await own.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
    );
    expect(back.Messages?.map((m) => m.Body)).toEqual(['{"bounce":"reader@example.com"}']);
    expect(await redrive(own, name, dlqUrl)).toMatchObject({ messages: 0, status: 'NOTHING_TO_MOVE' });
  } finally {
    own.destroy();
    await local.close();
  }
});
