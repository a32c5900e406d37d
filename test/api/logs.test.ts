/**
 * The API request log (GET /logs, GET /logs/{id}; Resend's `logs.list` / `logs.get`) over HTTP and
 * through the official SDK, in a project of its own so its entries are exactly the requests made
 * here. Every request of a valid key is logged whatever its answer (200, 404, 422 here), with its
 * method, path, status, duration, user agent, request id and error; never its key. The entry is
 * written before the function returns, so it is there as soon as the answer is.
 */
import { Resend } from 'resend';
import { api, baseUrl } from '../support/http';
import { TEST_API_KEY } from '../support/constants';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';
/** generous: the machine has two cores and other suites run beside this one */
const SLOW = 60_000;
const AGENT = 'logs-test/1.0 (+https://example.com)';

function data<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

/** Every entry of the project, newest first, read page by page with `after`. */
async function allLogs(key: string, limit: number): Promise<{ id: string }[]> {
  const seen: { id: string }[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.get(`/logs?limit=${limit}${after ? `&after=${after}` : ''}`, { key });
    expect(page.status).toBe(200);
    seen.push(...page.body.data);
    if (!page.body.has_more) return seen;
    after = page.body.data.at(-1).id;
  }
}

/** The project's stored entries as DynamoDB holds them (every attribute, not only what the API shows). */
async function storedEntries(projectId: string): Promise<Record<string, unknown>[]> {
  const keys = await import('../../shared/platform/db/keys');
  const { queryPage } = await import('../../shared/platform/db/table');
  return (await queryPage(keys.requestLogs(projectId), { limit: 100 })).items;
}

