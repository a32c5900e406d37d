/**
 * A deployment-wide HMAC key for signed links (a share link's: shared/emails/share.ts), kept as one
 * item of the table, sealed under the secrets key (./secrets.ts) and bound to its `place`, so a
 * sealed key copied into another item does not open. The first caller that may make it (`create`)
 * puts it with a condition, so concurrent first uses agree on one key; the routes that only check
 * links read it, and without one no link was ever signed, so every token is refused.
 *
 * Loaded once per process, and per function locally (./aws/call-guard.ts `grantScope`), as the
 * unsubscribe links' key is (shared/broadcasts/unsubscribe.ts, which keeps its own copy of this).
 */
import { randomBytes } from 'node:crypto';
import { grantScope } from './aws/call-guard';
import type { Key } from './db/keys';
import { getItem, isConditionFailed, type Item, put, putItem } from './db/table';
import { openSecret, sealSecret } from './secrets';

export interface LinkKey {
  /** the item that holds the sealed key */
  item: Key;
  /** what the sealed key is bound to (./secrets.ts `aad`), and the item's `type` */
  place: string;
}

const loaded = new Map<string, Promise<Buffer | undefined>>();

const keyOf = async (item: Item, place: string) =>
  Buffer.from(await openSecret(item.secret as string, place), 'base64');

async function load(link: LinkKey, create: boolean): Promise<Buffer | undefined> {
  const existing = await getItem(link.item);
  if (existing) return keyOf(existing, link.place);
  if (!create) return undefined;
  const fresh = randomBytes(32);
  try {
    const sealed = await sealSecret(fresh.toString('base64'), link.place);
    await putItem(
      put(
        { ...link.item, type: link.place, project_id: '-', secret: sealed },
        { ifAbsent: { tag: 'key exists', withItem: true } },
      ),
    );
    return fresh;
  } catch (error) {
    if (!isConditionFailed(error, 'key exists') || !error.item) throw error;
    return keyOf(error.item, link.place); // another process made it first: theirs, as the failed put found it
  }
}

/** The key; made when there is none and `create` is true, else undefined when there is none. */
export async function linkKey(link: LinkKey, create: boolean): Promise<Buffer | undefined> {
  const scope = `${grantScope()} ${link.place}`;
  let loading = loaded.get(scope);
  if (!loading) {
    loading = load(link, create);
    loaded.set(scope, loading);
    const forget = () => loaded.get(scope) === loading && loaded.delete(scope); // none yet, or failed: try again next time
    loading.then((key) => key || forget(), forget);
  }
  const key = await loading;
  return key || !create ? key : linkKey(link, create); // a read that found none was in flight
}
