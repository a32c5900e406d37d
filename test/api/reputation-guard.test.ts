/**
 * The reputation guard (shared/emails/reputation.ts) end to end, in a local runtime of its own
 * (`npm start` as a user runs it) whose minimum sample is 20 sends instead of 200, with the
 * production thresholds (4% bounces, 0.08% complaints): the shared test runtime's default project
 * bounces and complains on purpose and must never be paused. A project that bounces 10% of its
 * mail is paused once the sample is reached: its sends answer 403 `sending_paused`, its mail
 * accepted before the pause stays waiting (not sent, not failed), another project keeps sending,
 * and `npm run project -- resume` lets the held mail go. Bounces come from the local SES's
 * mailbox simulator with `+label` addresses, so the suppression list never stops them.
 *
 * The runtime runs on a manual clock (LOCAL_CLOCK=manual): what happens later (a send's SES events,
 * the settings cache running out, the scheduled mail's time and the holds after it) happens when the
 * test moves the clock, and each move answers once the pipeline has settled: no waiting.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { useOwnRuntime } from '../support/own-runtime';

const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const runtime = useOwnRuntime({
  LOCAL_CLOCK: 'manual',
  LOCAL_SES_VERIFY_DELAY_MS: '0',
  LOCAL_SCHEDULE_INTERVAL_SECONDS: '1',
  API_RATE_LIMIT_PER_SECOND: '1000',
  PROJECT_SETTINGS_CACHE_SECONDS: '1',
  REPUTATION_MIN_SENDS: '20',
  PAUSED_HOLD_SECONDS: '1',
});
const { call } = runtime;

const cli = (script: string, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', join(root, 'bin', script), ...args], {
    cwd: root,
    env: { ...process.env, DATA_DIR: runtime.dataDir, TABLE_NAME: '' },
  });

async function verifiedDomain(key: string | undefined, label: string): Promise<string> {
  const name = `${label}-${Date.now().toString(36)}.example.com`;
  const created = await call('POST', '/domains', { name }, key);
  expect(created.status).toBe(201);
  // the local SES verifies at once (LOCAL_SES_VERIFY_DELAY_MS=0): the check answers it
  expect(await call('POST', `/domains/${created.body.id}/verify`, undefined, key)).toMatchObject({
    status: 200,
    body: { status: 'verified' },
  });
  return name;
}

/** Settles what is due now (a move's first stop may be later), then moves the clock on: everything due by then has happened. */
async function after(advance: string): Promise<void> {
  await runtime.drain();
  await runtime.move({ advance });
}

const statusesOf = (ids: string[], key?: string) =>
  Promise.all(ids.map((id) => call('GET', `/emails/${id}`, undefined, key).then((r) => r.body.last_event as string)));

