/**
 * Wiping a project's test data (`npm run project -- wipe-test-data --project ID`): every item of the
 * project's test twin (./test-mode.ts) goes, except its credentials (test API keys, OAuth clients and
 * grants, so the CI that calls it keeps working). The live project is never touched: whatever id is
 * passed, only its twin's partitions are read (keys.projectPartitions lists them; no Scan).
 *
 * Not one transaction (a sandbox may hold millions of items): deletes go in transactions of up to 100
 * keys, partition by partition, the twin's own partition last, because its items (domains, segments,
 * broadcasts) name the other partitions: a wipe cut short (a deadline, a crash) finds them again when
 * run again, and a run again is always safe. What test mode writes meanwhile may survive a wipe.
 * Email bodies and attachments in S3 expire with the content bucket's lifecycle rule, as live ones do.
 */
import * as keys from '../platform/db/keys';
import { del, partitionKeys, queryPage, transact, type Item } from '../platform/db/table';
import { testProjectId } from './test-mode';

/** What a wipe keeps of the twin's own partition: what authenticates its callers. */
const KEPT = ['API_KEY#', 'OAUTH_CLIENT#', 'OAUTH_GRANT#'];

/** Every item of a collection under the twin's partition (its domains, segments and broadcasts: they name the other partitions). */
async function allOf(collection: { PK: string; prefix: string }): Promise<Item[]> {
  const items: Item[] = [];
  for (let after: string | undefined, more = true; more; ) {
    const page = await queryPage(collection, { limit: 100, after });
    items.push(...page.items);
    more = page.hasMore;
    after = page.items.at(-1)?.id as string | undefined;
  }
  return items;
}

export interface WipeResult {
  /** the test twin wiped */
  project_id: string;
  deleted: number;
  /** false when the deadline came first: run it again to go on */
  done: boolean;
}

export async function wipeTestData(projectId: string, options: { deadline?: number } = {}): Promise<WipeResult> {
  const twin = testProjectId(projectId);
  const base = keys.project(twin).PK;
  const [domains, segments, broadcasts, inboxes] = await Promise.all([
    allOf(keys.domains(twin)),
    allOf(keys.segments(twin)),
    allOf(keys.broadcasts(twin)),
    allOf(keys.inboxes(twin)),
  ]);
  const ids = (items: Item[]) => items.map((item) => String(item.id));
  const partitions = keys.projectPartitions(twin, {
    domainNames: domains.map((d) => String(d.name)),
    segmentIds: ids(segments),
    broadcastIds: ids(broadcasts),
    inboxIds: ids(inboxes),
    domainIds: ids(domains),
  });
  const ordered = [...partitions.filter((pk) => pk !== base), base];
  let deleted = 0;
  for (const PK of ordered) {
    for await (const page of partitionKeys(PK)) {
      const doomed = page.filter((key) => PK !== base || !KEPT.some((prefix) => key.SK.startsWith(prefix)));
      if (doomed.length) await transact(doomed.map((key) => del(key)));
      deleted += doomed.length;
      // machine time: `deadline` is a budget of work
      if (options.deadline && Date.now() > options.deadline) return { project_id: twin, deleted, done: false };
    }
  }
  return { project_id: twin, deleted, done: true };
}
