/**
 * The shared local runtime's log, kept for the run: where it is, and what the teardown prints of it.
 * A test that failed on a 500 or a slow answer says little about why; the runtime's log does (a
 * function past its timeout, the event loop held by one handler: local/event-loop-watch.ts).
 * The digest is a few lines at the end of the run, the part of a CI log that is always shown.
 * An invocation over its function's memory (local/memory-watch.ts) fails the run
 * (`runtimeLogFailures`): on AWS it would have ended in Runtime.OutOfMemory, whatever the test saw.
 * The whole log is kept after every run (`keepRuntimeLog`), and its path printed when the run failed.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** LOCAL_RUNTIME_LOG when set (kept after the run), else a file in the runtime's data folder. */
export const runtimeLogPath = (dataDir: string): string =>
  process.env.LOCAL_RUNTIME_LOG || join(dataDir, 'runtime.log');

/**
 * Leaves the run's log where it outlives the data folder: LOCAL_RUNTIME_LOG's file as it is, else a
 * copy at test-results/runtime.log under `rootDir` (git-ignored; the next run replaces it). Answers
 * where it is.
 */
export function keepRuntimeLog(logPath: string, rootDir: string): string {
  if (process.env.LOCAL_RUNTIME_LOG) return logPath;
  const kept = join(rootDir, 'test-results', 'runtime.log');
  mkdirSync(dirname(kept), { recursive: true });
  copyFileSync(logPath, kept);
  return kept;
}

interface Line {
  level?: string;
  message?: string;
  function?: string;
  error?: unknown;
  blocked_ms?: number;
  timestamp?: string;
  memory_mb?: number;
  estimated_peak_mb?: number;
  records?: number;
  concurrent?: string[];
}

function parse(text: string): Line[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l): Line => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        return {};
      }
    });
}

const overMemory = (lines: Line[]) => lines.filter((l) => l.message === 'invocation over its memory');
const memoryDetail = (l: Line) =>
  `${l.function} would need about ${l.estimated_peak_mb} MB of its ${l.memory_mb} MB${l.records === undefined ? '' : ` (${l.records} records)`}` +
  `${l.concurrent?.length ? `; beside ${l.concurrent.join(', ')}, whose memory counts too` : ''} (${l.timestamp ?? ''})`;

/** What in the runtime's log fails the run: invocations that would not fit their function's memory on AWS. */
export function runtimeLogFailures(text: string): string[] {
  return overMemory(parse(text)).map(memoryDetail);
}

const SHOWN = 12;

/** What went wrong in the runtime itself: invocations that failed at the gateway (timeouts, limits), 500s of handlers, event loop stalls, crashes. */
export function runtimeLogDigest(text: string): string[] {
  const lines = parse(text);
  const failed = lines.filter((l) => l.message === 'integration failed');
  const unhandled = lines.filter((l) => l.message === 'unhandled error');
  const stalls = lines.filter((l) => l.message === 'event loop blocked');
  const fatal = lines.filter((l) => l.level === 'FATAL');
  const memory = overMemory(lines);
  const longest = stalls.reduce((max, l) => Math.max(max, l.blocked_ms ?? 0), 0);
  const digest = [
    `local runtime: ${failed.length} invocations failed at the gateway, ${unhandled.length} unhandled errors (500), ` +
      `event loop blocked over 1 s ${stalls.length} times (longest ${longest} ms), ${memory.length} invocations over their memory, ${fatal.length} fatal`,
  ];
  const detail = (l: Line) =>
    `  ${l.timestamp ?? ''} ${l.function ?? ''} ${typeof l.error === 'string' ? l.error : JSON.stringify(l.error ?? l.message)}`.slice(
      0,
      300,
    );
  // timeouts first: the failures the suites provoke on purpose (a 6 MB event, a thrown handler) come after
  const timedOut = (l: Line) => /timed out|timeout/i.test(JSON.stringify(l.error ?? ''));
  const shown = [...fatal, ...failed.filter(timedOut), ...unhandled, ...failed.filter((l) => !timedOut(l))];
  for (const l of memory.slice(0, SHOWN)) digest.push(`  over its memory: ${memoryDetail(l)}`);
  for (const l of shown.slice(0, SHOWN)) digest.push(detail(l));
  return digest;
}
