/**
 * The broadcast fan-out queue: one message per page of a broadcast's segment still to do,
 * `{project_id, broadcast_id, after}` (`after`: the last contact id of the page before, '' for the
 * first). The broadcast's `cursor` is the truth: a message whose `after` is not the cursor is
 * stale (a duplicate, or a page already done) and is dropped, so a redelivered or duplicated
 * message never makes a second chain of pages.
 */
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { guarded } from './platform/aws/call-guard';

const sqs = guarded('sqs', new SQSClient({}));

export interface FanOutMessage {
  project_id: string;
  broadcast_id: string;
  after: string;
}

function queueUrl(): string {
  const url = process.env.QUEUE_URL_BROADCAST_FANOUT;
  if (!url) throw new Error('QUEUE_URL_BROADCAST_FANOUT is not set');
  return url;
}

export async function enqueueFanOut(messages: FanOutMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const chunk = messages.slice(i, i + 10);
    const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl(), Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }));
    if (out.Failed?.length) throw new Error(`broadcast fan-out queue refused ${out.Failed.length} messages: ${out.Failed[0].Message}`);
  }
}
