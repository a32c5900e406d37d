/**
 * Test mode over real HTTP (issue 22): test keys of a project work in its test-mode sandbox
 * (shared/project/test-mode.ts). A live key mints them, they never mint live ones, the modes never
 * see each other's data or replay each other's Idempotency-Keys, and the sandbox is wiped in one
 * CLI call that leaves live data and the test keys alone. The whole route table is driven between
 * the modes by test/api/isolation-test-mode.test.ts.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();
const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** `npm run project -- ...` against the running local runtime. */
const projectCli = (...args: string[]) =>
  run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'bin', 'project.ts'), ...args], {
    env: { ...process.env, DATA_DIR: process.env.TEST_DATA_DIR },
  });

let live: { projectId: string; key: string };
let test: { id: string; token: string };
const stamp = Date.now().toString(36);

beforeAll(async () => {
  live = await createOtherProject();
  const res = await api.post('/api-keys', { name: 'ci', mode: 'test' }, { key: live.key });
  expect(res.status).toBe(201);
  test = res.body;
});

it('lets a live key mint a test key, never a test key a live one', async () => {
  expect(test.token).toMatch(/^es_test_[0-9A-Za-z]{32}$/);
  const refused = await api.post('/api-keys', { name: 'escalate', mode: 'live' }, { key: test.token });
  expect(refused.status).toBe(422);
  expect(refused.body.errors[0]).toMatchObject({ code: 'live_key_from_test_mode', path: 'mode' });
  // without a mode, a key of the caller's own
  const own = await api.post('/api-keys', { name: 'another test key' }, { key: test.token });
  expect(own.body.token).toMatch(/^es_test_/);
});

it('keeps keys apart: each mode lists and revokes only its own', async () => {
  const ofLive = (await api.get('/api-keys?limit=100', { key: live.key })).body.data.map((k: { id: string }) => k.id);
  const ofTest = (await api.get('/api-keys?limit=100', { key: test.token })).body.data as {
    id: string;
    mode: string;
  }[];
  expect(ofLive).not.toContain(test.id);
  expect(ofTest.map((k) => k.id)).toContain(test.id);
  expect(ofTest.every((k) => k.mode === 'test')).toBe(true);
  for (const id of ofLive) expect((await api.delete(`/api-keys/${id}`, { key: test.token })).status).toBe(404);
  expect((await api.delete(`/api-keys/${test.id}`, { key: live.key })).status).toBe(404);
});

it("keeps Idempotency-Keys per mode: a live send never replays a test send's answer", async () => {
  const domain = `idem-${stamp}.example.com`;
  expect((await api.post('/domains', { name: domain }, { key: test.token })).status).toBe(201);
  const headers = { 'idempotency-key': `order-${stamp}` };
  const body = { from: `a@${domain}`, to: 'someone@example.com', subject: 'once per mode', text: 'x' };
  const ofTest = await api.post('/emails', body, { key: test.token, headers });
  expect(ofTest.status).toBe(200);
  // the live project has no such domain: its own answer (422), not the test send's id
  const ofLive = await api.post('/emails', body, { key: live.key, headers });
  expect(ofLive.status).toBe(422);
  expect(ofLive.text).not.toContain(ofTest.body.id);
  expect((await api.get(`/emails/${ofTest.body.id}`, { key: live.key })).status).toBe(404);
});

it('wipes the test data in one CLI call, keeping the test keys and every live resource', async () => {
  const make = async (key: string, label: string) => {
    const segment = (await api.post('/segments', { name: `${label} segment` }, { key })).body.id as string;
    const contact = (
      await api.post('/contacts', { email: `${label}-${stamp}@example.com`, segments: [segment] }, { key })
    ).body.id as string;
    const topic = (await api.post('/topics', { name: `${label} topic`, default_subscription: 'opt_in' }, { key })).body
      .id as string;
    const template = (await api.post('/templates', { name: `${label} template`, html: '<p>x</p>' }, { key })).body
      .id as string;
    const suppression = (await api.post('/suppressions', { email: `${label}-blocked-${stamp}@example.com` }, { key }))
      .body.id as string;
    return { segment, contact, topic, template, suppression };
  };
  const [ofLive, ofTest] = await Promise.all([make(live.key, 'live'), make(test.token, 'test')]);
  const paths = (ids: Record<string, string>) => [
    `/segments/${ids.segment}`,
    `/contacts/${ids.contact}`,
    `/topics/${ids.topic}`,
    `/templates/${ids.template}`,
    `/suppressions/${ids.suppression}`,
  ];
  const statuses = (key: string, ids: Record<string, string>) =>
    Promise.all(paths(ids).map(async (path) => (await api.get(path, { key })).status));
  expect(await statuses(test.token, ofTest)).toEqual([200, 200, 200, 200, 200]);
  expect(await statuses(live.key, ofTest)).toEqual([404, 404, 404, 404, 404]); // and the other way round: the isolation suite

  const wiped = await projectCli('wipe-test-data', '--project', live.projectId);
  expect(wiped.stdout).toMatch(/\d+ items deleted/);
  expect(await statuses(test.token, ofTest)).toEqual([404, 404, 404, 404, 404]);
  expect(await statuses(live.key, ofLive)).toEqual([200, 200, 200, 200, 200]);
  // the sandbox is empty, and its key still works
  for (const list of ['/segments', '/contacts', '/topics', '/templates', '/suppressions', '/domains', '/emails']) {
    expect({ list, data: (await api.get(list, { key: test.token })).body.data }).toEqual({ list, data: [] });
  }
  const keysOfTest = (await api.get('/api-keys', { key: test.token })).body.data.map((k: { id: string }) => k.id);
  expect(keysOfTest).toContain(test.id);
}, 60_000);

/**
 * The per-second rate limit on a runtime of its own whose clock stands still until the test moves it (LOCAL_CLOCK=manual,
 * local/clock.ts): a burst is in one clock second, and a move of a second gives the next second's budget. The limits
 * are its default project's (whose live key, TEST_API_KEY, the client uses), set with the CLI before the project's
 * first request, so no function holds older settings.
 */
describe("a test key under its project's limits", () => {
  // not shared (test/support/own-runtime.ts): it sets its default project's limits before that project's first request
  const own = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { forFile: true });

  it("is rate limited by its project's limit and counts against no send quota", async () => {
    await projectCli('limits', '--local', '--rate', '5', '--daily', '1');
    expect((await api.get('/project')).body).toMatchObject({
      rate_limit: { requests_per_second: 5 },
      quotas: { daily: 1 },
    });
    const minted = await api.post('/api-keys', { name: 'limits', mode: 'test' });
    expect(minted.status).toBe(201);
    const sandboxKey = minted.body.token as string;
    // the project's rate limit applies to its test keys (headers and 429 alike): a burst in a second of its own
    await own.move({ advance_seconds: 1 });
    const burst = await Promise.all(Array.from({ length: 15 }, () => api.get('/segments', { key: sandboxKey })));
    expect(burst.map((r) => r.headers.get('ratelimit-limit'))).toEqual(Array(15).fill('5'));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(5);
    const refused = burst.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.errors[0].code])).toEqual(Array(10).fill([429, 'rate_limit_exceeded']));
    // the daily quota of 1 is live mail's: test sends go past it, in the next second's budget (3 requests of 5)
    await own.move({ advance_seconds: 1 });
    const domain = `quota-${stamp}.example.com`;
    expect((await api.post('/domains', { name: domain }, { key: sandboxKey })).status).toBe(201);
    const send = () =>
      api.post(
        '/emails',
        { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'over the quota', text: 'x' },
        { key: sandboxKey },
      );
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
  }, 60_000);
});
