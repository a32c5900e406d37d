/**
 * The reputation guard (shared/emails/reputation.ts) end to end, in a local runtime of its own
 * (`npm start` as a user runs it) whose minimum sample is 20 sends instead of 200, with the
 * production thresholds (4% bounces, 0.08% complaints): the shared test runtime's default project
 * bounces and complains on purpose and must never be paused. A project that bounces 10% of its
 * mail is paused once the sample is reached: its sends answer 403 `sending_paused`, its mail
 * accepted before the pause stays waiting (not sent, not failed), another project keeps sending,
 * and `npm run project -- resume` lets the held mail go. Bounces come from the local SES's
 * mailbox simulator with `+label` addresses, so the suppression list never stops them.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startRuntimeProcess, stopRuntimeProcess } from '../support/runtime-process';
import { waitFor } from '../support/wait';

const root = join(__dirname, '..', '..');
const KEY = `es_live_${'G'.repeat(32)}`;
const run = promisify(execFile);
let dataDir: string;
let child: ChildProcess;
let baseUrl: string;

async function call(method: string, path: string, body?: unknown, key = KEY): Promise<{ status: number; body: any }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const cli = (script: string, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', join(root, 'bin', script), ...args], { cwd: root, env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: '' } });

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'email-service-guard-'));
  const started = await startRuntimeProcess({
    DATA_DIR: dataDir,
    LOCAL_API_KEY: KEY,
    LOCAL_SES_VERIFY_DELAY_MS: '0',
    LOCAL_SCHEDULE_INTERVAL_SECONDS: '1',
    API_RATE_LIMIT_PER_SECOND: '1000',
    PROJECT_SETTINGS_CACHE_SECONDS: '1',
    REPUTATION_MIN_SENDS: '20',
    PAUSED_HOLD_SECONDS: '1',
  });
  child = started.child;
  baseUrl = started.apiUrl;
}, 120_000);

afterAll(async () => {
  await stopRuntimeProcess(child);
  rmSync(dataDir, { recursive: true, force: true });
});

async function verifiedDomain(key: string, label: string): Promise<string> {
  const name = `${label}-${Date.now().toString(36)}.example.com`;
  const created = await call('POST', '/domains', { name }, key);
  expect(created.status).toBe(201);
  await waitFor(
    () => call('POST', `/domains/${created.body.id}/verify`, undefined, key),
    (r) => r.body.status === 'verified',
  );
  return name;
}

const statusOf = (id: string, key = KEY) => call('GET', `/emails/${id}`, undefined, key).then((r) => r.body.last_event as string);
const settle = (ids: string[], wanted: string[], key = KEY) =>
  waitFor(
    () => Promise.all(ids.map((id) => statusOf(id, key))),
    (statuses) => statuses.every((s) => wanted.includes(s)),
    60_000, // a loaded 2-core machine once took over 30 s for 18 sends at the local SES's 14 a second
  );

it('pauses a project that bounces 10% once the sample is reached, holds its mail, leaves another project alone, and resumes', async () => {
  const domain = await verifiedDomain(KEY, 'guarded');
  const send = (to: string, extra: Record<string, unknown> = {}) => call('POST', '/emails', { from: `news@${domain}`, to, subject: 'Guarded', text: 'hello', ...extra });

  // 18 delivered, then a bounce: 19 sent, under the sample of 20, so nothing pauses
  const delivered = await Promise.all(Array.from({ length: 18 }, (_, i) => send(`success+${i}@simulator.amazonses.com`)));
  expect(delivered.map((r) => r.status)).toEqual(Array(18).fill(200));
  await settle(
    delivered.map((r) => r.body.id),
    ['delivered'],
  );
  const firstBounce = await send('bounce+1@simulator.amazonses.com');
  await settle([firstBounce.body.id], ['bounced']);
  const under = await call('GET', '/project');
  expect(under.body).toMatchObject({ sending: { status: 'enabled', reason: null }, reputation: { sent: 19, bounced: 1, window: '24h' } });

  // mail accepted before the pause, due a little later
  const at = new Date(Date.now() + 15_000).toISOString();
  const scheduled = await Promise.all([0, 1, 2].map((i) => send(`success+held${i}@simulator.amazonses.com`, { scheduled_at: at })));
  expect(scheduled.map((r) => r.status)).toEqual([200, 200, 200]);

  // the second bounce: 20 sent, 2 bounced (10%, past 4%): paused
  const secondBounce = await send('bounce+2@simulator.amazonses.com');
  await settle([secondBounce.body.id], ['bounced']);
  const paused = await waitFor(
    () => call('GET', '/project'),
    (r) => r.body.sending.status === 'paused',
    15_000,
  );
  expect(paused.body.sending).toMatchObject({
    status: 'paused',
    reason: expect.stringMatching(/bounce rate 10\.00% \(the limit is 4\.00%\) over the last 24 hours, 20 emails sent/),
    since: expect.any(String),
  });
  expect(paused.body.reputation).toMatchObject({ sent: 20, bounced: 2, bounce_rate: 0.1, complained: 0 });

  const refused = await waitFor(
    () => send('success+after@simulator.amazonses.com'),
    (r) => r.status === 403,
    10_000,
  );
  expect(refused.body).toMatchObject({ name: 'application_error', statusCode: 403, errors: [{ code: 'sending_paused' }] });
  expect(refused.body.message).toMatch(/bounce rate 10\.00%/);
  const batch = await call('POST', '/emails/batch', [{ from: `news@${domain}`, to: 'success@simulator.amazonses.com', subject: 'b', text: 'b' }]);
  expect(batch.status).toBe(403);
  const segment = (await call('POST', '/segments', { name: 'everyone' })).body.id;
  const broadcast = await call('POST', '/broadcasts', { segment_id: segment, from: `news@${domain}`, subject: 'b', html: '<p>b</p>', send: true });
  expect(broadcast).toMatchObject({ status: 403, body: { errors: [{ code: 'sending_paused' }] } });
  const events = await call('GET', '/events');
  expect(events.body.data.map((e: { type: string }) => e.type)).toContain('project.sending_paused');

  // another project of the deployment keeps sending
  const { stdout } = await cli('api-key.ts', 'create', '--new-project', '--name', 'neighbour');
  const otherKey = /API key (\S+)/.exec(stdout)![1];
  const otherDomain = await verifiedDomain(otherKey, 'neighbour');
  const neighbour = await call('POST', '/emails', { from: `hi@${otherDomain}`, to: 'success@simulator.amazonses.com', subject: 'n', text: 'n' }, otherKey);
  expect(neighbour.status).toBe(200);
  await settle([neighbour.body.id], ['delivered'], otherKey);

  // the held mail: past its time and several holds later, neither sent nor failed
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(at) - Date.now()) + 4_000));
  expect(await Promise.all(scheduled.map((r) => statusOf(r.body.id)))).toEqual(['scheduled', 'scheduled', 'scheduled']);

  // an operator resumes: the held mail goes, sending works again
  const projectId = paused.body.id;
  const resumed = await cli('project.ts', 'resume', '--project', projectId);
  expect(resumed.stdout).toMatch(/sending\s+enabled/);
  await settle(
    scheduled.map((r) => r.body.id),
    ['delivered'],
  );
  const again = await waitFor(
    () => send('success+again@simulator.amazonses.com'),
    (r) => r.status === 200,
    10_000,
  );
  expect(again.status).toBe(200);
  expect((await call('GET', '/events')).body.data.map((e: { type: string }) => e.type)).toContain('project.sending_resumed');
  await expect(cli('project.ts', 'resume', '--project', projectId)).rejects.toMatchObject({ stderr: expect.stringContaining('not paused') });
}, 300_000);
