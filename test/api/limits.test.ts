/**
 * Multi-tenant limits over HTTP against the local runtime: a project's API rate limit (429 with
 * Resend's headers, nothing of a refused request written, recovery in the next second), its send
 * quotas (exact under concurrent sends, with the usage headers; a broadcast's recipients over the
 * quota recorded as failed), GET /project and `npm run project`. Each test uses a project of its
 * own whose limits are set before its first request; the runtime's default project has a limit far
 * above what the tests make.
 *
 * On a runtime of the file's own whose clock stands still until a test moves it (LOCAL_CLOCK=manual,
 * local/clock.ts): a burst is in one second of the rate limit's, however long the machine takes
 * over it, and a move of a second gives the next second's budget; a move of 2 s makes the functions'
 * settings stale (PROJECT_SETTINGS_CACHE_SECONDS: 1) and verifies a new domain (the local SES does a
 * second after the identity was made). The local SES may send far more a second than its default 14
 * (LOCAL_SES_MAX_SEND_RATE), so no send waits for the clock.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api, type ApiResponse } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

const own = useOwnRuntime(
  {
    LOCAL_CLOCK: 'manual',
    API_RATE_LIMIT_PER_SECOND: '100000',
    PROJECT_SETTINGS_CACHE_SECONDS: '1',
    LOCAL_SES_MAX_SEND_RATE: '1000',
  },
  { forFile: true },
);
beforeAll(() => {
  useRuntimeTable(); // the table of this file's runtime (started by the beforeAll above)
});

/** A project of its own with `limits`, set before any of its requests (no function has its settings yet). */
async function projectWith(limits: { rate_limit?: number; daily_quota?: number; monthly_quota?: number }) {
  const project = await createOtherProject();
  const { changeProjectSettings } = await import('../../shared/project/settings-change');
  await changeProjectSettings(project.projectId, limits);
  return project;
}

/** The next second of the runtime's clock: a rate limit's fresh budget. */
const nextSecond = () => own.move({ advance_seconds: 1 });

/** A new domain of the key's project, verified: the local SES verifies an identity a second after it was made, on the runtime's clock. */
async function verifiedDomain(key: string): Promise<string> {
  const name = `${unique('mail')}.example.com`;
  const created = await api.post('/domains', { name }, { key });
  expect(created.status).toBe(201);
  await own.move({ advance_seconds: 2 });
  expect((await api.post(`/domains/${created.body.id}/verify`, undefined, { key })).body.status).toBe('verified');
  return name;
}

const statuses = (answers: ApiResponse[]) => answers.map((r) => r.status).sort();

describe('the API rate limit', () => {
  it('answers 429 rate_limit_exceeded with retry-after past the limit in a second, and admits again in the next', async () => {
    const { key } = await projectWith({ rate_limit: 3 });
    await api.get('/api-keys', { key }); // the key's first request: looked up, then counted
    await nextSecond();
    const burst = await Promise.all(Array.from({ length: 12 }, () => api.get('/api-keys', { key })));
    const admitted = burst.filter((r) => r.status === 200);
    const refused = burst.filter((r) => r.status === 429);
    expect({ admitted: admitted.length, refused: refused.length }).toEqual({ admitted: 3, refused: 9 });
    for (const r of refused) {
      expect(r.body).toMatchObject({
        name: 'application_error',
        statusCode: 429,
        errors: [{ code: 'rate_limit_exceeded' }],
      });
      // the message names the setting that applied: here the project's own limit
      expect(r.body.message).toBe(
        "Too many requests: this project may make 3 requests a second (the project's own limit, set by an operator with `npm run project -- limits --rate`); retry after 1 s",
      );
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.headers.get('ratelimit-limit')).toBe('3');
      expect(r.headers.get('ratelimit-remaining')).toBe('0');
      expect(r.headers.get('ratelimit-reset')).toBe('1');
    }
    for (const r of admitted) expect(r.headers.get('ratelimit-limit')).toBe('3');
    // each admitted request counted once, in turn: 1, 2 and 3 of 3
    expect(admitted.map((r) => r.headers.get('ratelimit-remaining')).sort()).toEqual(['0', '1', '2']);

    await nextSecond();
    const next = await api.get('/api-keys', { key });
    expect(next.status).toBe(200);
    expect(next.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('writes nothing of a refused request', async () => {
    const { key } = await projectWith({ rate_limit: 2 });
    await api.get('/api-keys', { key });
    await nextSecond();
    const emails = Array.from({ length: 6 }, (_, i) => `refused-${i}-${unique('c')}@example.com`);
    const answers = await Promise.all(emails.map((email) => api.post('/contacts', { email }, { key })));
    expect(statuses(answers)).toEqual([201, 201, 429, 429, 429, 429]);
    for (const [i, answer] of answers.entries()) {
      await nextSecond(); // one read a second: the reads stay under the limit
      const found = await api.get(`/contacts/${encodeURIComponent(emails[i])}`, { key });
      expect({ status: answer.status, exists: found.status === 200 }).toEqual({
        status: answer.status,
        exists: answer.status === 201,
      });
    }
  });

  it('puts the headers on every keyed answer, errors included, and none on the routes without a key', async () => {
    const { key } = await projectWith({ rate_limit: 50 });
    const missing = await api.get('/contacts/01890a5d-ac96-774b-bcce-b302099a8057', { key });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit-limit')).toBe('50');
    expect(missing.headers.get('ratelimit-remaining')).toBe('49');
    const invalid = await api.post('/contacts', { email: 'not an address' }, { key });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('ratelimit-remaining')).toBe('48'); // counted too, in the same second of a clock that stands still
    const health = await api.get('/health', { key: null });
    expect(health.status).toBe(200);
    expect(health.headers.get('ratelimit-limit')).toBeNull();
    const unknownKey = await api.get('/api-keys', { key: `es_live_${'Z'.repeat(32)}` });
    expect(unknownKey.status).toBe(401);
    expect(unknownKey.headers.get('ratelimit-limit')).toBeNull();
  });

  it("counts one project's requests apart from another's", async () => {
    const busy = await projectWith({ rate_limit: 2 });
    const quiet = await projectWith({ rate_limit: 2 });
    await Promise.all([api.get('/api-keys', { key: busy.key }), api.get('/api-keys', { key: quiet.key })]);
    await nextSecond();
    const [burst, other] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => api.get('/api-keys', { key: busy.key }))),
      api.get('/api-keys', { key: quiet.key }),
    ]);
    expect(statuses(burst)).toEqual([200, 200, 429, 429, 429, 429, 429, 429]);
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('1');
  });
});

