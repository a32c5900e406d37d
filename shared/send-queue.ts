/**
 * The send queue: one message per email to send, `{project_id, email_id}`. The email item is the
 * truth; a message only says "look at this email". Losing one is safe (the due-email dispatcher
 * re-enqueues emails that wait too long) and so is a duplicate (the sender claims each email
 * with a condition before sending).
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { guarded } from './platform/aws/call-guard';

const sqs = guarded('sqs', new SQSClient({}));

export interface SendMessage {
  project_id: string;
  email_id: string;
}

function queueUrl(): string {
  const url = process.env.QUEUE_URL_SEND;
  if (!url) throw new Error('QUEUE_URL_SEND is not set');
  return url;
}

/** 10 messages per request (SQS's limit), the requests in parallel (a broadcast page enqueues 100). */
export async function enqueueSends(messages: SendMessage[]): Promise<void> {
  const QueueUrl = queueUrl();
  const chunks: SendMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) chunks.push(messages.slice(i, i + 10));
  await Promise.all(
    chunks.map(async (chunk) => {
      const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }));
      if (out.Failed?.length) throw new Error(`send queue refused ${out.Failed.length} messages: ${out.Failed[0].Message}`);
    }),
  );
}
