/**
 * The benchmarks' way to the service: the local runtime started in this process (DynamoDB in
 * memory, the local SES verifying at once, schedules every 5 s) with one live key, and a caller
 * of its HTTP API (with that key, or another one given) that throws on any answer but 2xx. `settings` adds or overrides runtime settings.
 * Requests are counted against the project's rate limit, set far above what a benchmark makes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalRuntime, startLocalRuntime } from '../local/runtime';
import { readSettings } from '../local/settings';

export interface BenchApi {
  runtime: LocalRuntime;
  call: (method: string, path: string, body?: unknown, as?: string) => Promise<any>;
  /** stops the runtime and removes its data */
  stop: () => Promise<void>;
}

export async function startBenchApi(
  name: string,
  key: string,
  settings: Record<string, string> = {},
): Promise<BenchApi> {
  const dataDir = mkdtempSync(join(tmpdir(), `email-service-bench-${name}-`));
  process.env.LOG_LEVEL = 'ERROR';
  // Every request is counted as in production, against a limit the benchmarks never reach (bench/rate-limit.ts measures the count's cost)
  process.env.API_RATE_LIMIT_PER_SECOND = settings.API_RATE_LIMIT_PER_SECOND ?? '1000000';
  const runtime = await startLocalRuntime(
    readSettings({
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      LOCAL_API_KEY: key,
      LOCAL_SES_PORT: '0',
      LOCAL_SES_VERIFY_DELAY_MS: '0',
      LOCAL_SCHEDULE_INTERVAL_SECONDS: '5',
      ...settings,
    }),
    () => undefined,
  );
  const call = async (method: string, path: string, body?: unknown, as = key) => {
    const res = await fetch(runtime.apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  const stop = async () => {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { runtime, call, stop };
}
