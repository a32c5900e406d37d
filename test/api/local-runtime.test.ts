/**
 * `npm start` as a user meets it: data under DATA_DIR survives a restart, LOCAL_API_KEY is
 * provisioned exactly, SIGTERM stops every child (DynamoDB Local's JVM included), and a machine
 * without Java gets a message naming the fix.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../lib/local/ports';

const root = join(__dirname, '..', '..');
const tsxCli = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(env: Record<string, string>): Started {
  const child = spawn(process.execPath, [tsxCli, join(root, 'bin', 'local.ts')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'WARN', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, output: () => output, exited };
}

async function ready(started: Started): Promise<string> {
  const deadline = Date.now() + 60_000;
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
  const env = { DATA_DIR: dataDir, LOCAL_API_KEY: key, LOCAL_SES_PORT: String(await freePort()) };
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

    const second = start(env);
    const url2 = await ready(second);
    const read = await fetch(`${url2}/segments/${created.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ id: created.id, name: 'Persistent' });
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);

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
