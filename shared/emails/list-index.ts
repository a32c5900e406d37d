/**
 * The index GET /emails' filters read (./list-filters.ts): an entry per email and value it can be
 * found by (keys.emailIndexEntry: its status, its from address, each recipient, each tag), kept
 * from the table's stream of email items by the email-list-index worker. Every path that writes an
 * email (POST /emails, batches, broadcasts, automations, inboxes, the sender, the status worker,
 * cancel, retry) is covered without knowing of it, and an email's write stays as it was: the
 * entries cost their own write units (one per value; a status change two: the old status's entry
 * deleted, the new one put), counted in bench/RESULTS.md.
 *
 * Entries stand alone (keys only, the email's TTL) and are derived from the images, so a batch
 * written twice (a retried stream batch) writes the same entries: idempotent. The stream gives an
 * email's changes in order; within a batch they are folded per entry (the last change wins; an entry
 * put and deleted again in one batch is never written).
 */
import * as keys from '../platform/db/keys';
import type { Key } from '../platform/db/keys';
import { batchWrite, type Item } from '../platform/db/table';
import { bareAddressOf } from '../platform/mail/bare-address';

/** A tag as the index keeps it (and GET /emails' `tag` names it): `name:value` (neither holds a colon: ./model.ts allows letters, digits, _ and -). */
const tagKey = (tag: { name: string; value: string }): string => `${tag.name}:${tag.value}`;

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : [];

/** The (filter, value) pairs an email item is found by. */
export function filterValuesOf(email: Item): { kind: keys.EmailFilterKind; value: string }[] {
  const values: { kind: keys.EmailFilterKind; value: string }[] = [];
  if (typeof email.last_event === 'string') values.push({ kind: 'status', value: email.last_event });
  if (typeof email.from === 'string') values.push({ kind: 'from', value: bareAddressOf(email.from) });
  const recipients = new Set([...list(email.to), ...list(email.cc), ...list(email.bcc)].map(bareAddressOf));
  for (const recipient of recipients) values.push({ kind: 'to', value: recipient });
  const tags = new Set(((email.tags ?? []) as { name: string; value: string }[]).map(tagKey));
  for (const tag of tags) values.push({ kind: 'tag', value: tag });
  return values.filter((v) => v.value);
}

/** One email item's change as the stream gives it: its image before (none for an insert) and after. */
export interface EmailChange {
  before?: Item;
  after: Item;
}

const entryKeys = (email: Item): Map<string, Key> =>
  new Map(
    filterValuesOf(email).map(({ kind, value }) => {
      const key = keys.emailIndexEntry(String(email.project_id), kind, value, String(email.id));
      return [`${key.PK}\n${key.SK}`, key];
    }),
  );

/** Writes the entries the changes (in stream order) add and deletes those they take away. */
export async function indexEmailChanges(changes: readonly EmailChange[]): Promise<void> {
  /** per entry: what the batch does with it last, and whether it was there before the batch */
  const planned = new Map<string, { key: Key; put?: Item; existed: boolean }>();
  for (const { before, after } of changes) {
    if (!after.project_id || !after.id) continue;
    const old = before ? entryKeys(before) : new Map<string, Key>();
    const now = entryKeys(after);
    for (const [id, key] of old) if (!now.has(id)) planned.set(id, { key, existed: planned.get(id)?.existed ?? true });
    for (const [id, key] of now) {
      if (old.has(id) && !planned.has(id)) continue; // unchanged, and already written
      const item = { ...key, ...(typeof after.expires_at === 'number' ? { expires_at: after.expires_at } : {}) };
      planned.set(id, { key, put: item, existed: planned.get(id)?.existed ?? false });
    }
  }
  const puts: Item[] = [];
  const deletes: Key[] = [];
  for (const { key, put, existed } of planned.values()) {
    if (put) puts.push(put);
    else if (existed) deletes.push(key);
  }
  await batchWrite(puts, deletes);
}