describe('the request log', () => {
  it(
    'logs every request of a valid key (200, 404, 422) with method, path, status, duration, user agent, request id and error, and never the key',
    async () => {
      const project = await createOtherProject();
      const as = { key: project.key, headers: { 'user-agent': AGENT } };
      const listed = await api.get('/api-keys?limit=5', as);
      const missing = await api.get(`/contacts/${MISSING}`, as);
      const invalid = await api.post('/contacts', { email: 'not an address' }, as);
      expect([listed.status, missing.status, invalid.status]).toEqual([200, 404, 422]);
      // without a valid key: no project, no entry (and nothing of it shows up below)
      expect(
        (await api.get('/api-keys', { key: `es_live_${'x'.repeat(32)}`, headers: { 'user-agent': AGENT } })).status,
      ).toBe(401);

      const page = await api.get('/logs?limit=10', { key: project.key });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ object: 'list', has_more: false });
      // newest first: the three requests, oldest last (the list itself is logged once it has answered)
      expect(page.body.data.map((e: any) => `${e.method} ${e.endpoint} ${e.response_status}`)).toEqual([
        'POST /contacts 422',
        `GET /contacts/${MISSING} 404`,
        'GET /api-keys 200',
      ]);
      for (const entry of page.body.data) {
        expect(Object.keys(entry).sort()).toEqual([
          'created_at',
          'endpoint',
          'id',
          'method',
          'response_status',
          'user_agent',
        ]);
        expect(entry).toMatchObject({
          id: expect.stringMatching(ID),
          created_at: expect.stringMatching(TIME),
          user_agent: AGENT,
        });
      }

      const [invalidEntry, missingEntry, listedEntry] = await Promise.all(
        page.body.data.map((e: any) => api.get(`/logs/${e.id}`, { key: project.key })),
      );
      expect(listedEntry.body).toMatchObject({
        object: 'log',
        method: 'GET',
        endpoint: '/api-keys', // the query string is left out
        response_status: 200,
        user_agent: AGENT,
        request_id: listed.headers.get('x-request-id'),
        request_body: null,
        response_body: null, // a success's body is never kept (it may hold a new key)
        error: null,
        livemode: true,
        api_key_id: expect.stringMatching(ID),
      });
      expect(listedEntry.body.duration_ms).toEqual(expect.any(Number));
      expect(listedEntry.body.duration_ms).toBeGreaterThanOrEqual(0);
      expect(missingEntry.body).toMatchObject({
        response_status: 404,
        request_id: missing.headers.get('x-request-id'),
        error: { name: 'not_found', statusCode: 404 },
        response_body: missing.body, // the error as it was sent
      });
      expect(invalidEntry.body).toMatchObject({
        method: 'POST',
        endpoint: '/contacts',
        response_status: 422,
        request_id: invalid.headers.get('x-request-id'),
        error: { name: 'validation_error', errors: [expect.objectContaining({ path: 'email' })] },
        request_body: null,
      });

      // neither the key, its Authorization header nor its hash is anywhere: not in the answers, not in the stored items
      const { hashToken } = await import('../../shared/access/api-key-token');
      const stored = JSON.stringify(await storedEntries(project.projectId));
      const answered = JSON.stringify([page.body, listedEntry.body, missingEntry.body, invalidEntry.body]);
      for (const secret of [project.key, project.key.slice(8), hashToken(project.key)]) {
        expect(stored).not.toContain(secret);
        expect(answered).not.toContain(secret);
      }
      expect(stored.toLowerCase()).not.toContain('bearer');
      expect(stored.toLowerCase()).not.toContain('authorization');
    },
    SLOW,
  );

  it(
    'pages newest first with after and before, every entry once',
    async () => {
      const project = await createOtherProject();
      for (let i = 0; i < 6; i++) await api.get(`/contacts/${MISSING}`, { key: project.key });
      const ids = (await allLogs(project.key, 2)).map((e) => e.id);
      // 6 requests, then the pages read before each next one (each is logged after it has answered)
      expect(ids.length).toBeGreaterThanOrEqual(6);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort().reverse()).toEqual(ids);

      const newest = await api.get('/logs?limit=3', { key: project.key });
      const back = await api.get(`/logs?limit=2&before=${newest.body.data[2].id}`, { key: project.key });
      expect(back.body.data.map((e: any) => e.id)).toEqual(newest.body.data.slice(0, 2).map((e: any) => e.id));
      expect((await api.get('/logs?limit=101', { key: project.key })).status).toBe(422);
    },
    SLOW,
  );

  it(
    "hides another project's entries: 404 on get, absent from the list",
    async () => {
      const project = await createOtherProject();
      await api.get('/api-keys', { key: project.key });
      const [entry] = (await api.get('/logs?limit=1', { key: project.key })).body.data;
      expect((await api.get(`/logs/${entry.id}`, { key: project.key })).status).toBe(200);
      expect(await api.get(`/logs/${entry.id}`, { key: TEST_API_KEY })).toMatchObject({
        status: 404,
        body: { name: 'not_found' },
      });
      const theirs = await api.get('/logs?limit=100', { key: TEST_API_KEY });
      expect(theirs.body.data.map((e: any) => e.id)).not.toContain(entry.id);
      expect((await api.get('/logs/not-a-uuid', { key: project.key })).status).toBe(422);
    },
    SLOW,
  );

  it(
    'answers the official SDK: logs.list with pagination, logs.get, and its own requests carry its user agent',
    async () => {
      const project = await createOtherProject();
      const sdk = new Resend(project.key, { baseUrl: baseUrl() });
      data(await sdk.apiKeys.list());
      const failed = await sdk.contacts.get({ id: MISSING });
      expect(failed.error).toMatchObject({ name: 'not_found' });

      const first = data(await sdk.logs.list({ limit: 1 }));
      expect(first).toMatchObject({ object: 'list', has_more: true });
      expect(first.data[0]).toMatchObject({
        method: 'GET',
        endpoint: `/contacts/${MISSING}`,
        response_status: 404,
        user_agent: expect.stringMatching(/^resend-node:/),
      });
      const second = data(await sdk.logs.list({ limit: 1, after: first.data[0].id }));
      expect(second.data[0]).toMatchObject({ method: 'GET', endpoint: '/api-keys', response_status: 200 });

      const entry = data(await sdk.logs.get(first.data[0].id));
      expect(entry).toMatchObject({
        object: 'log',
        id: first.data[0].id,
        response_status: 404,
        request_body: null,
        response_body: { name: 'not_found' },
      });
      expect(JSON.stringify(entry)).not.toContain(project.key);
      expect((await sdk.logs.get(MISSING)).error).toMatchObject({ name: 'not_found' });
    },
    SLOW,
  );
});
