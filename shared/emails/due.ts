/**
 * The due-email dispatcher: enqueues every email whose scheduled time (or send lease, see
 * shared/emails/emails.ts) has passed. Runs on a schedule, so scheduled emails go out within one
 * interval of their time and an email whose queue message was lost is sent anyway.
 * A `sending` email is due when its claim's lease ends: its message makes the sender end the
 * claim (shared/emails/sender.ts). A staged email of a batch (shared/emails/emails.ts) is due
 * when the request that staged it is surely over: it is published or discarded here.
 *
 * Bounded work, page by page: the due index is read a page at a time (each shard in turn); each
 * due email of the page gets a new lease (a conditional update, DUE_PARALLEL at a time) and the
 * page's messages are sent at once, before the next page is read. A run stops at its deadline
 * (the handler's remaining time less a margin) or after MAX_PER_RUN emails; what it leased is no
 * longer due (its due time moved a lease ahead, past this run's bound), so the next run goes on
 * with the rest and never takes the same email twice: no livelock, whatever the backlog. If a
 * page's enqueue fails, its emails' leases run out and they are due again then.
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, queryGsi1Pages, update, updateItem, type Item } from '../platform/db/table';
import { logger } from '../platform/log';
import { nowDate } from '../platform/clock';
import { SEND_LEASE_MS, settleStagedEmail } from './emails';
import type { Queue } from '../platform/aws/queues';
import { firstQueueOf, type SendMessage } from './send-queue';

/** Due entries read per Query. */
const PAGE_SIZE = 200;
/** Lease updates in flight at a time. */
const DUE_PARALLEL = 50;
/** Emails one run enqueues at most (about 20 s of leases and enqueues on a slow table: the rest is the next run's). */
export const MAX_PER_RUN = 20_000;

export interface DueRun {
  /** emails enqueued */
  enqueued: number;
  /** true when the run stopped at its deadline or its maximum with due emails left for the next run */
  stoppedEarly: boolean;
}

/** Takes the lease of one due email (false: another run or the sender got there first). */
async function lease(item: Item, now: Date): Promise<boolean> {
  const until = new Date(now.getTime() + SEND_LEASE_MS).toISOString();
  try {
    await updateItem(
      update(
        keys.email(item.project_id, item.id),
        {
          set: keys.emailDue(item.project_id, item.id, until),
          condition: { expression: 'GSI1SK = :seen', values: { ':seen': item.GSI1SK } },
        },
        { tag: 'lease taken' },
      ),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error, 'lease taken')) return false;
    throw error;
  }
}

/**
 * The page's emails leased, DUE_PARALLEL at a time; returns the messages of those this run took, by
 * the queue each goes to next (./send-queue.ts `firstQueueOf`: the fetch stage while its `path`
 * attachments are not stored, else its lane; broadcast emails are bulk).
 */
async function leasePage(page: Item[], now: Date): Promise<Map<Queue<SendMessage, void>, SendMessage[]>> {
  const taken = new Map<Queue<SendMessage, void>, SendMessage[]>();
  for (let i = 0; i < page.length; i += DUE_PARALLEL) {
    await Promise.all(
      page.slice(i, i + DUE_PARALLEL).map(async (item) => {
        if (item.type === 'staged_email') {
          await settleStagedEmail(item).catch((error) =>
            logger.error('staged email not settled; next run', { email_id: item.id, error }),
          );
        } else if (await lease(item, now)) {
          const queue = firstQueueOf(item as Item & { project_id: string });
          taken.set(queue, [...(taken.get(queue) ?? []), { project_id: item.project_id, email_id: item.id }]);
        }
      }),
    );
  }
  return taken;
}

/**
 * One run (see the module comment): `deadline` (epoch ms) and `maxEmails` bound it. Returns how
 * many emails it enqueued and whether it left due emails for the next run.
 */
export async function dispatchDueEmails(
  now = nowDate(),
  options: { deadline?: number; maxEmails?: number } = {},
): Promise<DueRun> {
  const bound = `${now.toISOString()}~`; // every GSI1SK `<due>#...` with due <= now
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const maxEmails = options.maxEmails ?? MAX_PER_RUN;
  let enqueued = 0;
  for (let shard = 0; shard < keys.EMAIL_DUE_SHARDS; shard++) {
    for await (const page of queryGsi1Pages(keys.emailDueShard(shard), { below: bound, pageSize: PAGE_SIZE })) {
      // machine time: `deadline` is the handler's remaining time, a budget of work
      if (Date.now() >= deadline || enqueued >= maxEmails) return { enqueued, stoppedEarly: true };
      const taken = [...(await leasePage(page, now))];
      await Promise.all(taken.map(([queue, messages]) => queue.enqueue(messages)));
      enqueued += taken.reduce((sum, [, messages]) => sum + messages.length, 0);
    }
  }
  return { enqueued, stoppedEarly: false };
}
