/**
 * A local runtime of a test's own, started as `npm start` starts it (`node --import tsx
 * bin/local.ts`), in a process group of its own, with DynamoDB in memory and free ports: for tests
 * that need settings the suites' shared runtime must not have, or that might take a runtime down.
 * `env` adds to or overrides those defaults (DATA_DIR and LOCAL_API_KEY at least).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface RuntimeProcess {
  child: ChildProcess;
  apiUrl: string;
  /** what it printed so far */
  output: () => string;
}

const root = join(__dirname, '..', '..');

export async function startRuntimeProcess(env: Record<string, string>): Promise<RuntimeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin', 'local.ts')], {
    cwd: root,
    detached: true, // a group of its own: the test's afterAll stops whatever is left of it
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DYNAMODB_IN_MEMORY: 'true',
      LOCAL_SES_PORT: '0',
      LOCAL_SMTP_PORT: '0',
      LOG_LEVEL: 'WARN',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 90_000; // a loaded machine took 35 s
  for (;;) {
    const match = /^API (http:\/\/\S+)$/m.exec(output);
    if (match) return { child, apiUrl: match[1], output: () => output };
    if (child.exitCode !== null) throw new Error(`exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`not ready:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a runtime started above, if still running: SIGTERM to its group (it stops its JVM itself), and waits for it to exit. */
export async function stopRuntimeProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
}
