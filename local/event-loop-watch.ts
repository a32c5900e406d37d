/**
 * Every function of the local runtime shares one Node process (on AWS each invocation has a sandbox
 * of its own), so a handler that holds the event loop delays every other invocation, and on a
 * loaded machine that is what pushes a route past its timeout. The runtime says so when it
 * happens: a WARN line with how long the loop was held, which the tests' teardown reports.
 */
/** Drift of the watch's timer beyond which the loop counts as blocked. */
export const BLOCKED_MS = 1000;
const TICK_MS = 250;

export function watchEventLoop(log: (line: string) => void): { stop(): void } {
  let expected = Date.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = Date.now();
    const late = now - expected;
    expected = now + TICK_MS;
    if (late >= BLOCKED_MS)
      log(
        JSON.stringify({
          level: 'WARN',
          message: 'event loop blocked',
          blocked_ms: late,
          timestamp: new Date(now).toISOString(),
        }),
      );
  }, TICK_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