it('pauses a project that bounces 10% once the sample is reached, holds its mail, leaves another project alone, and resumes', async () => {
  const domain = await verifiedDomain(undefined, 'guarded');
  const send = (to: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/emails', { from: `news@${domain}`, to, subject: 'Guarded', text: 'hello', ...extra });

  // 18 delivered, then a bounce: 19 sent, under the sample of 20, so nothing pauses
  const delivered = await Promise.all(
    Array.from({ length: 18 }, (_, i) => send(`success+${i}@simulator.amazonses.com`)),
  );
  expect(delivered.map((r) => r.status)).toEqual(Array(18).fill(200));
  await after('5 seconds'); // the local SES's 14 a second, and each send's delivery event after it
  expect(await statusesOf(delivered.map((r) => r.body.id))).toEqual(Array(18).fill('delivered'));
  const firstBounce = await send('bounce+1@simulator.amazonses.com');
  await after('1 second');
  expect(await statusesOf([firstBounce.body.id])).toEqual(['bounced']);
  const under = await call('GET', '/project');
  expect(under.body).toMatchObject({
    sending: { status: 'enabled', reason: null },
    reputation: { sent: 19, bounced: 1, window: '24h' },
  });

  // mail accepted before the pause, due a little later
  const at = new Date((await runtime.now()) + 15_000).toISOString();
  const scheduled = await Promise.all(
    [0, 1, 2].map((i) => send(`success+held${i}@simulator.amazonses.com`, { scheduled_at: at })),
  );
  expect(scheduled.map((r) => r.status)).toEqual([200, 200, 200]);

  // the second bounce: 20 sent, 2 bounced (10%, past 4%): paused
  const secondBounce = await send('bounce+2@simulator.amazonses.com');
  await after('1 second');
  expect(await statusesOf([secondBounce.body.id])).toEqual(['bounced']);
  const paused = await call('GET', '/project');
  expect(paused.body.sending).toMatchObject({
    status: 'paused',
    reason: expect.stringMatching(/bounce rate 10\.00% \(the limit is 4\.00%\) over the last 24 hours, 20 emails sent/),
    since: expect.any(String),
  });
  expect(paused.body.reputation).toMatchObject({ sent: 20, bounced: 2, bounce_rate: 0.1, complained: 0 });

  await after('1 second'); // the API's cache of the project's settings (PROJECT_SETTINGS_CACHE_SECONDS=1) runs out
  const refused = await send('success+after@simulator.amazonses.com');
  expect(refused).toMatchObject({
    status: 403,
    body: { name: 'application_error', statusCode: 403, errors: [{ code: 'sending_paused' }] },
  });
  expect(refused.body.message).toMatch(/bounce rate 10\.00%/);
  const batch = await call('POST', '/emails/batch', [
    { from: `news@${domain}`, to: 'success@simulator.amazonses.com', subject: 'b', text: 'b' },
  ]);
  expect(batch.status).toBe(403);
  const segment = (await call('POST', '/segments', { name: 'everyone' })).body.id;
  const broadcast = await call('POST', '/broadcasts', {
    segment_id: segment,
    from: `news@${domain}`,
    subject: 'b',
    html: '<p>b</p>',
    send: true,
  });
  expect(broadcast).toMatchObject({ status: 403, body: { errors: [{ code: 'sending_paused' }] } });
  const events = await call('GET', '/events');
  expect(events.body.data.map((e: { type: string }) => e.type)).toContain('project.sending_paused');

  // another project of the deployment keeps sending
  const { stdout } = await cli('api-key.ts', 'create', '--new-project', '--name', 'neighbour');
  const otherKey = /API key (\S+)/.exec(stdout)![1];
  const otherDomain = await verifiedDomain(otherKey, 'neighbour');
  const neighbour = await call(
    'POST',
    '/emails',
    { from: `hi@${otherDomain}`, to: 'success@simulator.amazonses.com', subject: 'n', text: 'n' },
    otherKey,
  );
  expect(neighbour.status).toBe(200);
  await after('1 second');
  expect(await statusesOf([neighbour.body.id], otherKey)).toEqual(['delivered']);

  // the held mail: past its time and several holds later (one a second, PAUSED_HOLD_SECONDS=1), neither sent nor failed
  await runtime.move({ set: at });
  for (let hold = 0; hold < 4; hold++) await after('1 second');
  expect(await statusesOf(scheduled.map((r) => r.body.id))).toEqual(['scheduled', 'scheduled', 'scheduled']);

  // an operator resumes: the held mail goes at its next turn, sending works again
  const projectId = paused.body.id;
  const resumed = await cli('project.ts', 'resume', '--project', projectId);
  expect(resumed.stdout).toMatch(/sending\s+enabled/);
  // the runtime's cache of the project's settings (PROJECT_SETTINGS_CACHE_SECONDS=1) answers a read past its
  // second with what it had and refreshes beside it (shared/project/settings.ts): the held mail's next
  // turn is held once more, the one after it is sent, and its delivery comes the second after
  for (let turn = 0; turn < 3; turn++) await after('1 second');
  expect(await statusesOf(scheduled.map((r) => r.body.id))).toEqual(['delivered', 'delivered', 'delivered']);
  const again = await send('success+again@simulator.amazonses.com');
  expect(again.status).toBe(200);
  expect((await call('GET', '/events')).body.data.map((e: { type: string }) => e.type)).toContain(
    'project.sending_resumed',
  );
  await expect(cli('project.ts', 'resume', '--project', projectId)).rejects.toMatchObject({
    stderr: expect.stringContaining('not paused'),
  });
}, 300_000);
