/**
 * Resend's batch suppressions (`suppressions.batch.add` / `.remove`: POST /suppressions/batch/add
 * and /batch/remove) through the official SDK and over HTTP: up to 100 per call, validated all or
 * nothing, each entry written with its event, several transactions for a batch of 100, a repeated
 * call completing what an earlier one left, racing calls agreeing on one entry per address; and
 * Resend's `origin`/`source_id` on every record, with the `origin` filter of the list.
 * Each test works in a project of its own, so counts of entries and events are exact.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { Resend } from 'resend';
import type { Caller } from '../../shared/platform/caller';
import { documentClient } from '../../shared/platform/db/client';
import {
  addSuppressions,
  deleteSuppression,
  removeSuppressions,
  suppressAddress,
} from '../../shared/suppressions/suppressions';
import { api, baseUrl } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';

useRuntimeTable();

const stamp = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const addresses = (label: string, count: number) => {
  const run = stamp();
  return Array.from({ length: count }, (_, i) => `${label}-${i}-${run}@example.com`);
};

/** `data` of an SDK answer, failing the test with the SDK's error if there is one. */
function dataOf<T>(answer: { data: T | null; error: unknown }): T {
  expect(answer.error).toBeNull();
  return answer.data as T;
}

/** A batch answer's items: the SDK's types, with the fields we add beside them. */
type Added = { object: 'suppression'; id: string; email: string; created: boolean };
type Removed = { object: 'suppression'; id: string | null; email: string | null; deleted: boolean };

/** A project of its own, with the SDK on its key. */
async function project() {
  const other = await createOtherProject();
  return { ...other, resend: new Resend(other.key, { baseUrl: baseUrl() }) };
}

/** The project's suppression events of one type, as `{id, email}` of the entry each is about. */
async function eventsOf(projectId: string, type: 'suppression.added' | 'suppression.removed') {
  return (await projectEvents(projectId)).map((item) => item.event).filter((e) => e.type === type);
}

/** Every entry of the project, newest first (pages of 100). */
async function allEntries(key: string): Promise<Record<string, any>[]> {
  const entries: Record<string, any>[] = [];
  let after = '';
  for (;;) {
    const page = await api.get(`/suppressions?limit=100${after}`, { key });
    expect(page.status).toBe(200);
    entries.push(...page.body.data);
    if (!page.body.has_more) return entries;
    after = `&after=${page.body.data.at(-1).id}`;
  }
}

