import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

describe('topics', () => {
  it('creates a topic (201) with visibility private by default, and reads it back', async () => {
    const created = await api.post('/topics', {
      name: 'Product updates',
      description: 'Monthly',
      default_subscription: 'opt_in',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'topic',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Product updates',
      description: 'Monthly',
      default_subscription: 'opt_in',
      visibility: 'private',
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    expect(await api.get(`/topics/${created.body.id}`)).toMatchObject({ status: 200, body: created.body });
  });

  it('requires name and default_subscription and refuses unknown values (422 naming them)', async () => {
    const missing = await api.post('/topics', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['default_subscription', 'name']);
    const bad = await api.post('/topics', { name: 'x', default_subscription: 'maybe', visibility: 'secret', extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'default_subscription',
      'extra',
      'visibility',
    ]);
  });

  it('updates name, description and visibility, but never default_subscription', async () => {
    const { body: topic } = await api.post('/topics', {
      name: 'News',
      default_subscription: 'opt_out',
      visibility: 'public',
    });
    const updated = await api.patch(`/topics/${topic.id}`, {
      name: 'Newsletter',
      description: null,
      visibility: 'private',
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      id: topic.id,
      name: 'Newsletter',
      description: null,
      visibility: 'private',
      default_subscription: 'opt_out',
    });
    expect(updated.body.updated_at >= topic.updated_at).toBe(true);

    const fixed = await api.patch(`/topics/${topic.id}`, { default_subscription: 'opt_in' });
    expect(fixed.status).toBe(422);
    expect(fixed.body.errors).toContainEqual(
      expect.objectContaining({ path: 'default_subscription', message: expect.stringContaining('fixed') }),
    );
    expect((await api.get(`/topics/${topic.id}`)).body.default_subscription).toBe('opt_out');

    expect((await api.patch(`/topics/${topic.id}`, {})).status).toBe(422);
    // the Resend SDK repeats the id in the body: the path's id is fine, another is not
    expect((await api.patch(`/topics/${topic.id}`, { id: topic.id, name: 'Again' })).body.name).toBe('Again');
    const other = await api.patch(`/topics/${topic.id}`, { id: '01a20280-902e-70b0-b281-d9d957510688', name: 'X' });
    expect(other.status).toBe(422);
    expect(other.body.errors[0].path).toBe('id');
  });

  it('deletes a topic and answers 404 the second time', async () => {
    const { body: topic } = await api.post('/topics', { name: 'Gone', default_subscription: 'opt_in' });
    expect(await api.delete(`/topics/${topic.id}`)).toMatchObject({
      status: 200,
      body: { object: 'topic', id: topic.id, deleted: true },
    });
    expect(await api.delete(`/topics/${topic.id}`)).toMatchObject({ status: 404, body: { name: 'not_found' } });
    expect((await api.get(`/topics/${topic.id}`)).status).toBe(404);
    expect((await api.patch(`/topics/${topic.id}`, { name: 'x' })).status).toBe(404);
  });

  it('lists newest first with paging, per project', async () => {
    const other = await createOtherProject();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c'])
      ids.push((await api.post('/topics', { name, default_subscription: 'opt_in' }, { key: other.key })).body.id);
    const first = await api.get('/topics?limit=2', { key: other.key });
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual([ids[2], ids[1]]);
    const rest = await api.get(`/topics?limit=2&after=${ids[1]}`, { key: other.key });
    expect(rest.body.data.map((t: { id: string }) => t.id)).toEqual([ids[0]]);
    expect(rest.body.has_more).toBe(false);
    expect((await api.get(`/topics/${ids[0]}`)).status).toBe(404); // not the default project's
  });
});
