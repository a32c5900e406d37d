/**
 * The due-email dispatcher: enqueues every email whose scheduled time (or send lease, see
 * shared/emails/emails.ts) has passed. Runs on a schedule, so scheduled emails go out within one
 * interval of their time and an email whose queue message was lost is sent anyway.
 * Each due email gets a new lease before its message is sent, so the next run skips it.
 * A `sending` email is due when its claim's lease ends: its message makes the sender end the
 * claim (shared/emails/sender.ts). A staged email of a batch (shared/emails/emails.ts) is due
 * when the request that staged it is surely over: it is published or discarded here.
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, queryGsi1Pages, update, updateItem } from '../platform/db/table';
import { logger } from '../platform/log';
import { SEND_LEASE_MS, settleStagedEmail } from './emails';
import { sendQueue, type SendMessage } from './send-queue';

/** Returns how many emails it enqueued. */
export async function dispatchDueEmails(now = new Date()): Promise<number> {
  const bound = `${now.toISOString()}~`; // every GSI1SK `<due>#...` with due <= now
  const due: SendMessage[] = [];
  for (let shard = 0; shard < keys.EMAIL_DUE_SHARDS; shard++) {
    for await (const page of queryGsi1Pages(keys.emailDueShard(shard), { below: bound })) {
      for (const item of page) {
        if (item.type === 'staged_email') {
          await settleStagedEmail(item).catch((error) => logger.error('staged email not settled; next run', { email_id: item.id, error }));
          continue;
        }
        const lease = new Date(now.getTime() + SEND_LEASE_MS).toISOString();
        try {
          await updateItem(
            update(
              keys.email(item.project_id, item.id),
              {
                set: keys.emailDue(item.project_id, item.id, lease),
                condition: { expression: 'GSI1SK = :seen', values: { ':seen': item.GSI1SK } },
              },
              { tag: 'lease taken' },
            ),
          );
          due.push({ project_id: item.project_id, email_id: item.id });
        } catch (error) {
          if (!isConditionFailed(error, 'lease taken')) throw error; // another run or the sender got there first
        }
      }
    }
  }
  await sendQueue.enqueue(due);
  return due.length;
}
