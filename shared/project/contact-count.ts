/**
 * How many contacts a project has (GET /usage), without reading them: CONTACT_COUNT_SHARDS counters
 * (keys.contactCount), one picked at random by each create (+1) and delete (-1) in its own
 * transaction, so a busy import's transactions rarely share one. Contacts made before the
 * counters existed are counted by `recountContacts` (`npm run project -- recount`), which sets the
 * counters from a COUNT Query of the project's contacts.
 */
import { projectSettings } from './settings';
import * as keys from '../platform/db/keys';
import { conflict } from '../platform/errors';
import { batchGet, countItems, isConditionFailed, transact, update, type WriteAction } from '../platform/db/table';

export const CONTACT_COUNT_SHARDS = 8;
const shards = (projectId: string) =>
  Array.from({ length: CONTACT_COUNT_SHARDS }, (_, shard) => keys.contactCount(projectId, shard));

/** `by` contacts more (or fewer) for the project: a write for the transaction that creates or deletes them. */
export const contactCountWrite = (projectId: string, by: number): WriteAction =>
  update(keys.contactCount(projectId, Math.floor(Math.random() * CONTACT_COUNT_SHARDS)), { add: { n: by } });

export async function contactCount(projectId: string): Promise<number> {
  return (await batchGet(shards(projectId))).reduce((sum, item) => sum + Number(item.n ?? 0), 0);
}

/** How many more contacts the project may hold under its contact limit (shared/project/settings.ts). */
export async function contactRoom(projectId: string): Promise<{ limit: number; room: number }> {
  const [settings, count] = await Promise.all([projectSettings(projectId), contactCount(projectId)]);
  return { limit: settings.contact_limit, room: Math.max(0, settings.contact_limit - count) };
}

/** 409 for a create past the project's contact limit. */
export const contactLimitReached = (limit: number) =>
  conflict(
    'contact_limit_reached',
    `The project holds its limit of ${limit} contacts: delete some, or ask the operator for a higher limit (npm run project -- limits --contacts)`,
  );

/**
 * Sets the counters to the number of contacts a COUNT Query finds: shard 0 takes what the others
 * do not hold, on the condition that none of them moved meanwhile (else it reads again).
 */
export async function recountContacts(projectId: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const [counted, items] = await Promise.all([countItems(keys.contacts(projectId)), batchGet(shards(projectId))]);
    const held = new Map(items.map((item) => [String(item.SK), Number(item.n ?? 0)]));
    const others = shards(projectId).slice(1);
    try {
      await transact([
        update(keys.contactCount(projectId, 0), {
          set: { n: counted - others.reduce((sum, key) => sum + (held.get(key.SK) ?? 0), 0) },
        }),
        ...others.map((key) =>
          update(
            key,
            {
              add: { n: 0 },
              condition: {
                expression: held.has(key.SK) ? 'n = :n' : 'attribute_not_exists(n) OR n = :zero',
                values: held.has(key.SK) ? { ':n': held.get(key.SK) } : { ':zero': 0 },
              },
            },
            { tag: 'moved' },
          ),
        ),
      ]);
      return counted;
    } catch (error) {
      if (!isConditionFailed(error, 'moved') || attempt >= 5) throw error;
    }
  }
}
