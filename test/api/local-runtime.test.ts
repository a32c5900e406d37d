/**
 * `npm start` as a user meets it: data under DATA_DIR survives a restart, LOCAL_API_KEY is
 * provisioned exactly, SIGTERM stops every child (DynamoDB Local's JVM included), and a machine
 * without Java gets a message naming the fix. The runtime runs as the start script runs it (node
 * with tsx as a loader; the tsx CLI in between killed it with SIGKILL when it was slow to answer
 * a relayed signal), in a process group of its own that afterAll kills whatever happened; every
 * signal and layer of the tree is test/api/process-tree.test.ts's.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const groups: number[] = [];
afterAll(() =>
  groups.forEach((group) => {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }),
);
/** The live processes of a process group (zombies, dead and waiting to be reaped, left out). */
const groupProcesses = (group: number) =>
  spawnSync('ps', ['-A', '-o', 'pgid=,stat=,args='], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([pgid, stat]) => Number(pgid) === group && !stat.startsWith('Z'));
/** What of the group is still there 10 s after the runtime exited (esbuild's service and the JVM's watchdog end a moment after it). */
async function leftBehind(group: number): Promise<string[][]> {
  for (let waited = 0; waited < 10_000 && groupProcesses(group).length > 0; waited += 100)
    await new Promise((r) => setTimeout(r, 100));
  return groupProcesses(group);
}

function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'bin', 'local.ts')], {
    cwd: root,
    detached: true,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(child.pid!);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

async function ready(started: Started): Promise<string> {
  const deadline = Date.now() + 90_000; // a loaded machine took 35 s
  while (Date.now() < deadline) {
    const match = /^API (http:\/\/\S+)$/m.exec(started.output());
    if (match) return match[1];
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready:\n${started.output()}`);
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

const key = `es_test_${'R'.repeat(32)}`;

it('keeps data across a restart and leaves no process behind', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-restart-'));
  const env = { DATA_DIR: dataDir, LOCAL_API_KEY: key, LOCAL_SES_PORT: '0' };
  try {
    const first = start(env);
    const url = await ready(first);
    expect(first.output()).toMatch(/^Mail viewer http:\/\/127\.0\.0\.1:\d+$/m);
    const dynamoPort = Number(/DynamoDB Local http:\/\/127\.0\.0\.1:(\d+)/.exec(first.output())![1]);
    const created = await fetch(`${url}/segments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Persistent' }),
    }).then((r) => r.json() as Promise<{ id: string }>);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(await listening(dynamoPort)).toBe(false); // the JVM went with it
    expect(await leftBehind(first.child.pid!)).toEqual([]);

    const second = start(env);
    const url2 = await ready(second);
    const read = await fetch(`${url2}/segments/${created.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: created.id, name: 'Persistent' });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
    expect(await leftBehind(second.child.pid!)).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000);

const scratch: string[] = [];
const scratchDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'email-service-start-'));
  scratch.push(dir);
  return dir;
};
afterAll(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

it('refuses a malformed LOCAL_API_KEY with a clear message', async () => {
  const started = start({ DATA_DIR: scratchDir(), LOCAL_API_KEY: 'es_live_short' });
  expect(await started.exited).toBe(1);
  expect(started.output()).toContain('LOCAL_API_KEY must be es_test_ or es_live_ followed by 32');
});

it('names the fix when Java is missing', async () => {
  const started = start({ DATA_DIR: scratchDir(), PATH: '/nonexistent', DYNAMODB_IN_MEMORY: 'true' });
  expect(await started.exited).toBe(1);
  expect(started.output()).toContain('DynamoDB Local needs a Java runtime (17 or newer)');
  expect(started.output()).toContain('apt-get install -y openjdk-17-jre-headless');
});
