import { BLOCKED_MS, watchEventLoop } from '../../local/event-loop-watch';
import { runtimeLogDigest } from '../support/runtime-log';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const hold = (ms: number) => {
  for (const until = Date.now() + ms; Date.now() < until; ); // the event loop is held, as a handler doing CPU work holds it
};

it('logs how long a handler held the local runtime event loop, and the test digest counts it', async () => {
  const lines: string[] = [];
  const watch = watchEventLoop((line) => lines.push(line));
  try {
    await sleep(300); // the watch's first tick
    hold(BLOCKED_MS + 500);
    await sleep(300);
  } finally {
    watch.stop();
  }
  // the hold, at least (a machine busy enough to starve this process for a second would add lines of its own)
  const blocked = lines.map((l) => JSON.parse(l)).filter((l) => l.message === 'event loop blocked');
  expect(blocked.length).toBeGreaterThanOrEqual(1);
  expect(blocked[0]).toMatchObject({ level: 'WARN', blocked_ms: expect.any(Number) });
  expect(Math.max(...blocked.map((l) => l.blocked_ms))).toBeGreaterThanOrEqual(BLOCKED_MS + 250); // held 1.5 s, ticks every 250 ms
  expect(runtimeLogDigest(lines.join('\n'))[0]).toContain(`event loop blocked over 1 s ${blocked.length} times`);
});

it('the digest lists timed-out invocations before the failures suites provoke on purpose', () => {
  const log = [
    JSON.stringify({
      level: 'ERROR',
      message: 'integration failed',
      function: 'PostContactsImports',
      error: 'RequestEntityTooLargeException: the event is 6432414 bytes',
    }),
    'not JSON: a line the runtime printed for people',
    JSON.stringify({
      level: 'ERROR',
      message: 'integration failed',
      function: 'GetEmailsEmailId',
      error: 'Sandbox.Timedout: GetEmailsEmailId: Task timed out after 10.00 seconds',
    }),
  ].join('\n');
  const digest = runtimeLogDigest(log);
  expect(digest[0]).toMatch(/^local runtime: 2 invocations failed at the gateway, 0 unhandled errors/);
  expect(digest[1]).toContain('GetEmailsEmailId');
  expect(digest[2]).toContain('PostContactsImports');
});
