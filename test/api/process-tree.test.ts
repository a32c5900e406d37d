/**
 * The local runtime's process tree ends as one (local/process-tree.ts): `npm start` is
 * `npm -> node bin/local.ts -> java` (plus the JVM's watchdog and esbuild's service), and a
 * signal to npm or to node, or SIGKILL of node, leaves no process of it within 10 s, the JVM
 * included, with the ports free. A start after a hard kill stops the JVM the dead runtime left
 * on DATA_DIR, one right after a SIGKILL of the whole group starts though the killed processes are
 * still zombies, and never do two runtimes share one DATA_DIR (local/data-dir-lock.ts).
 *
 * Every runtime runs in its own process group, which afterAll kills whatever happened.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../support/wait';

const root = join(__dirname, '..', '..');
const key = `es_test_${'T'.repeat(32)}`;
/** the issue's promise: every process gone this long after the signal */
const GONE_WITHIN_MS = 10_000;

interface Proc {
  pid: number;
  ppid: number;
  pgid: number;
  args: string;
}
/** Every live process (zombies, already dead and waiting to be reaped, left out). */
function processes(): Proc[] {
  const ps = spawnSync('ps', ['-ww', '-A', '-o', 'pid=,ppid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return ps.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[4].startsWith('Z'))
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] }));
}

interface Runtime {
  child: ChildProcess;
  /** its process group: every process of the tree, the JVM included, wherever it was reparented */
  group: number;
  dataDir: string;
  output: () => string;
  exited: Promise<number | null>;
}

const groups = new Set<number>();
const dataDirs: string[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
});

const runtimeArgs = ['--import', 'tsx', join(root, 'bin', 'local.ts')];
/**
 * How a runtime is started: `npm start` as a user runs it, bin/local.ts without npm, or bin/local.ts
 * under a parent that never reaps it (a container whose PID 1 is no init, a supervisor that does not
 * wait): `sh` starts it in a session of its own, prints its pid, and becomes `sleep`, so once killed
 * the runtime stays a zombie for as long as the test lets that parent live.
 */
const commands: Record<'npm' | 'node' | 'unreaped', [string, string[]]> = {
  npm: ['npm', ['start']],
  node: [process.execPath, runtimeArgs],
  unreaped: [
    'sh',
    ['-c', 'setsid "$@" & echo "runtime pid $!"; exec sleep 600', 'sh', process.execPath, ...runtimeArgs],
  ],
};