describe('send quotas', () => {
  it('accepts exactly the daily quota of 50 concurrent sends, refuses the rest with 429 daily_quota_exceeded, and counts the usage', async () => {
    const { key } = await projectWith({ daily_quota: 20 });
    const domain = await verifiedDomain(key);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api.post(
          '/emails',
          { from: `q@${domain}`, to: `reader${i}@example.com`, subject: `quota ${i}`, text: 'x' },
          { key },
        ),
      ),
    );
    const accepted = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: 20, refused: 30 });
    for (const r of refused) expect(r.body.errors[0].code).toBe('daily_quota_exceeded');
    const usage = accepted.map((a) => Number(a.headers.get('x-resend-daily-quota')));
    expect(Math.max(...usage)).toBe(20);
    expect(Math.min(...usage)).toBeGreaterThanOrEqual(1);
    for (const a of accepted) expect(Number(a.headers.get('x-resend-monthly-quota'))).toBeGreaterThanOrEqual(1);

    const project = await api.get('/project', { key });
    expect(project.status).toBe(200);
    const today = new Date(await own.now()).toISOString().slice(0, 10); // the UTC day on the runtime's clock
    expect(project.body).toMatchObject({
      object: 'project',
      quotas: { daily: 20, monthly: null },
      usage: { daily: 20, monthly: 20, day: today },
    });
    const listed = await api.get('/emails?limit=100', { key });
    expect(listed.body.data).toHaveLength(20); // nothing of a refused send was written
  });

  it("counts a project's usage without a quota under concurrent sends, and a quota set later counts what was sent before it", async () => {
    const project = await createOtherProject();
    const { key } = project;
    const domain = await verifiedDomain(key);
    const send = (i: number) =>
      api.post('/emails', { from: `u@${domain}`, to: `u${i}@example.com`, subject: `usage ${i}`, text: 'x' }, { key });
    const batch = api.post(
      '/emails/batch',
      [0, 1, 2, 3, 4].map((i) => ({ from: `u@${domain}`, to: `b${i}@example.com`, subject: 'b', text: 'x' })),
      { key },
    );
    const answers = await Promise.all([...Array.from({ length: 30 }, (_, i) => send(i)), batch]);
    expect(answers.map((a) => a.status)).toEqual(Array(31).fill(200));
    expect(Math.max(...answers.map((a) => Number(a.headers.get('x-resend-daily-quota'))))).toBe(35); // the last one in saw them all
    expect((await api.get('/project', { key })).body.usage).toMatchObject({ daily: 35, monthly: 35 });

    const { changeProjectSettings } = await import('../../shared/project/settings-change');
    // with a rate limit of its own beside the quota, which every answer's ratelimit-limit shows: the sign that the
    // functions hold the new settings (a function answers one request with the stale ones while it reads them again)
    await changeProjectSettings(project.projectId, { daily_quota: 37, rate_limit: 1000 });
    expect((await api.get('/project', { key })).body).toMatchObject({
      quotas: { daily: 37 },
      usage: { daily: 35, monthly: 35 },
    });
    await own.move({ advance_seconds: 2 }); // the functions' settings go stale (1 s in these tests)
    await waitFor(
      () => api.get('/api-keys', { key }),
      (r) => r.headers.get('ratelimit-limit') === '1000',
    );
    let accepted = 0;
    let refused: ApiResponse | undefined;
    for (let i = 0; i < 10 && !refused; i++) {
      const answer = await send(100 + i);
      if (answer.status === 200) accepted++;
      else refused = answer;
    }
    // 2 fit, the third is over the quota
    expect(refused?.body.errors[0].code).toBe('daily_quota_exceeded');
    expect(accepted).toBe(2);
  }, 60_000);

  it('refuses a batch that does not fit whole, and accepts one that does', async () => {
    const { key } = await projectWith({ monthly_quota: 5 });
    const domain = await verifiedDomain(key);
    const batch = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        from: `q@${domain}`,
        to: `b${i}@example.com`,
        subject: 'batch',
        text: 'x',
      }));
    const alone = await api.post('/emails/batch', batch(6), { key }); // over the quota by itself, before any email was counted
    expect(alone.status).toBe(429);
    expect(alone.body.errors[0].code).toBe('monthly_quota_exceeded');
    const fits = await api.post('/emails/batch', batch(3), { key });
    expect(fits.status).toBe(200);
    expect(fits.headers.get('x-resend-monthly-quota')).toBe('3');
    const over = await api.post('/emails/batch', batch(3), { key });
    expect(over.status).toBe(429);
    expect(over.body.errors[0].code).toBe('monthly_quota_exceeded');
    expect(over.body.message).toMatch(/monthly quota is 5 emails; 3 have been sent/);
    expect((await api.get('/project', { key })).body.usage.monthly).toBe(3);
  });

  it("records a broadcast's recipients past the quota as failed with the quota's reason", async () => {
    const { key } = await projectWith({ daily_quota: 3 });
    const domain = await verifiedDomain(key);
    const segment = (await api.post('/segments', { name: unique('quota') }, { key })).body.id;
    for (let i = 0; i < 5; i++)
      expect(
        (await api.post('/contacts', { email: `r${i}-${unique('c')}@example.com`, segments: [segment] }, { key }))
          .status,
      ).toBe(201);
    const created = await api.post(
      '/broadcasts',
      { segment_id: segment, from: `news@${domain}`, subject: 'Quota', html: '<p>hi</p>', send: true },
      { key },
    );
    expect(created.status).toBe(201);
    await own.drain(); // the fan-out, all due now
    const done = await api.get(`/broadcasts/${created.body.id}`, { key });
    // sent: its recipients all had their turn; those past the quota are failed recipients, not a failed broadcast
    expect({ status: done.body.status, counters: done.body.counters }).toEqual({
      status: 'sent',
      counters: { recipients: 5, sent: 3, skipped: 0, failed: 2 },
    });
    expect((await api.get('/project', { key })).body.usage.daily).toBe(3);
  }, 60_000);
});