describe('POST /suppressions/batch/add (suppressions.batch.add)', () => {
  it('adds manual entries in the order given, answers an already suppressed address with its entry, and writes one event per new entry', async () => {
    const { projectId, key, resend } = await project();
    const [fresh1, fresh2, bounced] = addresses('add', 3);
    await suppressAddress(projectId, {
      email: bounced,
      source: 'bounce',
      subtype: 'General',
      reason: 'smtp; 550',
      message_id: 'e-9',
    });
    const existing = (await api.get(`/suppressions/${encodeURIComponent(bounced)}`, { key })).body;

    const { data } = dataOf(
      await resend.suppressions.batch.add({
        emails: [fresh1, bounced.toUpperCase(), ` ${fresh2.toUpperCase()} `, fresh1],
      }),
    );
    expect(data).toEqual([
      { object: 'suppression', id: expect.any(String), email: fresh1, created: true },
      { object: 'suppression', id: existing.id, email: bounced, created: false },
      { object: 'suppression', id: expect.any(String), email: fresh2, created: true },
      { object: 'suppression', id: data[0].id, email: fresh1, created: true }, // named twice: one entry
    ]);

    // each new entry is a manual one, readable by id, with Resend's names beside the contract's
    const first = await resend.suppressions.get(data[0].id);
    expect(dataOf(first)).toEqual({
      object: 'suppression',
      id: data[0].id,
      email: fresh1,
      source: 'manual',
      origin: 'manual',
      subtype: null,
      reason: null,
      message_id: null,
      source_id: null,
      created_at: expect.any(String),
    });
    expect(dataOf(await resend.suppressions.get(bounced))).toMatchObject({
      id: existing.id,
      source: 'bounce',
      origin: 'bounce',
      message_id: 'e-9',
      source_id: 'e-9',
    });

    // one suppression.added per entry created here (the bounce entry's own came from SES feedback, before)
    const added = await eventsOf(projectId, 'suppression.added');
    expect(added.map((e) => e.data.id).sort()).toEqual([existing.id, data[0].id, data[2].id].sort());
    expect(added.find((e) => e.data.id === data[2].id).data).toMatchObject({
      email: fresh2,
      origin: 'manual',
      source_id: null,
      object: { id: data[2].id, source: 'manual' },
    });
  });

  it('takes 100 addresses (several transactions), and a second call with them creates nothing and answers the same ids', async () => {
    const { projectId, key, resend } = await project();
    const emails = addresses('hundred', 100);
    const data = dataOf(await resend.suppressions.batch.add({ emails })).data as Added[];
    expect(data.map((d) => d.email)).toEqual(emails);
    expect(data.every((d) => d.created)).toBe(true);
    expect(new Set(data.map((d) => d.id)).size).toBe(100);
    expect((await allEntries(key)).map((e) => e.id).sort()).toEqual(data.map((d) => d.id).sort());
    expect(await eventsOf(projectId, 'suppression.added')).toHaveLength(100);

    const again = await api.post('/suppressions/batch/add', { emails }, { key });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(data.map((d) => ({ ...d, created: false })));
    expect(await eventsOf(projectId, 'suppression.added')).toHaveLength(100);
  });

  it('completes what an interrupted call left: the entries already written keep their ids, the rest are created, each with one event', async () => {
    const { projectId, key } = await project();
    const emails = addresses('resume', 100);
    // what a call that died after its first two transactions (33 entries each) leaves behind
    const partial = await api.post('/suppressions/batch/add', { emails: emails.slice(0, 66) }, { key });
    expect(partial.status).toBe(200);

    const retried = await api.post('/suppressions/batch/add', { emails }, { key });
    expect(retried.status).toBe(200);
    expect(retried.body.data.slice(0, 66)).toEqual(partial.body.data.map((d: object) => ({ ...d, created: false })));
    expect(retried.body.data.slice(66).every((d: { created: boolean }) => d.created)).toBe(true);
    expect(await allEntries(key)).toHaveLength(100);
    const added = await eventsOf(projectId, 'suppression.added');
    expect(new Set(added.map((e) => e.data.email)).size).toBe(100);
    expect(added).toHaveLength(100);
  });

  it('gives racing calls for the same addresses one entry each, and both answers the same ids', async () => {
    const { projectId, key } = await project();
    const emails = addresses('race', 60);
    const [a, b] = await Promise.all([
      api.post('/suppressions/batch/add', { emails }, { key }),
      api.post('/suppressions/batch/add', { emails: [...emails].reverse() }, { key }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.data.map((d: { id: string }) => d.id).reverse()).toEqual(
      a.body.data.map((d: { id: string }) => d.id),
    );
    // each address created by exactly one of the two
    for (const [i, entry] of a.body.data.entries())
      expect(entry.created).not.toBe(b.body.data[emails.length - 1 - i].created);
    expect(await allEntries(key)).toHaveLength(60);
    expect(await eventsOf(projectId, 'suppression.added')).toHaveLength(60);
  });

  it.each([
    ['an invalid address at index 2', (ok: string[]) => ({ emails: [ok[0], ok[1], 'not-an-address'] }), 'emails.2'],
    ['a display name', (ok: string[]) => ({ emails: [ok[0], `Someone <${ok[1]}>`] }), 'emails.1'],
    [
      'an address over 254 characters',
      (ok: string[]) => ({ emails: [ok[0], `${'a'.repeat(250)}@example.com`] }),
      'emails.1',
    ],
    ['101 addresses', (ok: string[]) => ({ emails: [...ok, ...addresses('many', 99)] }), 'emails'],
    ['none', () => ({ emails: [] }), 'emails'],
    ['no emails', () => ({}), 'emails'],
    ['an unknown field', (ok: string[]) => ({ emails: [ok[0]], reason: 'x' }), 'reason'],
  ])('refuses %s with 422 naming it, and writes nothing', async (_, body, path) => {
    const { projectId, key } = await project();
    const ok = addresses('valid', 2);
    const res = await api.post('/suppressions/batch/add', body(ok), { key });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      name: 'validation_error',
      errors: expect.arrayContaining([expect.objectContaining({ path })]),
    });
    expect(await allEntries(key)).toEqual([]);
    expect(await eventsOf(projectId, 'suppression.added')).toEqual([]);
  });

  it('answers the SDK the same 422 (the index in errors[].path)', async () => {
    const { resend } = await project();
    const answer = await resend.suppressions.batch.add({ emails: ['fine@example.com', 'nope'] });
    expect(answer.data).toBeNull();
    expect(answer.error).toMatchObject({
      name: 'validation_error',
      statusCode: 422,
      errors: [expect.objectContaining({ path: 'emails.1' })],
    });
  });
});

