/**
 * Segments: named groups of contacts that broadcasts are sent to. The contract gives them no
 * fields beyond `id`; like Resend they have a `name` and `created_at`. Membership lives with the
 * contacts (shared/contacts.ts): a member item per contact in the segment's own partition and the
 * segment's id in the contact's `segment_ids`.
 */
import type { Caller } from './caller';
import * as keys from './db/keys';
import { batchGet, del, getItem, isTransactionConflict, put, putItem, queryPage, transact, update, updateItem, type Item, type PageRequest, type WriteAction } from './db/table';
import { notFound } from './errors';
import { newId, nowIso } from './ids';

export interface SegmentRecord {
  object: 'segment';
  id: string;
  name: string;
  created_at: string;
}

export const toSegmentRecord = (item: Record<string, unknown>): SegmentRecord => ({
  object: 'segment',
  id: item.id as string,
  name: item.name as string,
  created_at: item.created_at as string,
});

const missing = () => notFound('Segment', 'segment_id');

export async function createSegment(caller: Caller, input: { name: string }): Promise<SegmentRecord> {
  const record: SegmentRecord = { object: 'segment', id: newId(), name: input.name, created_at: nowIso() };
  await putItem(put({ ...keys.segment(caller.projectId, record.id), type: 'segment', project_id: caller.projectId, ...record }));
  return record;
}

export async function getSegment(caller: Caller, segmentId: string): Promise<SegmentRecord> {
  const item = await getItem(keys.segment(caller.projectId, segmentId));
  if (!item) throw missing();
  return toSegmentRecord(item);
}

export async function listSegments(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.segments(caller.projectId), page);
  return { records: items.map(toSegmentRecord), hasMore };
}

/** Renames the segment (the Resend SDK's `segments.update`). */
export async function updateSegment(caller: Caller, segmentId: string, input: { name: string }): Promise<SegmentRecord> {
  const item = await updateItem(update(keys.segment(caller.projectId, segmentId), { set: { name: input.name }, condition: { expression: 'attribute_exists(PK)' } }, missing));
  return toSegmentRecord(item);
}

/**
 * Deletes the segment, then its memberships; the contacts stay. A second delete (or an unknown
 * id) is 404.
 *
 * The segment item goes first, in a transaction of its own: from then on no contact can be added
 * to it (additions carry a ConditionCheck on the segment) and no broadcast can be created for it.
 * Then the members partition is read page by page and each member is removed from it and from its
 * contact's `segment_ids`, MEMBERS_PER_TRANSACTION at a time (two actions each; a large segment
 * needs many transactions, never one). A crash between two of them leaves memberships of a
 * segment that no longer exists: harmless, because a broadcast to a deleted segment is
 * impossible and readers drop the ids of segments that do not exist (GET
 * /contacts/{id}/segments), and the next change of such a contact's segments drops the id.
 */
export async function deleteSegment(caller: Caller, segmentId: string): Promise<void> {
  await transact([del(keys.segment(caller.projectId, segmentId), { ifExists: missing })]);
  await removeMemberships(caller.projectId, segmentId);
}

const MEMBERS_PER_TRANSACTION = 50;
const MEMBERS_PER_PAGE = 4 * MEMBERS_PER_TRANSACTION;

async function removeMemberships(projectId: string, segmentId: string): Promise<void> {
  let after: string | undefined;
  for (;;) {
    const { items, hasMore } = await queryPage(keys.segmentMembers(projectId, segmentId), { limit: MEMBERS_PER_PAGE, after });
    const contactIds = items.map((m) => m.contact_id as string);
    const chunks: string[][] = [];
    for (let i = 0; i < contactIds.length; i += MEMBERS_PER_TRANSACTION) chunks.push(contactIds.slice(i, i + MEMBERS_PER_TRANSACTION));
    await Promise.all(chunks.map((chunk) => removeMembers(projectId, segmentId, chunk))); // disjoint contacts: no conflicts
    if (!hasMore || contactIds.length === 0) return;
    after = contactIds[contactIds.length - 1];
  }
}

/** A contact changed between our read and our write. */
class ContactChanged extends Error {}

/** One transaction: each member item, and the segment's id out of each contact's `segment_ids` (only if unchanged since read). */
async function removeMembers(projectId: string, segmentId: string, contactIds: string[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const contacts = await batchGet(contactIds.map((contactId) => keys.contact(projectId, contactId)));
    const byId = new Map<string, Item>(contacts.map((c) => [c.id, c]));
    const actions: WriteAction[] = contactIds.flatMap((contactId) => {
      const membership = del(keys.segmentMember(projectId, segmentId, contactId));
      const segmentIds = (byId.get(contactId)?.segment_ids ?? []) as string[];
      if (!segmentIds.includes(segmentId)) return [membership];
      const condition = { expression: '#segment_ids = :read', names: { '#segment_ids': 'segment_ids' }, values: { ':read': segmentIds } };
      const set = { segment_ids: segmentIds.filter((id) => id !== segmentId) };
      return [membership, update(keys.contact(projectId, contactId), { set, condition }, () => new ContactChanged())];
    });
    try {
      await transact(actions);
      return;
    } catch (error) {
      if (!(error instanceof ContactChanged || isTransactionConflict(error)) || attempt >= 4) throw error; // a contact changed meanwhile: read again
    }
  }
}
