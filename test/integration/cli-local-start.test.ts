/**
 * `npm start` in a terminal, as a new user meets it (issue 33, 6 to 8): the first start's key stays
 * in view (one short line per request, the JSON log in DATA_DIR/logs) and is kept in
 * DATA_DIR/first-key.txt (0600); a restart prints the exact command that makes another key of the
 * same project, DATA_DIR included, and that command works; the local rate limit is 1,000 a second
 * unless API_RATE_LIMIT_PER_SECOND says otherwise, and a 429 names the setting. A runtime of its own
 * on disk (the restart keeps its data), started as `npm start` starts it, in human terminal format.
 */
import { exec } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process';
import { waitFor } from '../support/wait';

const root = join(__dirname, '..', '..');
const folders: string[] = [];
let runtime: RuntimeProcess | undefined;

async function stop(started: RuntimeProcess): Promise<void> {
  if (started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  process.kill(-started.child.pid!, 'SIGTERM');
  await exited;
}
afterEach(async () => {
  if (runtime) await stop(runtime);
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const start = (dataDir: string, env: Record<string, string> = {}) =>
  startRuntimeProcess({
    DATA_DIR: dataDir,
    DYNAMODB_IN_MEMORY: 'false',
    LOCAL_TERMINAL_LOG: 'human',
    LOG_LEVEL: 'INFO',
    LOCAL_API_KEY: '',
    API_RATE_LIMIT_PER_SECOND: '',
    ...env,
  });
const get = (apiUrl: string, path: string, key: string) =>
  fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });

it('keeps the first key in view and in first-key.txt, and a restart names the command for another', async () => {
  // a folder whose name needs quoting in a shell: the printed command must still work when pasted
  const dataDir = mkdtempSync(join(tmpdir(), "email-service-first start's-"));
  folders.push(dataDir);
  runtime = await start(dataDir);
  const first = runtime;
  const key = /^API key (es_live_\w{32}) {2}<- shown once here; also in (.+)$/m.exec(first.output());
  expect(key).not.toBeNull();
  const keyFile = join(dataDir, 'first-key.txt');
  expect(key![2]).toBe(keyFile);
  expect(readFileSync(keyFile, 'utf8')).toBe(`${key![1]}\n`);
  expect(statSync(keyFile).mode & 0o777).toBe(0o600);
  const projectId = /^Project (\S+)$/m.exec(first.output())![1];

  // one short line per request on the terminal; the JSON request log only in the file
  const answer = await get(first.apiUrl, '/segments', key![1]);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('ratelimit-limit')).toBe('1000'); // the local default
  await waitFor(
    async () => first.output(),
    (output) => /^\d\d:\d\d:\d\d GET \/segments 200 \d+ ms$/m.test(output),
  );
  expect(
    first
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{')),
  ).toEqual([]);
  const logFile = join(dataDir, 'logs', 'runtime.log');
  expect(first.output()).toContain(`Log ${logFile}`);
  const logged = readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  expect(logged).toContainEqual(
    expect.objectContaining({ level: 'INFO', message: 'request', method: 'GET', path: '/segments', status: 200 }),
  );
  expect(statSync(logFile).mode & 0o777).toBe(0o600);

  await stop(first);
  runtime = await start(dataDir, { API_RATE_LIMIT_PER_SECOND: '3' });
  const again = runtime;
  expect(again.output()).not.toMatch(/es_live_\w{32}/);
  const line =
    /^API key: the one printed on the first start, also in (.+); another: (DATA_DIR=.+ npm run api-key -- create)$/m.exec(
      again.output(),
    );
  expect(line).not.toBeNull();
  expect(line![1]).toBe(keyFile);

  // the printed command, pasted into a shell, makes a key of the same project
  const { stdout } = await promisify(exec)(line![2], {
    cwd: root,
    env: { ...process.env, DATA_DIR: '', TABLE_NAME: '' },
  });
  const another = /API key (es_live_\w{32})/.exec(stdout)![1];
  expect(((await (await get(again.apiUrl, '/project', another)).json()) as { id: string }).id).toBe(projectId);

  // API_RATE_LIMIT_PER_SECOND applies, and the 429 says that is the setting
  const burst = await Promise.all(Array.from({ length: 12 }, () => get(again.apiUrl, '/segments', key![1])));
  const refused = burst.filter((r) => r.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  const body = (await refused[0].json()) as { message: string };
  expect(body.message).toMatch(
    /^Too many requests: this project may make 3 requests a second \(API_RATE_LIMIT_PER_SECOND, the deployment's default for projects without a limit of their own\); retry after 1 s$/,
  );
}, 240_000);
