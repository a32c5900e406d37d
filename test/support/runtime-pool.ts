/**
 * Own runtimes that outlive their test file (./own-runtime.ts's `{ share: true }`), so the next file
 * of the same jest worker with the same settings takes the runtime over instead of starting one.
 * The pool is a folder the global setup names (TEST_RUNTIME_POOL; ./global-setup.ts): one file per
 * runtime, named by the worker and the settings, holding its process, API and data folder. The
 * global teardown stops every runtime in it and removes their folders (`stopPooledRuntimes`). Outside
 * a run with that setup there is no pool, and each file starts and stops its own.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PooledRuntime {
  pid: number;
  url: string;
  dataDir: string;
}

function entryPath(env: Record<string, string>): string | undefined {
  const pool = process.env.TEST_RUNTIME_POOL;
  if (!pool) return undefined;
  const settings = JSON.stringify(Object.entries(env).sort(([a], [b]) => a.localeCompare(b)));
  const hash = createHash('sha256').update(settings).digest('hex').slice(0, 16);
  return join(pool, `${process.env.JEST_WORKER_ID ?? '0'}-${hash}.json`);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** This worker's runtime with these settings, if one is running. */
export function pooledRuntime(env: Record<string, string>): PooledRuntime | undefined {
  const path = entryPath(env);
  if (!path || !existsSync(path)) return undefined;
  const entry = JSON.parse(readFileSync(path, 'utf8')) as PooledRuntime;
  return alive(entry.pid) ? entry : undefined;
}

/** Leaves a runtime to the pool; false when there is no pool (the caller stops it itself). */
export function poolRuntime(env: Record<string, string>, runtime: PooledRuntime): boolean {
  const path = entryPath(env);
  if (!path) return false;
  mkdirSync(process.env.TEST_RUNTIME_POOL!, { recursive: true });
  writeFileSync(path, JSON.stringify(runtime));
  return true;
}

/** The global teardown's part: SIGTERM to each pooled runtime's process group (it stops its JVM), then its folder. */
export async function stopPooledRuntimes(pool: string): Promise<void> {
  if (!existsSync(pool)) return;
  const entries = readdirSync(pool).map((name) => JSON.parse(readFileSync(join(pool, name), 'utf8')) as PooledRuntime);
  const signal = (pid: number, name: NodeJS.Signals) => {
    try {
      process.kill(-pid, name);
    } catch {
      // gone meanwhile: a runtime stops itself when the worker that started it ends
    }
  };
  for (const { pid } of entries) signal(pid, 'SIGTERM');
  const deadline = Date.now() + 15_000;
  while (entries.some((e) => alive(e.pid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const { pid } of entries.filter((e) => alive(e.pid))) signal(pid, 'SIGKILL');
  for (const { dataDir } of entries) rmSync(dataDir, { recursive: true, force: true });
  rmSync(pool, { recursive: true, force: true });
}
