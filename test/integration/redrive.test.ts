/**
 * The documented re-drive of a dead-letter queue (`npm run redrive`, lib/redrive.ts) against the
 * runtime's SQS: it finds the DLQ of every queue of functions/workers.ts, and a message that failed
 * into a DLQ goes back to the queue it came from, once.
 */
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { queues } from '../../functions/workers';
import { deadLetterQueueUrl, redrive } from '../../lib/redrive';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';
import { runtimeCredentials } from '../support/stand-ins';

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
  const name = `redrive-${newId().slice(-12)}`;
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }))).QueueUrl!;
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }))).Attributes!.QueueArn!;
  const queueUrl = (
    await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: '1', RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 }) } }))
  ).QueueUrl!;
  try {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: '{"bounce":"reader@example.com"}' }));
    const inDlq = async () => Number((await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }))).Attributes!.ApproximateNumberOfMessages);
    // received and not deleted (its consumer failed), visible again a second later: past maxReceiveCount, SQS moves it to the DLQ
    for (const deadline = Date.now() + 10_000; (await inDlq()) === 0 && Date.now() < deadline; ) {
      await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 0 }));
      await new Promise((r) => setTimeout(r, 1100));
    }
    expect(await inDlq()).toBe(1);

    expect(await redrive(sqs, name, dlqUrl)).toMatchObject({ messages: 1, status: 'COMPLETED', moved: 1 });
    expect(await inDlq()).toBe(0);
    const back = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    expect(back.Messages?.map((m) => m.Body)).toEqual(['{"bounce":"reader@example.com"}']);
    expect(await redrive(sqs, name, dlqUrl)).toMatchObject({ messages: 0, status: 'NOTHING_TO_MOVE' });
  } finally {
    for (const url of [queueUrl, dlqUrl]) await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  }
});
