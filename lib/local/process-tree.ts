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
 */
import { spawn, type ChildProcess } from 'node:child_process';

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
