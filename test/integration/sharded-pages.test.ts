/**
 * Pages of a sharded collection (shared/platform/db/table.ts `queryPage`): the per-email
 * collections are spread over 16 partitions, and a page merges them by sort key, in the order and
 * with the cursors of a single partition, and stops at MAX_PAGE_BYTES (then `hasMore`).
 */
import * as keys from '../../shared/platform/db/keys';
import { MAX_PAGE_BYTES, put, queryPage, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';

useRuntimeTable();

/** `count` email items of a new project (ids in creation order), each with `filler` bytes. */
async function emails(count: number, filler = 0): Promise<{ projectId: string; ids: string[] }> {
  const projectId = newId();
  const ids = Array.from({ length: count }, () => newId());
  const items = ids.map((id) =>
    put({ ...keys.email(projectId, id), type: 'email', id, project_id: projectId, filler: 'x'.repeat(filler) }),
  );
  for (let i = 0; i < items.length; i += 10) await transact(items.slice(i, i + 10));
  return { projectId, ids };
}

it('pages through every shard newest first with `after`, and back with `before`, each item once', async () => {
  const { projectId, ids } = await emails(60);
  const newestFirst = [...ids].reverse();
  expect(new Set(ids.map((id) => keys.email(projectId, id).PK)).size).toBeGreaterThan(8); // spread over the shards

  const forward: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await queryPage(keys.emails(projectId), { limit: 7, after });
    forward.push(...page.items.map((item) => item.id as string));
    if (!page.hasMore) break;
    after = page.items.at(-1)!.id as string;
  }
  expect(forward).toEqual(newestFirst);

  // `before` the 10th oldest: the 7 items just newer than it, still newest first
  const before = await queryPage(keys.emails(projectId), { limit: 7, before: ids[9] });
  expect(before.items.map((item) => item.id)).toEqual(ids.slice(10, 17).reverse());
  expect(before.hasMore).toBe(true);
});

it('cuts a page short at MAX_PAGE_BYTES and says there is more', async () => {
  const { projectId, ids } = await emails(20, 350 * 1024); // 20 items of 350 KB: 7 MB
  const page = await queryPage(keys.emails(projectId), { limit: 100 });
  const bytes = page.items.reduce((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0);
  expect(page.hasMore).toBe(true);
  expect(page.items.length).toBeLessThan(20);
  expect(bytes).toBeLessThanOrEqual(MAX_PAGE_BYTES);
  expect(page.items.map((item) => item.id)).toEqual([...ids].reverse().slice(0, page.items.length));
});
