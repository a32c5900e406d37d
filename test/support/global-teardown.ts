import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

/** Stops the local runtime (it stops DynamoDB Local's JVM itself) and removes its data folder. */
export default async function globalTeardown(): Promise<void> {
  const child = (globalThis as { __localRuntime?: ChildProcess }).__localRuntime;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  if (process.env.TEST_DATA_DIR) rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
}