/** Starts a runtime (see {@link commands}) on `dataDir` (a new one by default). */
async function launch(
  how: keyof typeof commands,
  dataDir = mkdtempSync(join(tmpdir(), 'email-service-tree-')),
): Promise<Runtime> {
  if (!dataDirs.includes(dataDir)) dataDirs.push(dataDir);
  const [command, args] = commands[how];
  const child = spawn(command, args, {
    cwd: root,
    detached: true, // a group of its own
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOCAL_API_KEY: key,
      LOCAL_SES_PORT: '0',
      LOCAL_SMTP_PORT: '0',
      LOG_LEVEL: 'WARN',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.add(child.pid!);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (how !== 'unreaped') return { child, group: child.pid!, dataDir, output: () => output, exited };
  const printed = await waitFor(
    async () => /^runtime pid (\d+)$/m.exec(output),
    (match) => match !== null,
  );
  const group = Number(printed![1]); // the runtime leads a session, and so a group, of its own
  groups.add(group);
  return { child, group, dataDir, output: () => output, exited };
}

async function ready(runtime: Runtime): Promise<{ apiPort: number; dynamoPort: number }> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    const api = /^API http:\/\/127\.0\.0\.1:(\d+)$/m.exec(runtime.output());
    const dynamo = /^DynamoDB Local http:\/\/127\.0\.0\.1:(\d+)/m.exec(runtime.output());
    if (api && dynamo) return { apiPort: Number(api[1]), dynamoPort: Number(dynamo[1]) };
    if (runtime.child.exitCode !== null) throw new Error(`exited early:\n${runtime.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready:\n${runtime.output()}`);
}

const tree = (runtime: Runtime) => processes().filter((p) => p.pgid === runtime.group);
const nodeOf = (runtime: Runtime) => tree(runtime).find((p) => /^\S*node .*bin\/local\.ts/.test(p.args))!;
const jvmOf = (runtime: Runtime) => tree(runtime).find((p) => /^\S*java .*DynamoDBLocal\.jar/.test(p.args))!;

/** Resolves once no process of the tree is left; fails naming those still there after `ms`. */
async function gone(runtime: Runtime, ms = GONE_WITHIN_MS): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = tree(runtime);
    if (left.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(
        `still running ${ms / 1000} s later:\n${left.map((p) => `${p.pid} ${p.args.slice(0, 120)}`).join('\n')}\noutput:\n${runtime.output()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** The runtime's tree as the issue names it; the layer that gets the signal. */
const cases: ['npm' | 'node', NodeJS.Signals][] = [
  ['npm', 'SIGTERM'],
  ['npm', 'SIGINT'],
  ['npm', 'SIGHUP'],
  ['node', 'SIGTERM'],
  ['node', 'SIGINT'],
  ['node', 'SIGHUP'],
];

// Concurrent: each start takes seconds, and every runtime has its own ports and DATA_DIR.
it.concurrent.each(cases)(
  '`npm start` stops as a whole when %s gets %s',
  async (target, signal) => {
    const runtime = await launch('npm');
    const { apiPort, dynamoPort } = await ready(runtime);
    expect(tree(runtime).map((p) => p.args)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^npm start/),
        expect.stringMatching(/bin\/local\.ts/),
        expect.stringMatching(/^java .*DynamoDBLocal\.jar/),
      ]),
    );

    process.kill(target === 'npm' ? runtime.child.pid! : nodeOf(runtime).pid, signal);
    await gone(runtime);
    expect(await listening(apiPort)).toBe(false);
    expect(await listening(dynamoPort)).toBe(false);
    expect(runtime.output()).toMatch(new RegExp(`^(${signal}|parent process ended): stopping$`, 'm'));
  },
  120_000,
);

it.concurrent('leaves no JVM behind when node is killed with SIGKILL', async () => {
  const runtime = await launch('npm');
  const { dynamoPort } = await ready(runtime);
  const jvm = jvmOf(runtime);
  process.kill(nodeOf(runtime).pid, 'SIGKILL');
  await gone(runtime); // the JVM's watchdog: SIGTERM at once, SIGKILL after 5 s
  expect(processes().some((p) => p.pid === jvm.pid)).toBe(false);
  expect(await listening(dynamoPort)).toBe(false);
}, 120_000);

it.concurrent('a start after a hard kill stops the JVM left on DATA_DIR; a second runtime on it is refused', async () => {
  // Killed hard: node and the JVM's watchdog with SIGKILL at once, so the JVM survives them.
  const first = await launch('node');
  await ready(first);
  const orphan = jvmOf(first);
  const watchdog = tree(first).find((p) => p.ppid === orphan.pid)!;
  process.kill(nodeOf(first).pid, 'SIGKILL');
  process.kill(watchdog.pid, 'SIGKILL');
  await first.exited;
  // the group settles a moment after node's exit (a child the killed node had just started can still be there)
  const settleBy = Date.now() + 5_000;
  while (tree(first).length > 1 && Date.now() < settleBy) await new Promise((r) => setTimeout(r, 100));
  expect(tree(first).map((p) => p.pid)).toEqual([orphan.pid]);

  // The JVM alone, no lock to prove whose it is: refused, not killed.
  const lock = join(first.dataDir, 'runtime.lock');
  renameSync(lock, `${lock}.aside`);
  const unproven = await launch('node', first.dataDir);
  expect(await unproven.exited).toBe(1);
  expect(unproven.output()).toContain(
    `DATA_DIR ${first.dataDir} is in use by a DynamoDB Local this runtime did not start (pid ${orphan.pid})`,
  );
  expect(tree(first).map((p) => p.pid)).toEqual([orphan.pid]);

  // With the dead runtime's lock, which records the JVM: stopped, and the start goes on.
  renameSync(`${lock}.aside`, lock);
  const second = await launch('node', first.dataDir);
  await ready(second);
  expect(second.output()).toContain(
    `stopping DynamoDB Local (pid ${orphan.pid}), left running by a runtime that ended without stopping it`,
  );
  await gone(first, 0);

  const third = await launch('node', first.dataDir);
  expect(await third.exited).toBe(1);
  const holder = (JSON.parse(readFileSync(lock, 'utf8')) as { pid: number }).pid;
  expect(holder).toBe(second.child.pid);
  expect(third.output().trim()).toBe(
    `DATA_DIR ${first.dataDir} is in use by another local runtime (pid ${holder}); stop it first or choose another DATA_DIR`,
  );

  second.child.kill('SIGTERM');
  await gone(second);
}, 180_000);

/** A process's state letter (`ps -o stat=`: R, S, Z for a zombie...), undefined once it is gone. */
const stateOf = (pid: number) =>
  spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).stdout.trim()[0];

it('starts on DATA_DIR right after a SIGKILL of the runtime that held it, whose process is still a zombie', async () => {
  // Killed as a crash or `kill -9 -<group>` ends it; its parent never reaps it, so it stays a zombie: dead,
  // holding no file, but still answering to its pid (the lock's holder) until reaped.
  const first = await launch('unreaped');
  await ready(first);
  process.kill(-first.group, 'SIGKILL');
  const killedAt = Date.now();
  const second = await launch('node', first.dataDir);
  expect(Date.now() - killedAt).toBeLessThan(200);

  await ready(second);
  expect(stateOf(first.group)).toBe('Z'); // still a zombie while the second start took DATA_DIR
  const lock = JSON.parse(readFileSync(join(first.dataDir, 'runtime.lock'), 'utf8')) as { pid: number };
  expect(lock.pid).toBe(second.child.pid);

  second.child.kill('SIGTERM');
  await gone(second);
}, 180_000);