describe('POST /suppressions/batch/remove (suppressions.batch.remove)', () => {
  it('removes by address: deleted true for each entry, false for an address with none; one suppression.removed per entry', async () => {
    const { projectId, key, resend } = await project();
    const [a, b, never] = addresses('remove', 3);
    const { data: added } = dataOf(await resend.suppressions.batch.add({ emails: [a, b] }));

    const { data } = dataOf(await resend.suppressions.batch.remove({ emails: [b.toUpperCase(), never, a] }));
    expect(data).toEqual([
      { object: 'suppression', id: added[1].id, email: b, deleted: true },
      { object: 'suppression', id: null, email: never, deleted: false },
      { object: 'suppression', id: added[0].id, email: a, deleted: true },
    ]);
    expect(await allEntries(key)).toEqual([]);
    const removed = await eventsOf(projectId, 'suppression.removed');
    expect(removed.map((e) => e.data.id).sort()).toEqual([added[0].id, added[1].id].sort());
    expect(removed[0].data).toMatchObject({
      origin: 'manual',
      source_id: null,
      object: { source: 'manual', origin: 'manual' },
    });

    // again: nothing left to remove, and no error (a retried call succeeds)
    expect(dataOf(await resend.suppressions.batch.remove({ emails: [a, b] })).data.map((d) => d.deleted)).toEqual([
      false,
      false,
    ]);
    expect(await eventsOf(projectId, 'suppression.removed')).toHaveLength(2);
  });

  it('removes by id, bounce and complaint entries too; an unknown id is deleted false', async () => {
    const { projectId, key, resend } = await project();
    const [bounced, manual] = addresses('by-id', 2);
    await suppressAddress(projectId, {
      email: bounced,
      source: 'bounce',
      subtype: 'General',
      reason: 'gone',
      message_id: 'e-1',
    });
    const bounceEntry = (await api.get(`/suppressions/${encodeURIComponent(bounced)}`, { key })).body;
    const manualEntry = (await api.post('/suppressions', { email: manual }, { key })).body;
    const unknown = '01a20280-902e-70b0-b281-d9d957510688';

    const { data } = dataOf(await resend.suppressions.batch.remove({ ids: [bounceEntry.id, unknown, manualEntry.id] }));
    expect(data).toEqual([
      { object: 'suppression', id: bounceEntry.id, email: bounced, deleted: true },
      { object: 'suppression', id: unknown, email: null, deleted: false },
      { object: 'suppression', id: manualEntry.id, email: manual, deleted: true },
    ]);
    expect((await api.get(`/suppressions/${encodeURIComponent(bounced)}`, { key })).status).toBe(404);
    expect(
      (await eventsOf(projectId, 'suppression.removed')).find((e) => e.data.id === bounceEntry.id).data,
    ).toMatchObject({ origin: 'bounce', source_id: 'e-1' });
  });

  it('removes 100 entries (several transactions), each with its event', async () => {
    const { projectId, key, resend } = await project();
    const emails = addresses('remove-hundred', 100);
    const added = dataOf(await resend.suppressions.batch.add({ emails })).data as Added[];
    const data = dataOf(await resend.suppressions.batch.remove({ ids: added.map((d) => d.id) })).data as Removed[];
    expect(data.map((d) => [d.id, d.email, d.deleted])).toEqual(added.map((d) => [d.id, d.email, true]));
    expect(await allEntries(key)).toEqual([]);
    expect(await eventsOf(projectId, 'suppression.removed')).toHaveLength(100);
  });

  it('gives racing removals of the same entries one deletion each (one event each)', async () => {
    const { projectId, key } = await project();
    const emails = addresses('race-remove', 40);
    await api.post('/suppressions/batch/add', { emails }, { key });
    const [a, b] = await Promise.all([
      api.post('/suppressions/batch/remove', { emails }, { key }),
      api.post('/suppressions/batch/remove', { emails: [...emails].reverse() }, { key }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    for (const [i, entry] of a.body.data.entries())
      expect(entry.deleted).not.toBe(b.body.data[emails.length - 1 - i].deleted);
    expect(await allEntries(key)).toEqual([]);
    expect(await eventsOf(projectId, 'suppression.removed')).toHaveLength(40);
  });

  it.each([
    ['both emails and ids', { emails: ['a@example.com'], ids: ['01a20280-902e-70b0-b281-d9d957510688'] }, 'ids'],
    ['neither', {}, 'ids'],
    ['an id that is no UUID', { ids: ['01a20280-902e-70b0-b281-d9d957510688', 'x'] }, 'ids.1'],
    ['an invalid address', { emails: ['a@example.com', 'b@example.com', 'nope'] }, 'emails.2'],
    ['101 ids', { ids: Array.from({ length: 101 }, () => '01a20280-902e-70b0-b281-d9d957510688') }, 'ids'],
  ])('refuses %s with 422 naming it, and removes nothing', async (_, body, path) => {
    const { key } = await project();
    const kept = (await api.post('/suppressions', { email: 'a@example.com' }, { key })).body;
    const res = await api.post('/suppressions/batch/remove', body, { key });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      name: 'validation_error',
      errors: expect.arrayContaining([expect.objectContaining({ path })]),
    });
    expect((await allEntries(key)).map((e) => e.id)).toEqual([kept.id]);
  });

  it("never touches another project's entries", async () => {
    const mine = await project();
    const theirs = await project();
    const [address] = addresses('isolated', 1);
    const { data: added } = dataOf(await theirs.resend.suppressions.batch.add({ emails: [address] }));
    expect(dataOf(await mine.resend.suppressions.batch.remove({ ids: [added[0].id] })).data[0].deleted).toBe(false);
    expect(dataOf(await mine.resend.suppressions.batch.remove({ emails: [address] })).data[0].deleted).toBe(false);
    expect((await allEntries(theirs.key)).map((e) => e.id)).toEqual([added[0].id]);
  });
});

describe('a writer between the read and the transaction', () => {
  /** Runs `call` with `meanwhile` done right after its (first) BatchGet answered: another writer, between the batch's read and its writes. */
  async function withWriterBetween<T>(meanwhile: () => Promise<unknown>, call: () => Promise<T>): Promise<T> {
    const send = documentClient.send.bind(documentClient) as (command: unknown) => Promise<unknown>;
    let pending = true;
    const spy = jest.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
      const out = await send(command);
      if (pending && command instanceof BatchGetCommand) {
        pending = false;
        await meanwhile();
      }
      return out;
    }) as never);
    try {
      return await call();
    } finally {
      spy.mockRestore();
    }
  }

  it('add: the address suppressed meanwhile keeps that entry (created false); the others of its transaction are written', async () => {
    const { projectId } = await project();
    const caller: Caller = { projectId, livemode: true, permission: 'full_access' };
    const emails = addresses('between-add', 5);
    const answer = await withWriterBetween(
      () =>
        suppressAddress(projectId, {
          email: emails[3],
          source: 'complaint',
          subtype: 'abuse',
          reason: null,
          message_id: 'e-5',
        }),
      () => addSuppressions(caller, emails),
    );
    const theirs = (await eventsOf(projectId, 'suppression.added')).find((e) => e.data.email === emails[3]);
    expect(answer.map((a) => a.created)).toEqual([true, true, true, false, true]);
    expect(answer[3].id).toBe(theirs.data.id);
    expect(await eventsOf(projectId, 'suppression.added')).toHaveLength(5); // four of ours, one of the other writer
  });

  it("remove: the entry removed meanwhile is deleted false (one event, the other writer's); the others are removed", async () => {
    const { projectId } = await project();
    const caller: Caller = { projectId, livemode: true, permission: 'full_access' };
    const emails = addresses('between-remove', 4);
    await addSuppressions(caller, emails);
    const answer = await withWriterBetween(
      () => deleteSuppression(caller, emails[1]),
      () => removeSuppressions(caller, { emails }),
    );
    expect(answer.map((a) => a.deleted)).toEqual([true, false, true, true]);
    expect(await eventsOf(projectId, 'suppression.removed')).toHaveLength(4);
  });
});

describe("Resend's origin and source_id (SDK)", () => {
  it('are on every record: add, get, list, and list filters by origin', async () => {
    const { projectId, resend } = await project();
    const [manual, bounced] = addresses('origin', 2);
    const added = dataOf(await resend.suppressions.add({ email: manual }));
    expect(added).toMatchObject({ object: 'suppression', id: expect.any(String), origin: 'manual', source_id: null });
    await suppressAddress(projectId, {
      email: bounced,
      source: 'bounce',
      subtype: 'General',
      reason: 'gone',
      message_id: 'e-7',
    });

    const all = dataOf(await resend.suppressions.list());
    expect(all.data.map((s) => [s.email, s.origin, s.source_id])).toEqual([
      [bounced, 'bounce', 'e-7'],
      [manual, 'manual', null],
    ]);
    expect(dataOf(await resend.suppressions.list({ origin: 'bounce' })).data.map((s) => s.email)).toEqual([bounced]);
    expect(dataOf(await resend.suppressions.list({ origin: 'manual', limit: 1 })).data.map((s) => s.email)).toEqual([
      manual,
    ]);
    expect(dataOf(await resend.suppressions.list({ origin: 'complaint' })).data).toEqual([]);
  });
});
