/**
 * The due-broadcast dispatcher (a scheduled worker): scheduled broadcasts whose time has come, and
 * queued or sending ones whose lease ran out (a lost message), get a new lease, claimed with a
 * condition so two runs never both send it, and fan-out messages: one from their cursor, and one
 * per page still in flight (its record, shared/broadcasts/fanout.ts). A message that is no longer
 * needed is stale and dropped by the fan-out.
 *
 * Bounded like the due-email dispatcher (shared/emails/due.ts): a page of the due index at a time,
 * its messages sent before the next page is read, until the run's deadline; what a run leased is
 * no longer due, so the next run goes on with the rest.
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, queryGsi1Pages, queryPage, update, updateItem } from '../platform/db/table';
import { FANOUT_LEASE_MS, type BroadcastItem } from './broadcasts';
import { fanOutQueue, type FanOutMessage } from './queue';
import { nowDate } from '../platform/clock';

const PAGE_SIZE = 100;

/** Takes the broadcast's lease; the messages to send, none when another run or the fan-out got there first. */
async function lease(item: BroadcastItem & { GSI1SK?: string }, now: Date): Promise<FanOutMessage[]> {
  const until = new Date(now.getTime() + FANOUT_LEASE_MS).toISOString();
  try {
    await updateItem(
      update(
        keys.broadcast(item.project_id, item.id),
        {
          set: keys.broadcastDue(item.project_id, item.id, until),
          condition: { expression: 'GSI1SK = :seen', values: { ':seen': item.GSI1SK } },
        },
        { tag: 'cursor moved' },
      ),
    );
  } catch (error) {
    if (isConditionFailed(error, 'cursor moved')) return [];
    throw error;
  }
  const message = (after: string): FanOutMessage => ({ project_id: item.project_id, broadcast_id: item.id, after });
  // pages in flight are at most MAX_PAGES_IN_FLIGHT, and those of an ended attempt: one page of records reads them
  const pages =
    (item.pages_in_flight ?? 0) > 0
      ? (await queryPage(keys.broadcastPages(item.project_id, item.id), { limit: 100 })).items
      : [];
  return [message(item.cursor ?? ''), ...pages.map((page) => message(page.after as string))];
}

/** One run; `deadline` (epoch ms) bounds it. Returns how many fan-out messages it sent. */
export async function dispatchDueBroadcasts(now = nowDate(), options: { deadline?: number } = {}): Promise<number> {
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  let enqueued = 0;
  for await (const page of queryGsi1Pages<BroadcastItem & { GSI1SK?: string }>(keys.BROADCASTS_DUE, {
    below: `${now.toISOString()}~`,
    pageSize: PAGE_SIZE,
  })) {
    if (Date.now() >= deadline) break; // machine time: the worker's remaining time
    const messages = (await Promise.all(page.map((item) => lease(item, now)))).flat();
    await fanOutQueue.enqueue(messages);
    enqueued += messages.length;
  }
  return enqueued;
}
