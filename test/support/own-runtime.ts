/**
 * A local runtime of a test file's own (./runtime-process.ts), started in the file's beforeAll and
 * stopped in its afterAll, with a client for its API and its control API (local/control.ts):
 * for tests that control time (`LOCAL_CLOCK: 'manual'`) or wait for the whole pipeline to settle
 * (`drain`), which beside the suites' shared runtime would wait for every other suite too.
 *
 *   const runtime = useOwnRuntime({ LOCAL_CLOCK: 'manual' });
 *   await runtime.call('POST', '/emails', {...}, key);
 *   await runtime.move({ advance: '2 days' });   // everything due by then has happened
 *   await runtime.drain();                       // everything due now has settled
 *
 * Every JSON answer of the API's own routes is checked against the OpenAPI document, as the shared
 * runtime's client does (./http.ts). With `{ forFile: true }` the file's whole client moves to it:
 * TEST_API_URL and TEST_DATA_DIR name this runtime from beforeAll to afterAll, so ./http.ts and
 * the helpers that read the runtime's endpoints from its DATA_DIR talk to it.
 *
 * With `{ share: true }` files with the same settings share one runtime (a start costs a JVM and
 * the handlers' compile, 5-15 s on 2 cores): the first such file of a jest worker starts it, the
 * next ones of that worker take it over, and the global teardown stops it (./runtime-pool.ts). Files
 * that run one after the other share it, never two at once (each worker has its own). A file that
 * shares must not count what it did not make: it works in projects, resources and names of its
 * own, reads the clock rather than assuming where it stands (the last file moved it forward), and
 * takes its drains and moves as settling whatever the file before it left due too.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_API_KEY } from './constants';
import { responseShapeProblem } from './response-shapes';
import { pooledRuntime, poolRuntime } from './runtime-pool';
import { startRuntimeProcess, stopRuntimeProcess } from './runtime-process';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface OwnRuntime {
  /** the API's base URL (set once the file's beforeAll ran) */
  readonly url: string;
  readonly dataDir: string;
  /** a request with the runtime's full-access key unless another (or `null`: none) is given */
  call(method: string, path: string, body?: unknown, key?: string | null): Promise<Answer>;
  /** POST /_local/drain; fails the test unless it settled */
  drain(timeoutSeconds?: number): Promise<Answer>;
  /** POST /_local/clock (a manual clock); fails the test unless every stop settled */
  move(
    to: { advance: string } | { advance_seconds: number } | { set: string },
    timeoutSeconds?: number,
  ): Promise<Answer>;
  /** the runtime's clock, epoch ms */
  now(): Promise<number>;
  /** what the runtime printed so far */
  output(): string;
}

export function useOwnRuntime(
  env: Record<string, string> = {},
  options: { forFile?: boolean; share?: boolean } = {},
): OwnRuntime {
  let child: ChildProcess | undefined;
  const shared = { url: process.env.TEST_API_URL, dataDir: process.env.TEST_DATA_DIR };
  let url = '';
  let dataDir = '';
  let output = () => '';

  beforeAll(async () => {
    const pooled = options.share ? pooledRuntime(env) : undefined;
    if (pooled) ({ url, dataDir } = pooled);
    else {
      dataDir = mkdtempSync(join(tmpdir(), 'email-service-own-'));
      const started = await startRuntimeProcess({ DATA_DIR: dataDir, LOCAL_API_KEY: TEST_API_KEY, ...env });
      url = started.apiUrl;
      output = started.output;
      // kept for the next file of this worker with the same settings, or stopped in afterAll
      if (!(options.share && poolRuntime(env, { pid: started.child.pid!, url, dataDir }))) child = started.child;
    }
    if (options.forFile) Object.assign(process.env, { TEST_API_URL: url, TEST_DATA_DIR: dataDir });
  }, 120_000);

  afterAll(async () => {
    if (options.forFile)
      for (const [name, value] of [
        ['TEST_API_URL', shared.url],
        ['TEST_DATA_DIR', shared.dataDir],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    if (!child) return; // the pool's: the next file takes it over, the global teardown stops it
    await stopRuntimeProcess(child);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const call = async (
    method: string,
    path: string,
    body?: unknown,
    key: string | null = TEST_API_KEY,
  ): Promise<Answer> => {
    const response = await fetch(url + path, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    if (!path.startsWith('/_local/')) {
      const problem = responseShapeProblem(method, path, response.status, parsed, response.headers.get('content-type'));
      if (problem) throw new Error(`The answer disagrees with the OpenAPI document: ${problem}`);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  };

  const settled = (what: string, answer: Answer): Answer => {
    if (answer.status !== 200)
      throw new Error(`${what} did not settle: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer;
  };

  return {
    get url() {
      return url;
    },
    get dataDir() {
      return dataDir;
    },
    call,
    drain: async (timeoutSeconds = 60) =>
      settled('drain', await call('POST', '/_local/drain', { timeout_seconds: timeoutSeconds })),
    move: async (to, timeoutSeconds = 60) =>
      settled('the clock', await call('POST', '/_local/clock', { ...to, timeout_seconds: timeoutSeconds })),
    now: async () => Date.parse((await call('GET', '/_local/clock')).body.now),
    output: () => output(),
  };
}