describe('GET /project and npm run project', () => {
  it('shows the defaults, and the CLI changes and shows the limits', async () => {
    const project = await createOtherProject();
    const before: ApiResponse = await api.get('/project', { key: project.key });
    expect(before.body).toMatchObject({
      object: 'project',
      id: project.projectId,
      rate_limit: { requests_per_second: 100000 },
      quotas: { daily: null, monthly: null },
      usage: { daily: 0, monthly: 0 },
    });

    const run = promisify(execFile);
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'project.ts'), ...args], {
        env: { ...process.env, DATA_DIR: process.env.TEST_DATA_DIR, TABLE_NAME: '' },
      });
    const { stdout } = await cli(
      'limits',
      '--project',
      project.projectId,
      '--rate',
      '7',
      '--daily',
      '100',
      '--monthly',
      '1000',
    );
    expect(stdout).toMatch(/rate\s+7 requests a second/);
    expect(stdout).toMatch(/daily\s+0 of 100 emails/);
    const after = await api.get('/project', { key: project.key });
    expect(after.body).toMatchObject({ rate_limit: { requests_per_second: 7 }, quotas: { daily: 100, monthly: 1000 } });
    const reset = await cli('limits', '--project', project.projectId, '--rate', 'default', '--daily', 'none');
    expect(reset.stdout).toMatch(/daily\s+0 of unlimited/);
    await expect(cli('limits', '--project', project.projectId, '--rate', '0')).rejects.toMatchObject({ code: 2 });
  });
});
