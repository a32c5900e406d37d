import { routes } from '../../functions/routes';
import { requiredScope } from '../../shared/platform/http/operation';
import { api, request } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';

useRuntimeTable();

async function eventsOf(projectId: string) {
  return (await projectEvents(projectId)).map((item) => item.event);
}

describe('API keys', () => {
  it('creates a key that works at once, and after DELETE it gets 401', async () => {
    const created = await api.post('/api-keys', { name: 'ci' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^es_live_[0-9A-Za-z]{32}$/) });
    const key = created.body.token;
    expect((await api.get('/segments', { key })).status).toBe(200);

    const revoked = await api.delete(`/api-keys/${created.body.id}`);
    expect(revoked).toMatchObject({ status: 200, body: { object: 'api_key', id: created.body.id, deleted: true } });
    const after = await api.get('/segments', { key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ name: 'validation_error', message: 'API key is invalid', statusCode: 401 });
    expect((await api.delete(`/api-keys/${created.body.id}`)).status).toBe(404);
  });

  it('renames a key with PATCH (404 for an unknown one, 422 for an empty name), and nothing else changes', async () => {
    const { body } = await api.post('/api-keys', { name: 'before' });
    const renamed = await api.patch(`/api-keys/${body.id}`, { name: '  after  ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      object: 'api_key',
      id: body.id,
      name: 'after',
      permission: 'full_access',
      mode: 'live',
    });
    expect((await api.get('/segments', { key: body.token })).status).toBe(200); // the key still works
    expect((await api.patch('/api-keys/01890a5d-ac96-774b-bcce-b302099a8057', { name: 'x' })).status).toBe(404);
    expect((await api.patch(`/api-keys/${body.id}`, { name: '' })).status).toBe(422);
    expect((await api.patch(`/api-keys/${body.id}`, { name: 'x', permission: 'sending_access' })).status).toBe(422);
    const other = await createOtherProject();
    expect((await api.patch(`/api-keys/${body.id}`, { name: 'theirs' }, { key: other.key })).status).toBe(404);
  });

  it('records when a key was last used, at most once an hour, without delaying the request', async () => {
    const { body } = await api.post('/api-keys', { name: 'used' });
    const listed = async () =>
      (await api.get('/api-keys?limit=100')).body.data.find((k: { id: string }) => k.id === body.id);
    expect((await listed()).last_used_at).toBeNull();
    const before = Date.now();
    expect((await api.get('/segments', { key: body.token })).status).toBe(200);
    const first = (await listed()).last_used_at;
    expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 1000);
    expect((await api.get('/segments', { key: body.token })).status).toBe(200);
    expect((await listed()).last_used_at).toBe(first); // within the hour: not written again
  });

  it('lists keys without their tokens or hashes', async () => {
    const { body } = await api.post('/api-keys', { name: 'listed' });
    const list = await api.get('/api-keys?limit=100');
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    const entry = list.body.data.find((k: { id: string }) => k.id === body.id);
    expect(entry).toEqual({
      object: 'api_key',
      id: body.id,
      name: 'listed',
      permission: 'full_access',
      mode: 'live',
      created_at: expect.any(String),
      last_used_at: null,
    });
    expect(list.text).not.toContain(body.token);
    expect(list.text).not.toMatch(/token|hash/);
  });

  it('gives a sending_access key 403 insufficient_scope outside sending', async () => {
    const { body } = await api.post('/api-keys', { name: 'sender', permission: 'sending_access' });
    const res = await api.post('/segments', { name: 'nope' }, { key: body.token });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ name: 'application_error', errors: [{ code: 'insufficient_scope' }] });
  });

  // Driven by the route table: every keyed route but the two that send, including routes added later.
  const MISSING_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
  const SEND_ROUTES = ['POST /emails', 'POST /emails/batch'];
  const keyedRoutes = routes.filter((r) => r.operation.auth === 'api_key');
  const notForSending = keyedRoutes.filter((r) => !SEND_ROUTES.includes(`${r.method} ${r.path}`));
  let sendingKey: Promise<string> | undefined;
  const aSendingKey = () =>
    (sendingKey ??= api
      .post('/api-keys', { name: 'sender', permission: 'sending_access' })
      .then((r) => r.body.token as string));
  it.each(notForSending.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'gives a sending_access key 403 insufficient_scope on %s',
    async (_, route) => {
      const path = route.path.replace(/\{[A-Za-z0-9_]+\}/g, MISSING_ID);
      const res = await request(route.method, path, route.operation.body ? {} : undefined, {
        key: await aSendingKey(),
      });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: {
          name: 'application_error',
          statusCode: 403,
          message: expect.stringMatching(/sending_access/),
          errors: [expect.objectContaining({ code: 'insufficient_scope' })],
        },
      });
    },
  );

  it('lets a sending_access key send, and only send: the route table declares exactly POST /emails and POST /emails/batch for it', async () => {
    expect(
      keyedRoutes.filter((r) => requiredScope(r.operation) === 'sending_access').map((r) => `${r.method} ${r.path}`),
    ).toEqual(SEND_ROUTES);
    const { body } = await api.post('/api-keys', { name: 'sender', permission: 'sending_access' });
    // past the scope check: the empty bodies fail validation instead
    expect((await api.post('/emails', {}, { key: body.token })).status).toBe(422);
    expect((await api.post('/emails/batch', [], { key: body.token })).status).toBe(422);
  });

  it('refuses an unknown permission with 422', async () => {
    const res = await api.post('/api-keys', { name: 'x', permission: 'root' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('permission');
  });

  it('writes api_key.created and api_key.revoked events in the same change, without the token', async () => {
    const other = await createOtherProject();
    const { body } = await api.post('/api-keys', { name: 'evented' }, { key: other.key });
    await api.delete(`/api-keys/${body.id}`, { key: other.key });
    const events = await eventsOf(other.projectId);
    const mine = events.filter((e) => e.data.object.id === body.id);
    expect(mine.map((e) => e.type).sort()).toEqual(['api_key.created', 'api_key.revoked']);
    for (const event of mine) {
      expect(event).toEqual({
        object: 'event',
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: expect.any(String),
        api_version: '2026-08-14',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        livemode: true,
        project_id: other.projectId,
        data: {
          object: {
            object: 'api_key',
            id: body.id,
            name: 'evented',
            permission: 'full_access',
            mode: 'live',
            created_at: expect.any(String),
            last_used_at: null,
          },
        },
      });
    }
    expect(JSON.stringify(mine)).not.toContain(body.token);
  });

  it("cannot revoke another project's key (404) and that key keeps working", async () => {
    const other = await createOtherProject();
    const { body } = await api.post('/api-keys', { name: 'theirs' }, { key: other.key });
    expect((await api.delete(`/api-keys/${body.id}`)).status).toBe(404);
    expect((await api.get('/segments', { key: body.token })).status).toBe(200);
  });
});
