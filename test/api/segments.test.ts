import * as keys from '../../shared/platform/db/keys';
import { getItem } from '../../shared/platform/db/table';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

describe('segments', () => {
  it('creates a segment (201) and reads it back', async () => {
    const created = await api.post('/segments', { name: 'VIP' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'segment',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'VIP',
      created_at: expect.any(String),
    });
    expect(await api.get(`/segments/${created.body.id}`)).toMatchObject({ status: 200, body: created.body });
  });

  it('deletes a segment with exactly {object, id, deleted} and answers 404 the second time', async () => {
    const { body: segment } = await api.post('/segments', { name: 'Short-lived' });
    const first = await api.delete(`/segments/${segment.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'segment', id: segment.id, deleted: true });
    const second = await api.delete(`/segments/${segment.id}`);
    expect(second.status).toBe(404);
    expect(second.body).toMatchObject({ name: 'not_found', errors: [{ code: 'not_found', path: 'segment_id' }] });
    expect((await api.get(`/segments/${segment.id}`)).status).toBe(404);
    const listed = await api.get('/segments?limit=100');
    expect(listed.body.data.map((s: { id: string }) => s.id)).not.toContain(segment.id);
  });

  it('lists newest first and pages with limit, after and before', async () => {
    const other = await createOtherProject(); // a project of its own, so other suites' segments do not interfere
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      ids.push((await api.post('/segments', { name }, { key: other.key })).body.id);
    const newestFirst = [...ids].reverse();

    const first = await api.get('/segments?limit=2', { key: other.key });
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(0, 2));

    const second = await api.get(`/segments?limit=2&after=${newestFirst[1]}`, { key: other.key });
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));
    expect(second.body.has_more).toBe(true);

    const last = await api.get(`/segments?limit=2&after=${newestFirst[3]}`, { key: other.key });
    expect(last.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(4));
    expect(last.body.has_more).toBe(false);

    const back = await api.get(`/segments?limit=2&before=${newestFirst[4]}`, { key: other.key });
    expect(back.body.data.map((s: { id: string }) => s.id)).toEqual(newestFirst.slice(2, 4));

    const all = await api.get('/segments', { key: other.key });
    expect(all.body.data).toHaveLength(5);
  });

  it('refuses bad list parameters and bad ids with 422 naming them', async () => {
    const res = await api.get('/segments?limit=101');
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('limit');
    const both = await api.get(
      '/segments?after=01a20280-902e-70b0-b281-d9d957510688&before=01a20280-902e-70b0-b281-d9d957510688',
    );
    expect(both.status).toBe(422);
    const badId = await api.get('/segments/not-an-id');
    expect(badId.status).toBe(422);
    expect(badId.body.errors[0].path).toBe('segment_id');
  });

  it("never shows or deletes another project's segment (404)", async () => {
    const other = await createOtherProject();
    const { body: mine } = await api.post('/segments', { name: 'Mine' });
    expect((await api.get(`/segments/${mine.id}`, { key: other.key })).status).toBe(404);
    expect((await api.delete(`/segments/${mine.id}`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/segments/${mine.id}`)).status).toBe(200);
    expect((await api.get('/segments', { key: other.key })).body.data).toEqual([]);
  });

  it("renames a segment with PATCH (the Resend SDK's segments.update)", async () => {
    const { body: segment } = await api.post('/segments', { name: 'Old' });
    expect(await api.patch(`/segments/${segment.id}`, { name: 'New' })).toMatchObject({
      status: 200,
      body: { ...segment, name: 'New' },
    });
    expect((await api.get(`/segments/${segment.id}`)).body.name).toBe('New');
    expect((await api.patch(`/segments/${segment.id}`, { name: '' })).status).toBe(422);
    expect((await api.patch('/segments/01a20280-902e-70b0-b281-d9d957510688', { name: 'x' })).status).toBe(404);
  });

  it('deleting a segment removes its memberships, in several transactions, but not its contacts', async () => {
    const other = await createOtherProject();
    const { body: doomed } = await api.post('/segments', { name: 'Doomed' }, { key: other.key });
    const { body: kept } = await api.post('/segments', { name: 'Kept' }, { key: other.key });
    const contacts: string[] = [];
    for (let i = 0; i < 60; i++) {
      // more members than one transaction takes (50)
      const body = { email: `member${i}@example.com`, segments: i % 2 ? [doomed.id, kept.id] : [doomed.id] };
      contacts.push((await api.post('/contacts', body, { key: other.key })).body.id);
    }
    expect((await api.get(`/contacts?segment_id=${doomed.id}&limit=100`, { key: other.key })).body.data).toHaveLength(
      60,
    );

    expect((await api.delete(`/segments/${doomed.id}`, { key: other.key })).status).toBe(200);

    const all = await api.get('/contacts?limit=100', { key: other.key });
    expect(all.body.data).toHaveLength(60); // every contact is still there
    for (const contact of all.body.data) {
      const odd = contacts.indexOf(contact.id) % 2 === 1;
      expect(contact.segment_ids).toEqual(odd ? [kept.id] : []);
    }
    for (const id of contacts)
      expect(await getItem(keys.segmentMember(other.projectId, doomed.id, id))).toBeUndefined();
    expect((await api.get(`/contacts?segment_id=${doomed.id}`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/contacts?segment_id=${kept.id}&limit=100`, { key: other.key })).body.data).toHaveLength(30);
    expect(
      (await api.post(`/contacts/${contacts[0]}/segments/${doomed.id}`, undefined, { key: other.key })).status,
    ).toBe(404);
  });
});
