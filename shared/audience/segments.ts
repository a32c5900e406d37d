/**
 * Segments: named groups of contacts that broadcasts are sent to. The contract gives them no
 * fields beyond `id`; like Resend they have a `name` and `created_at`. Membership lives with the
 * contacts (shared/audience/contacts.ts): a member item per contact in the segment's own partition and the
 * segment's id in the contact's `segment_ids`.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  isTransactionConflict,
  put,
  putItem,
  queryPage,
  transact,
  update,
  updateItem,
  type Item,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { notFound } from '../platform/errors';
import { logger } from '../platform/log';
import { newId, nowIso } from '../platform/ids';
import type { SegmentRecord } from './model';

export const toSegmentRecord = (item: Record<string, unknown>): SegmentRecord => ({
  object: 'segment',
  id: item.id as string,
  name: item.name as string,
  created_at: item.created_at as string,
});

const missing = () => notFound('Segment', 'segment_id');

export async function createSegment(caller: Caller, input: { name: string }): Promise<SegmentRecord> {
  const record: SegmentRecord = { object: 'segment', id: newId(), name: input.name, created_at: nowIso() };
  await putItem(
    put({ ...keys.segment(caller.projectId, record.id), type: 'segment', project_id: caller.projectId, ...record }),
  );
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
export async function updateSegment(
  caller: Caller,
  segmentId: string,
  input: { name: string },
): Promise<SegmentRecord> {
  const item = await updateItem(
    update(
      keys.segment(caller.projectId, segmentId),
      { set: { name: input.name }, condition: { expression: 'attribute_exists(PK)' } },
      missing,
    ),
  );
  return toSegmentRecord(item);
}

/**
 * Deletes the segment, then its memberships; the contacts stay. A second delete (or an unknown
 * id) is 404.
 *
 * The segment item goes first, in a transaction of its own: from then on no contact can be added
 * to it (additions carry a ConditionCheck on the segment) and no broadcast can be created for it.
 * Then the members are removed, a page at a time: each member item and the segment's id in its
 * contact's `segment_ids`, MEMBERS_PER_TRANSACTION contacts per transaction (a large segment
 * needs many transactions, never one).
 *
 * The request removes at most MEMBERS_REMOVED_IN_REQUEST members, and starts no page of them
 * once less than REQUEST_TIME_LEFT_MS of its function's time is left, so a segment of any size
 * is deleted within the function's timeout, however slow the table answers. The segment item's removal is also a stream record
 * that the collection-cleanup worker (functions/workers.ts) takes: it removes whatever the request
 * left (the rest of a large segment, or all of it when the request died after its first write),
 * retried until done. Both go over the same items and every step is idempotent, so they can
 * overlap. Until the worker is done, readers drop the ids of segments that do not exist (GET
 * /contacts/{id}/segments), and the next change of such a contact's segments drops the id.
 */
export async function deleteSegment(caller: Caller, segmentId: string, requestDeadline?: number): Promise<void> {
  await transact([del(keys.segment(caller.projectId, segmentId), { ifExists: missing })]);
  try {
    const deadline = requestDeadline === undefined ? undefined : requestDeadline - REQUEST_TIME_LEFT_MS;
    await removeMemberships(caller.projectId, segmentId, { maxMembers: MEMBERS_REMOVED_IN_REQUEST, deadline });
  } catch (error) {
    // the segment is gone, which is what the caller asked for; the worker finishes its memberships
    logger.warn('segment memberships left to the collection-cleanup worker', {
      project_id: caller.projectId,
      segment_id: segmentId,
      error,
    });
  }
}

/**
 * The collection-cleanup worker's part: removes the memberships of a deleted segment until none is
 * left (true) or `deadline` (epoch ms) has passed (false: call again, nothing done is lost).
 */
export async function removeDeletedSegmentMemberships(
  projectId: string,
  segmentId: string,
  deadline: number,
): Promise<boolean> {
  return removeMemberships(projectId, segmentId, { deadline });
}

const MEMBERS_PER_TRANSACTION = 50;
const MEMBERS_PER_PAGE = 4 * MEMBERS_PER_TRANSACTION;
/** Five pages: a few seconds at worst; most segments are done before the response. */
export const MEMBERS_REMOVED_IN_REQUEST = 5 * MEMBERS_PER_PAGE;
/** Time a page of removals may take at worst, and the answer after it: no page starts with less left. */
const REQUEST_TIME_LEFT_MS = 4_000;

/** Removes members page by page; true when the segment has none left, false when a limit stopped it first. */
async function removeMemberships(
  projectId: string,
  segmentId: string,
  limits: { maxMembers?: number; deadline?: number },
): Promise<boolean> {
  let removed = 0;
  let after: string | undefined;
  for (;;) {
    if (
      (limits.maxMembers !== undefined && removed >= limits.maxMembers) ||
      (limits.deadline !== undefined && Date.now() >= limits.deadline)
    )
      return false; // machine time: a budget of work
    const { items, hasMore } = await queryPage(keys.segmentMembers(projectId, segmentId), {
      limit: MEMBERS_PER_PAGE,
      after,
    });
    const contactIds = items.map((m) => m.contact_id as string);
    const chunks: string[][] = [];
    for (let i = 0; i < contactIds.length; i += MEMBERS_PER_TRANSACTION)
      chunks.push(contactIds.slice(i, i + MEMBERS_PER_TRANSACTION));
    await Promise.all(chunks.map((chunk) => removeMembers(projectId, segmentId, chunk))); // disjoint contacts: no conflicts
    removed += contactIds.length;
    if (!hasMore || contactIds.length === 0) return true;
    after = contactIds[contactIds.length - 1];
  }
}

/** One transaction: each member item, and the segment's id out of each contact's `segment_ids` (only if unchanged since read). */
async function removeMembers(projectId: string, segmentId: string, contactIds: string[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const contacts = await batchGet(contactIds.map((contactId) => keys.contact(projectId, contactId)));
    const byId = new Map<string, Item>(contacts.map((c) => [c.id, c]));
    const actions: WriteAction[] = contactIds.flatMap((contactId) => {
      const membership = del(keys.segmentMember(projectId, segmentId, contactId));
      const segmentIds = (byId.get(contactId)?.segment_ids ?? []) as string[];
      if (!segmentIds.includes(segmentId)) return [membership];
      const condition = {
        expression: '#segment_ids = :read',
        names: { '#segment_ids': 'segment_ids' },
        values: { ':read': segmentIds },
      };
      const set = { segment_ids: segmentIds.filter((id) => id !== segmentId) };
      return [membership, update(keys.contact(projectId, contactId), { set, condition }, { tag: 'contact changed' })];
    });
    try {
      await transact(actions);
      return;
    } catch (error) {
      if (!(isConditionFailed(error, 'contact changed') || isTransactionConflict(error)) || attempt >= 4) throw error; // a contact changed meanwhile: read again
    }
  }
}
