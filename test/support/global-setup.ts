/**
 * Starts the local runtime once for the whole run, the way a user does (`npm start`: `node --import tsx bin/local.ts`),
 * with DynamoDB in memory, free ports and a known key, and hands its address to the suites
 * through the environment (jest workers inherit it).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_API_KEY } from './constants';
import { runtimeLogPath } from './runtime-log';

export default async function globalSetup(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-test-'));
  // Every AWS call of every function, in the runtime and in the suites' own pollers (jest workers
  // inherit this environment): the teardown checks it against the functions' needs.
  process.env.AWS_CALLS_LOG = join(dataDir, 'aws-calls.log');
  // As `npm start` runs it: node with tsx as a loader, one process that stops its JVM on SIGTERM
  // (the tsx CLI would turn the teardown's SIGTERM into a SIGKILL after 30 ms).
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'local.ts')], {
    cwd: join(__dirname, '..', '..'),
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      LOCAL_API_KEY: TEST_API_KEY,
      LOCAL_SES_PORT: '0',
      LOCAL_SMTP_PORT: '0', // inbound mail (test/api/receiving.test.ts)
      LOCAL_SCHEDULE_INTERVAL_SECONDS: '1', // scheduled workers (due emails, domain checks) every second
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1', // webhook deliveries: 4 attempts, a second apart
      // the suites share the default project, two at a time: its limit is far above what they make;
      // test/api/limits.test.ts gives projects of its own their limits
      API_RATE_LIMIT_PER_SECOND: '100000',
      PROJECT_SETTINGS_CACHE_SECONDS: '1', // a project's changed limits apply within a second (and one request)
      // the suites bounce and complain on purpose, in the shared default project: the reputation guard never pauses
      // it here; test/api/reputation-guard.test.ts runs a runtime of its own with a small minimum sample
      REPUTATION_MIN_SENDS: '1000000000',
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'WARN',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`local runtime not ready after 60 s:\n${output}`)), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      const match = /^API (http:\/\/\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`local runtime exited (${code}):\n${output}`));
    });
  });
  child.stdout!.resume();
  child.stderr!.resume();
  // The runtime's own log (its errors name the function and the failure): the teardown reports its
  // timeouts and stalls (./runtime-log.ts); LOCAL_RUNTIME_LOG=<file> keeps it after the run.
  const log = createWriteStream(runtimeLogPath(dataDir));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  process.env.TEST_API_URL = apiUrl;
  process.env.TEST_DATA_DIR = dataDir;
  // own runtimes that files with the same settings share, one after the other (./runtime-pool.ts)
  process.env.TEST_RUNTIME_POOL = join(dataDir, 'runtimes');
  (globalThis as { __localRuntime?: typeof child }).__localRuntime = child;
}
