/**
 * The due-broadcast dispatcher (a scheduled worker): see dispatchDueBroadcasts.
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, queryGsi1Pages, update, updateItem } from '../platform/db/table';
import { FANOUT_LEASE_MS, type BroadcastItem } from './broadcasts';
import { fanOutQueue, type FanOutMessage } from './queue';

/**
 * The due-broadcast dispatcher: scheduled broadcasts whose time has come, and queued or sending
 * ones whose lease ran out (a lost message), get a fan-out message from their cursor and a new
 * lease, claimed with a condition so two runs never both send it.
 */
export async function dispatchDueBroadcasts(now = new Date()): Promise<number> {
  const messages: FanOutMessage[] = [];
  for await (const page of queryGsi1Pages<BroadcastItem>(keys.BROADCASTS_DUE, { below: `${now.toISOString()}~` })) {
    for (const item of page) {
      const lease = new Date(now.getTime() + FANOUT_LEASE_MS).toISOString();
      try {
        await updateItem(
          update(
            keys.broadcast(item.project_id, item.id),
            { set: keys.broadcastDue(item.project_id, item.id, lease), condition: { expression: 'GSI1SK = :seen', values: { ':seen': item.GSI1SK } } },
            { tag: 'cursor moved' },
          ),
        );
        messages.push({ project_id: item.project_id, broadcast_id: item.id, after: item.cursor ?? '' });
      } catch (error) {
        if (!isConditionFailed(error, 'cursor moved')) throw error; // another run, or the fan-out, got there first
      }
    }
  }
  await fanOutQueue.enqueue(messages);
  return messages.length;
}
