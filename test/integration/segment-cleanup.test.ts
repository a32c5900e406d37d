/**
 * Deleting a segment of any size answers at once and leaves no memberships behind: the request
 * removes up to MEMBERS_REMOVED_IN_REQUEST members, and the collection-cleanup worker, fed by the
 * table's stream (the runtime's stream poller, as Lambda's event source mapping), removes the
 * rest, also when the request died right after deleting the segment item.
 */
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { handler as segmentCleanup } from '../../functions/workers/collection-cleanup';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { del, getItem, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { MEMBERS_REMOVED_IN_REQUEST } from '../../shared/audience/segments';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

const runtime = useRuntimeTable();

/** A segment (and a second one the contacts are also in) of `size` members, written directly: thousands of POSTs would take minutes. */
async function seedSegment(projectId: string, size: number, options: { withSegmentItem: boolean }) {
  const segmentId = newId();
  const keptId = newId();
  const at = new Date().toISOString();
  const base = { project_id: projectId, created_at: at, updated_at: at };
  const contactIds = Array.from({ length: size }, () => newId());
  const items = [
    ...(options.withSegmentItem
      ? [{ ...keys.segment(projectId, segmentId), ...base, type: 'segment', id: segmentId, name: 'Doomed' }]
      : []),
    { ...keys.segment(projectId, keptId), ...base, type: 'segment', id: keptId, name: 'Kept' },
    ...contactIds.map((id, i) => ({
      ...keys.contact(projectId, id),
      ...base,
      type: 'contact',
      id,
      email: `member${i}@example.com`,
      first_name: null,
      last_name: null,
      unsubscribed: false,
      properties: {},
      segment_ids: [keptId, segmentId],
      topics: {},
    })),
    ...contactIds.flatMap((id) =>
      [segmentId, keptId].map((sid) => ({
        ...keys.segmentMember(projectId, sid, id),
        ...base,
        type: 'segment_member',
        segment_id: sid,
        contact_id: id,
      })),
    ),
  ];
  for (let i = 0; i < items.length; i += 25) {
    let pending = items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const out = await documentClient.send(new BatchWriteCommand({ RequestItems: { [runtime.tableName]: pending } }));
      pending = (out.UnprocessedItems?.[runtime.tableName] ?? []) as typeof pending;
    }
  }
  return { segmentId, keptId, contactIds };
}

async function memberCount(projectId: string, segmentId: string): Promise<number> {
  const { PK, prefix } = keys.segmentMembers(projectId, segmentId);
  let count = 0;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: runtime.tableName,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
        ExpressionAttributeValues: { ':pk': PK, ':p': prefix },
        Select: 'COUNT',
        ExclusiveStartKey,
      }),
    );
    count += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

async function expectOnlyKept(projectId: string, contactIds: string[], keptId: string) {
  for (const id of contactIds) expect((await getItem(keys.contact(projectId, id)))?.segment_ids).toEqual([keptId]);
}

function streamRecord(projectId: string, segmentId: string, sequence: string) {
  return {
    eventName: 'REMOVE' as const,
    dynamodb: {
      SequenceNumber: sequence,
      OldImage: { type: { S: 'segment' }, project_id: { S: projectId }, id: { S: segmentId } },
    },
  };
}

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs }) as Context;

it(`deletes a segment of more than ${MEMBERS_REMOVED_IN_REQUEST} members over HTTP; the worker removes the rest, the contacts and their other segment stay`, async () => {
  const other = await createOtherProject();
  const size = MEMBERS_REMOVED_IN_REQUEST + 150;
  const { segmentId, keptId, contactIds } = await seedSegment(other.projectId, size, { withSegmentItem: true });

  const res = await api.delete(`/segments/${segmentId}`, { key: other.key });
  expect(res).toMatchObject({ status: 200, body: { object: 'segment', id: segmentId, deleted: true } });

  // the worker's part, fed by the stream of the shared runtime (whose other work this test must not wait for)
  await waitFor(
    () => memberCount(other.projectId, segmentId),
    (count) => count === 0,
    30_000,
    250,
  );
  expect(await memberCount(other.projectId, keptId)).toBe(size);
  await expectOnlyKept(other.projectId, contactIds, keptId);
  expect((await api.get(`/contacts?segment_id=${keptId}&limit=1`, { key: other.key })).status).toBe(200);
}, 120_000);

it('cleans up after a DELETE that died right after removing the segment item (the stream record alone drives it)', async () => {
  const other = await createOtherProject();
  const { segmentId, keptId, contactIds } = await seedSegment(other.projectId, 120, { withSegmentItem: true });

  await transact([del(keys.segment(other.projectId, segmentId))]); // the request's first write, and nothing after it

  await waitFor(
    () => memberCount(other.projectId, segmentId),
    (count) => count === 0,
    30_000,
    250,
  );
  await expectOnlyKept(other.projectId, contactIds, keptId);
  expect(
    (await api.get(`/contacts/${contactIds[0]}/segments`, { key: other.key })).body.data.map(
      (s: { id: string }) => s.id,
    ),
  ).toEqual([keptId]);
}, 60_000);

it('reports a segment it had no time for as the failed record, and the retry finishes it', async () => {
  // No segment item (so no REMOVE record reaches the runtime's own worker): this test drives the handler.
  const other = await createOtherProject();
  const { segmentId, keptId, contactIds } = await seedSegment(other.projectId, 60, { withSegmentItem: false });
  const event = {
    Records: [streamRecord(other.projectId, segmentId, '200'), streamRecord(other.projectId, newId(), '300')],
  } as unknown as DynamoDBStreamEvent;

  // less time left than the safety margin: no page is started, and the retry starts from this record
  expect(await segmentCleanup(event, contextWith(1_000))).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }] });
  expect(await memberCount(other.projectId, segmentId)).toBe(60);

  expect(await segmentCleanup(event, contextWith(60_000))).toEqual({ batchItemFailures: [] });
  expect(await memberCount(other.projectId, segmentId)).toBe(0);
  await expectOnlyKept(other.projectId, contactIds, keptId);
});

it('skips a record that is not a segment item instead of blocking the stream', async () => {
  const event = {
    Records: [{ eventName: 'REMOVE', dynamodb: { SequenceNumber: '1', OldImage: { type: { S: 'segment' } } } }],
  } as unknown as DynamoDBStreamEvent;
  expect(await segmentCleanup(event, contextWith(60_000))).toEqual({ batchItemFailures: [] });
});
