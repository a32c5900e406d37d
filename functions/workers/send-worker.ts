/**
 * The consumer of a send queue (functions/workers/sender.ts for `send`, bulk-sender.ts for
 * `send-bulk`): each message names one email. Messages are handled concurrently; an email that
 * must be tried again later, and a message that cannot be read, are reported as batch item
 * failures (the latter ends in the DLQ after the queue's maxReceiveCount). A message that found
 * no send slot within the invocation's time is made invisible until about its turn
 * (shared/emails/send-rate.ts `slotRetrySeconds`), nothing written; so is one that found no room
 * in the instance's memory budget in that time (shared/emails/sender-memory.ts: large emails are
 * sent one at a time).
 */
import type { Context, SQSEvent } from 'aws-lambda';
import { processSqsBatch, RETRY } from '#shared/platform/aws/batch';
import type { Queue } from '#shared/platform/aws/queues';
import { logger } from '#shared/platform/log';
import { now } from '#shared/platform/clock';
import { sendQueuedEmail } from '#shared/emails/sender';
import { bulkLimit, maxSendRate, slotRetrySeconds, type SendLane } from '#shared/emails/send-rate';
import type { SendMessage } from '#shared/emails/send-queue';
import { MemoryBudget, SENDER_MEMORY_BUDGET_BYTES } from '#shared/emails/sender-memory';

/** Time kept back from the slot wait: the claim, the SES call and recording it after the slot. */
const AFTER_SLOT_MS = 10_000;
const MAX_SLOT_WAIT_MS = 20_000;
/** The backlog is read at most this often per instance. */
const BACKLOG_CACHE_MS = 10_000;

export function sendWorker(queue: Queue<SendMessage, void>, lane: SendLane) {
  // the instance's memory, shared by the emails it sends at once: large ones go one at a time (#shared/emails/sender-memory)
  const budget = new MemoryBudget(SENDER_MEMORY_BUDGET_BYTES);
  let backlog: { count: number; at: number } | undefined;
  const comeBackIn = async (waitSeconds: number): Promise<number> => {
    if (!backlog || now() - backlog.at > BACKLOG_CACHE_MS)
      backlog = { count: await queue.backlog().catch(() => 0), at: now() };
    const rate = await maxSendRate();
    return slotRetrySeconds(waitSeconds, backlog.count, lane === 'bulk' ? bulkLimit(rate) : rate);
  };
  return (event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
    const remaining = context?.getRemainingTimeInMillis?.() ?? 30_000;
    const slotWaitMs = Math.max(0, Math.min(MAX_SLOT_WAIT_MS, remaining - AFTER_SLOT_MS));
    return processSqsBatch(
      event,
      async (record) => {
        const message = JSON.parse(record.body) as { project_id?: unknown; email_id?: unknown };
        if (typeof message.project_id !== 'string' || typeof message.email_id !== 'string')
          throw new Error('not a send message');
        const outcome = await sendQueuedEmail(message.project_id, message.email_id, { slotWaitMs, budget });
        if (outcome === 'retry') return RETRY;
        if (typeof outcome === 'object') {
          const seconds = await comeBackIn(outcome.waitSeconds);
          await queue
            .delay(record.receiptHandle, seconds)
            .catch((error) => logger.warn('could not delay a send message', { message_id: record.messageId, error }));
          return RETRY;
        }
      },
      { onError: (error, record) => logger.error('send failed', { message_id: record.messageId, error }) },
    );
  };
}
