/**
 * GET /emails' index (shared/emails/list-index.ts) and its reader (shared/emails/list-filters.ts)
 * against DynamoDB Local, below the API: a stream batch's changes of one email folded into the
 * entries of where it ends (none written for the statuses it only passed through), a status
 * change moving its entry, and a page whose second filter rejects more than MAX_EXAMINED
 * candidates cut short with a cursor to go on from, which then finds the match.
 */
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { queryPage, type Item } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { indexEmailChanges } from '../../shared/emails/list-index';
import { listEmails, MAX_EXAMINED } from '../../shared/emails/list-filters';
import { createOtherProject, useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();
jest.setTimeout(120_000);

const emailItem = (projectId: string, fields: Item = {}): Item => {
  const id = newId();
  return {
    ...keys.email(projectId, id),
    type: 'email',
    id,
    project_id: projectId,
    livemode: true,
    from: 'Shop <Shop@Example.com>',
    to: ['a@example.com'],
    cc: [],
    bcc: [],
    subject: 'Hi',
    tags: [{ name: 'campaign', value: 'spring' }],
    last_event: 'queued',
    created_at: new Date().toISOString(),
    expires_at: Math.floor(Date.now() / 1000) + 86_400,
    ...fields,
  };
};

/** The email ids an index collection holds. */
const entries = async (projectId: string, kind: keys.EmailFilterKind, value: string) =>
  (await queryPage(keys.emailsBy(projectId, kind, value), { limit: 100 })).items.map((e) => String(e.SK).slice(6));

describe('the index of GET /emails', () => {
  it("folds a batch's changes of an email into where it ends, and moves its status entry on a change", async () => {
    const { projectId } = await createOtherProject();
    const queued = emailItem(projectId);
    const sending = { ...queued, last_event: 'sending' };
    const sent = { ...queued, last_event: 'sent' };
    await indexEmailChanges([{ after: queued }, { before: queued, after: sending }, { before: sending, after: sent }]);
    expect(await entries(projectId, 'status', 'queued')).toEqual([]);
    expect(await entries(projectId, 'status', 'sending')).toEqual([]);
    expect(await entries(projectId, 'status', 'sent')).toEqual([queued.id]);
    expect(await entries(projectId, 'from', 'shop@example.com')).toEqual([queued.id]);
    expect(await entries(projectId, 'to', 'a@example.com')).toEqual([queued.id]);
    expect(await entries(projectId, 'tag', 'campaign:spring')).toEqual([queued.id]);
    // the next batch: delivered; written twice (a retried batch) changes nothing
    const delivered = { ...queued, last_event: 'delivered' };
    await indexEmailChanges([{ before: sent, after: delivered }]);
    await indexEmailChanges([{ before: sent, after: delivered }]);
    expect(await entries(projectId, 'status', 'sent')).toEqual([]);
    expect(await entries(projectId, 'status', 'delivered')).toEqual([queued.id]);
  });

  it('cuts a page short after MAX_EXAMINED candidates the other filters reject, with a cursor that goes on to the match', async () => {
    const { projectId } = await createOtherProject();
    const match = emailItem(projectId, { last_event: 'bounced' });
    // newer than the match: delivered emails of the same tag, more than one request examines
    const others = Array.from({ length: MAX_EXAMINED + 50 }, () => emailItem(projectId, { last_event: 'delivered' }));
    const all = [match, ...others];
    for (let i = 0; i < all.length; i += 25)
      await documentClient.send(
        new BatchWriteCommand({
          RequestItems: { [runtime.tableName]: all.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
        }),
      );
    await indexEmailChanges(all.map((after) => ({ after })));
    const caller = { projectId, livemode: true } as Parameters<typeof listEmails>[0];
    const filters = { tag: 'campaign:spring', status: 'bounced' };
    const first = await listEmails(caller, { limit: 10 }, filters);
    expect(first.records).toEqual([]);
    expect(first.hasMore).toBe(true);
    expect(first.cursor).toBe(others[50].id); // the 1,000th newest
    const second = await listEmails(caller, { limit: 10, after: first.cursor }, filters);
    expect(second.records.map((r) => r.id)).toEqual([match.id]);
    expect(second.hasMore).toBe(false);
    // one filter alone keeps every entry it reads
    const tagged = await listEmails(caller, { limit: 100 }, { tag: filters.tag });
    expect(tagged.records).toHaveLength(100);
    expect(tagged.cursor).toBe(tagged.records[99].id);
  });
});
