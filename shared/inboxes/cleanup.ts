/**
 * What a deleted inbox leaves: DELETE /inboxes/{id} removes the inbox and its address claims in one
 * transaction (404 at once); its own partitions (keys.inboxPartitions: threads, messages, the
 * threading keys, drafts; labels) are removed here, by the collection-cleanup worker fed by the
 * table's stream (the removed inbox item), a page of keys per transaction until none is left or the
 * deadline comes (the worker is called again from the same record then). The search index object
 * is left to the inbound bucket's lifecycle (it expires with the mail it indexes); a draft's files
 * to the content bucket's.
 */
import * as keys from '../platform/db/keys';
import { del, partitionKeys, transact } from '../platform/db/table';

/** Removes the deleted inbox's partitions; false when the deadline (epoch ms, machine time) came first. */
export async function removeDeletedInboxItems(projectId: string, inboxId: string, deadline: number): Promise<boolean> {
  for (const partition of keys.inboxPartitions(projectId, inboxId))
    for await (const page of partitionKeys(partition)) {
      await transact(page.map((key) => del(key)));
      if (Date.now() >= deadline) return false;
    }
  return true;
}
