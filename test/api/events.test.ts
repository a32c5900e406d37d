import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

describe('GET /events', () => {
  it("lists the project's events newest first, unpaginated, as a list object with has_more false", async () => {
    const other = await createOtherProject();
    const first = await api.post('/api-keys', { name: 'one' }, { key: other.key });
    const second = await api.post('/api-keys', { name: 'two' }, { key: other.key });
    await api.delete(`/api-keys/${first.body.id}`, { key: other.key });

    const res = await api.get('/events', { key: other.key });
    expect(res.status).toBe(200);
    expect(res.body.has_more).toBe(false);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'has_more', 'object']);
    expect(res.body.object).toBe('list');
    const mine = res.body.data.filter((e: { data: { object: { id: string } } }) =>
      [first.body.id, second.body.id].includes(e.data.object.id),
    );
    expect(
      mine.map((e: { type: string; data: { object: { name: string } } }) => `${e.type} ${e.data.object.name}`),
    ).toEqual(['api_key.revoked one', 'api_key.created two', 'api_key.created one']);
    expect(mine[0]).toMatchObject({
      object: 'event',
      api_version: '2026-08-14',
      livemode: true,
      project_id: other.projectId,
    });
  });

  it("never shows another project's events", async () => {
    const a = await createOtherProject();
    const b = await createOtherProject();
    await api.post('/api-keys', { name: 'only-in-a' }, { key: a.key });
    const seenByB = await api.get('/events', { key: b.key });
    expect(seenByB.body.data.every((e: { project_id: string }) => e.project_id === b.projectId)).toBe(true);
    expect(JSON.stringify(seenByB.body)).not.toContain('only-in-a');
  });

  it('needs a key', async () => {
    const res = await api.get('/events', { key: 'nope' });
    expect(res.status).toBe(401);
    expect(res.body).not.toHaveProperty('errors');
  });
});
