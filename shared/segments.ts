/**
 * Segments: named groups of contacts that broadcasts are sent to. The contract gives them no
 * fields beyond `id`; like Resend they have a `name` and `created_at`.
 */
import type { Caller } from './caller';
import * as keys from './db/keys';
import { del, getItem, put, putItem, queryPage, transact, type PageRequest } from './db/table';
import { notFound } from './errors';
import { newId, nowIso } from './ids';

export interface SegmentRecord {
  object: 'segment';
  id: string;
  name: string;
  created_at: string;
}

const toRecord = (item: Record<string, unknown>): SegmentRecord => ({
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
  return toRecord(item);
}

export async function listSegments(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.segments(caller.projectId), page);
  return { records: items.map(toRecord), hasMore };
}

/** Deletes the segment; a second delete (or an unknown id) is 404. Memberships go with it once contacts exist. */
export async function deleteSegment(caller: Caller, segmentId: string): Promise<void> {
  await transact([del(keys.segment(caller.projectId, segmentId), { ifExists: missing })]);
}
