/**
 * Re-drive of a dead-letter queue (`npm run redrive -- <queue>`, bin/redrive.ts): SQS's own message
 * move task (StartMessageMoveTask) sends each message of the queue's DLQ back to the queue it came
 * from, where its consumer does it again; every consumer is idempotent, so a message whose work was
 * half done does the rest once. Locally the DLQ is `<queue>-dlq` of the runtime's SQS; on AWS it is
 * found by the name CloudFormation gave it (`<stack>-Queues<Queue>DeadLetterQueue...`).
 */
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  ListQueuesCommand,
  StartMessageMoveTaskCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { functionName } from '../functions/routes';
import { queues } from '../functions/workers';

export interface RedriveResult {
  queue: string;
  dlqArn: string;
  /** messages in the DLQ when the move began */
  messages: number;
  status: string;
  moved: number;
  failureReason?: string;
}

/** The DLQ of `queue` (a name of functions/workers.ts): the local runtime's, or the stack's on AWS. */
export async function deadLetterQueueUrl(
  sqs: SQSClient,
  queue: string,
  where: { local: true } | { stackName: string },
): Promise<string> {
  if (!queues.some((q) => q.name === queue))
    throw new Error(`no queue ${queue}: one of ${queues.map((q) => q.name).join(', ')}`);
  if ('local' in where) return (await sqs.send(new GetQueueUrlCommand({ QueueName: `${queue}-dlq` }))).QueueUrl!;
  const prefix = `${where.stackName}-Queues${functionName({ handler: queue })}DeadLetterQueue`;
  const found = (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }))).QueueUrls ?? [];
  if (found.length !== 1) throw new Error(`expected one queue named ${prefix}..., found ${found.length}`);
  return found[0];
}

/** Moves every message of the DLQ back to its source queue and waits (up to `timeoutMs`) for the move to end. */
export async function redrive(
  sqs: SQSClient,
  queue: string,
  dlqUrl: string,
  timeoutMs = 60_000,
): Promise<RedriveResult> {
  const attributes =
    (
      await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: dlqUrl,
          AttributeNames: ['QueueArn', 'ApproximateNumberOfMessages'],
        }),
      )
    ).Attributes ?? {};
  const dlqArn = attributes.QueueArn!;
  const messages = Number(attributes.ApproximateNumberOfMessages ?? 0);
  if (messages === 0) return { queue, dlqArn, messages, status: 'NOTHING_TO_MOVE', moved: 0 };
  await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn })); // no destination: each message back to the queue it came from
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const [task] =
      (await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 1 }))).Results ?? [];
    const status = task?.Status ?? 'UNKNOWN';
    if (status !== 'RUNNING' || Date.now() > deadline) {
      return {
        queue,
        dlqArn,
        messages,
        status,
        moved: Number(task?.ApproximateNumberOfMessagesMoved ?? 0),
        failureReason: task?.FailureReason,
      };
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
