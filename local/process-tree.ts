/**
 * The local runtime's process tree and how it ends. `npm start` is `npm -> node bin/local.ts ->
 * java (DynamoDB Local)` (the start script `exec`s node with tsx as a loader: no `sh`, no tsx
 * CLI between npm and the runtime). Every way one of them can end takes the others with it:
 *
 * 1. SIGINT or SIGTERM to npm: npm forwards it to node, which stops gracefully (bin/local.ts).
 * 2. SIGINT, SIGTERM or SIGHUP to node: node stops gracefully, java last.
 * 3. SIGHUP or SIGKILL to npm (npm forwards neither): node's parent changes, and node stops as if
 *    signalled ({@link followParent}, checked every second).
 * 4. node dies without cleanup (SIGKILL, a crash): java is started through a watchdog
 *    ({@link spawnTied}) that stops it once node's end of a pipe closes, which the kernel does
 *    for any death.
 * 5. Anything left after a hard kill of the whole tree is found by the next start through the
 *    DATA_DIR lock (local/data-dir-lock.ts), which records each process's identity.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** How often a runtime checks that the process that started it still does (step 3). */
const PARENT_CHECK_MS = 1000;

/**
 * Calls `onGone` once the process that started this one has ended (this process got a new
 * parent). The runtime always follows its launcher: npm, a shell, a test runner.
 */
export function followParent(onGone: () => void): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The watchdog (step 4), in `sh` so it costs no runtime and no download: it keeps the pipe from
 * node on fd 3, forks a reader of it, and `exec`s the command in its own place (so the child's pid
 * is the command's pid, and signals reach it directly). The reader ignores the terminal's signals
 * and waits: a line (`stopped`, written by {@link spawnTied} when the command exits) means node
 * saw the command end, and it exits quietly; end of file means node died, and it sends SIGTERM to the command, then
 * SIGKILL after 5 s if it still runs.
 */
const WATCHDOG = [
  'exec 3<&0 </dev/null',
  '( trap "" INT TERM HUP',
  '  read -r line <&3 && exit 0',
  '  kill -TERM $$ || exit 0',
  '  for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.5; kill -0 $$ || exit 0; done',
  '  kill -KILL $$ ) >/dev/null 2>&1 &',
  'exec "$@" 3<&-',
].join('\n');

/**
 * Spawns `command` so that it cannot outlive this process, even one killed with SIGKILL; its
 * stdout and stderr are pipes to this process, its stdin the watchdog's. Without `sh` (Windows)
 * the command is spawned directly, and only a graceful stop ends it.
 */
export function spawnTied(command: string, args: string[]): ChildProcess {
  if (process.platform === 'win32') return spawn(command, args, { stdio: 'pipe' });
  const child = spawn('sh', ['-c', WATCHDOG, 'watchdog', command, ...args], { stdio: 'pipe' });
  child.stdin.on('error', () => undefined); // the watchdog gone first: nothing to tell it
  child.once('exit', () => child.stdin.end('stopped\n'));
  return child;
}

/**
 * What tells one process from a later one that reuses its pid: its start time (Linux: the
 * `starttime` field of /proc/<pid>/stat; elsewhere `ps -o lstart=`). Undefined when no such
 * process runs, a zombie included ({@link alive}).
 */
export function processIdentity(pid: number): string | undefined {
  if (!alive(pid)) return undefined;
  if (existsSync('/proc/self/stat')) {
    const fields = procStat(pid); // undefined: it ended meanwhile
    return fields && `proc:${fields[19]}`; // field 22 of stat, counted from 1 with pid and comm
  }
  const ps = spawnSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8' });
  const started = ps.status === 0 ? ps.stdout.trim() : '';
  return started ? `ps:${started}` : undefined;
}

/** The command line of a running process, as far as this system tells it ('' when it does not). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    const ps = spawnSync('ps', ['-ww', '-o', 'args=', '-p', String(pid)], { encoding: 'utf8' });
    return ps.status === 0 ? ps.stdout.trim() : '';
  }
}

/** Every other process whose command line passes `test` (pid and command line). */
export function processesMatching(test: (args: string) => boolean): { pid: number; args: string }[] {
  const ps = spawnSync('ps', ['-ww', '-A', '-o', 'pid=,args='], { encoding: 'utf8' });
  if (ps.status !== 0) return [];
  return ps.stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) !== process.pid && test(m[2]))
    .map((m) => ({ pid: Number(m[1]), args: m[2] }));
}

/**
 * Whether `pid` is a process that still runs. A zombie (state Z: dead, waiting for its parent to
 * reap it) or one being reaped (X) does not: it holds no file, port or lock. After a SIGKILL of the
 * runtime's group its processes stay zombies until reaped: 1-6 s where init reaps them, for ever
 * under a parent that never does (a container whose PID 1 is no init), and a start on DATA_DIR in
 * that time must not take them for a runtime that holds it.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: succeeds for a zombie too
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !ended(pid);
}

/** Whether a process that `kill(pid, 0)` still finds has ended: its state (Linux: /proc/<pid>/stat; elsewhere `ps`). */
function ended(pid: number): boolean {
  if (existsSync('/proc/self/stat')) {
    const state = procStat(pid)?.[0];
    return state === undefined || state === 'Z' || state === 'X';
  }
  const ps = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return ps.status !== 0 || ps.stdout.trim().startsWith('Z');
}

/** The fields of /proc/<pid>/stat from the third (state) on, undefined when there is no such process. */
function procStat(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' '); // after "pid (comm) ", comm may hold anything
  } catch {
    return undefined;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
export async function terminate(pid: number, graceMs = 5000): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      signal('SIGKILL');
      if (Date.now() > deadline + 2000) return; // not ended 2 s after SIGKILL (stuck in the kernel): waiting longer changes nothing
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
