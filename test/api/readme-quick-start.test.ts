/**
 * The README's quick start, run as a new user runs it, so it cannot rot: the shell block and the
 * SDK block marked `<!-- quick-start:... -->` are taken from README.md as written and run against a
 * fresh runtime of their own (a newcomer's first `npm start`: an empty DATA_DIR, the default
 * project, default settings), with the `BASE` and `KEY` the README tells the user to export.
 * Then the test checks what the README promises: the domain verified, the email delivered and in
 * the mail viewer, the bounce on the suppression list, both events printed by the README's webhook
 * receiver, and the SDK's email sent. The only change to the README's text is the receiver's
 * port (4000 there), replaced by a free one so that no other process on the machine can answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RuntimeProcess, startRuntimeProcess } from '../support/runtime-process';
import { waitFor } from '../support/wait';

const root = join(__dirname, '..', '..');

/** The fenced block right after `<!-- quick-start:<name> ... -->` in README.md. */
function quickStartBlock(name: 'shell' | 'node'): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const blocks = [
    ...readme.matchAll(new RegExp(`<!-- quick-start:${name}\\b[^>]*-->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\`\\n`, 'g')),
  ];
  expect(blocks).toHaveLength(1); // the marker is how this test finds the block: keep one of each
  return blocks[0][1];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Run {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Runs a command in a process group of its own (the shell block leaves its receiver running). */
function run(command: string, args: string[], env: Record<string, string>): Run {
  const child = spawn(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function stopGroup(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    return; // the group is gone already
  }
  if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('exit', resolve));
}

let dataDir: string;
let runtime: RuntimeProcess | undefined;
let shell: Run | undefined;

afterEach(async () => {
  await stopGroup(shell?.child); // the README's webhook receiver
  await stopGroup(runtime?.child); // the runtime stops its JVM on SIGTERM
  rmSync(dataDir, { recursive: true, force: true });
});

it('the quick start works as the README writes it: domain, webhook, email, bounce, SDK', async () => {
  const shellBlock = quickStartBlock('shell');
  const sdkBlock = quickStartBlock('node');
  // A runtime of its own per attempt: the quick start makes example.com, which a deployment (and so a runtime) holds once.
  dataDir = mkdtempSync(join(tmpdir(), 'email-service-quick-start-'));
  const key = `es_live_${[...randomBytes(32)].map((b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62]).join('')}`;
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, LOCAL_API_KEY: key });
  const { mailViewerUrl } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
    mailViewerUrl: string;
  };
  const env = { BASE: runtime.apiUrl, KEY: key };
  // The user's API at the default rate limit: the test reads at most a few times a second.
  const get = async (path: string) =>
    (await fetch(runtime!.apiUrl + path, { headers: { authorization: `Bearer ${key}` } })).json() as Promise<any>;

  shell = run('bash', ['-c', `set -eo pipefail\n${shellBlock.replace(/\b4000\b/g, String(await freePort()))}`], env);
  const ended = await waitFor(
    async () => shell!.child.exitCode,
    (code) => code !== null,
    60_000,
  ).catch((error) => error);
  if (ended !== 0) throw new Error(`the README's quick start ended with ${ended}:\n${shell.output()}`);

  // What the shell block printed: each send's {"id": ...}, in the README's order (the email, then the bounce).
  const sentIds = shell
    .output()
    .split('\n')
    .flatMap((line) => /^\{"id":"([^"]+)"\}$/.exec(line)?.[1] ?? []);
  expect(sentIds).toHaveLength(2);
  const [emailId, bounceId] = sentIds;

  const email = await waitFor(
    () => get(`/emails/${emailId}`),
    (e) => e.last_event === 'delivered',
    30_000,
    500,
  );
  const viewer = await waitFor(
    () => fetch(`${mailViewerUrl}/store`).then((r) => r.json() as Promise<{ emails: { subject: string }[] }>),
    (store) => store.emails.some((m) => m.subject === email.subject),
  );
  expect(viewer.emails.map((m) => m.subject)).toContain(email.subject);

  const bounce = await waitFor(
    () => get(`/emails/${bounceId}`),
    (e) => e.last_event === 'bounced',
    30_000,
    500,
  );
  const suppressions = await waitFor(
    () => get('/suppressions'),
    (list) => list.data.length > 0,
    30_000,
    500,
  );
  expect(suppressions.data).toEqual([expect.objectContaining({ email: bounce.to[0], source: 'bounce' })]);

  // The receiver prints each delivery's body on a line of its own.
  const printedEvents = () =>
    shell!
      .output()
      .split('\n')
      .flatMap((line) => {
        try {
          const event = JSON.parse(line);
          return event.type ? [`${event.type} ${event.data?.email_id}`] : [];
        } catch {
          return [];
        }
      });
  await waitFor(
    async () => printedEvents(),
    (events) => events.includes(`email.delivered ${emailId}`) && events.includes(`email.bounced ${bounceId}`),
    30_000,
  );

  const sdk = run(process.execPath, ['--input-type=module', '-e', sdkBlock], env);
  const sdkEnded = await sdk.exited;
  const sdkEmailId = /id: '([^']+)'/.exec(sdk.output())?.[1];
  if (sdkEnded !== 0 || !sdkEmailId)
    throw new Error(`the README's SDK lines printed no email id (exit ${sdkEnded}):\n${sdk.output()}`);
  await waitFor(
    () => get(`/emails/${sdkEmailId}`),
    (e) => e.last_event === 'delivered',
    30_000,
    500,
  );
}, 180_000);
