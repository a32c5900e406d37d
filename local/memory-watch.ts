/**
 * Whether each local invocation would fit the memory its function is deployed with
 * (functions/needs.ts `routeMemoryMb`, `workerMemoryMb`, the figures the stack sets as MemorySize).
 * On AWS a function past its memory ends in Runtime.OutOfMemory; locally every function shares one
 * Node process with no limit of its own, so without this a handler that holds too much passes
 * every test. An invocation that would not fit is logged as an ERROR line, which fails the test
 * run (test/support/runtime-log.ts, test/support/global-teardown.ts).
 *
 * The measure, and why:
 * - What an invocation holds is the growth of the process's JavaScript-visible memory (V8's used
 *   heap plus `external`, which counts Buffers and ArrayBuffers: an email's bytes live there) from
 *   the invocation's start to its peak, sampled every SAMPLE_MS while any invocation runs, when
 *   another starts, and once more at its end (with its result still held). Not RSS: V8 keeps pages
 *   it freed, so RSS hardly falls and a later invocation's growth would hide inside an earlier one's.
 * - Its estimated peak on Lambda is that growth plus LAMBDA_BASELINE_MB, what a fresh Lambda Node
 *   process holds at init (node, the runtime client, a ~400 KB bundle loaded): bench/sender-memory.ts
 *   measures a bundle's process and prints it beside this figure. It must not pass the declared memory.
 * - Garbage must not flag an invocation: the used heap includes objects no one holds until V8
 *   collects them, and when it collects depends on the whole process. So a sample past the limit
 *   is confirmed by a full collection (`gc()`: exposed at load through V8's flags, as Lambda's own
 *   bootstrap starts node with --expose-gc) and measured again, every time until one confirms the
 *   invocation over its limit, then each CONFIRM_STEP_MB more; only what is still held counts. An
 *   invocation whose growth stays under MIN_FLAGGED_GROWTH_MB is never flagged. The collection
 *   costs the shared process a pause (tens to a few hundred ms), only when a sample crosses a limit.
 * - Every function shares the process, so concurrent invocations' memory counts for each of them:
 *   an over-estimate, on purpose (a false alarm names the invocations that ran beside it in its
 *   line, `concurrent`; a missed overrun is a Runtime.OutOfMemory in production). Garbage present
 *   at an invocation's start and collected during it hides up to that much of its growth: the
 *   under-estimate this measure can make.
 * - Allocations freed within one synchronous stretch, between two samples, are not seen. The bytes
 *   a handler holds across an await (an email's content while SES is called) always are.
 * A function with no declared memory (a test's own consumer, never deployed) is not watched.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A fresh Lambda Node process at init: node with a bundle loaded measured 49-52 MB here (bench/sender-memory.ts), plus the runtime client's own. */
export const LAMBDA_BASELINE_MB = 64;
/** Growth below this never flags, whatever the declared memory: GC timing and other invocations cannot make a small invocation fail the run. */
export const MIN_FLAGGED_GROWTH_MB = 32;
/** How often memory is sampled while an invocation runs. */
export const SAMPLE_MS = 20;
/** Past its limit, an invocation's growth is confirmed again (another collection) each time it grows this much more: its figure is then what it held, within this. */
const CONFIRM_STEP_MB = 64;

const MB = 2 ** 20;

/** One invocation's measure. */
export interface MemoryMeasure {
  function: string;
  memoryMb: number;
  /** the largest growth still held after a collection confirmed it (or seen, when no sample crossed the limit) */
  growthMb: number;
  /** growth plus LAMBDA_BASELINE_MB: the invocation's peak as Lambda would count it */
  estimatedPeakMb: number;
  /** the estimated peak passed the declared memory */
  over: boolean;
  /** invocations of other functions that ran beside it while its memory was measured (their memory counts too) */
  concurrent: string[];
  /** records in its event (queue and stream batches) */
  records?: number;
}

interface Watched {
  name: string;
  memoryMb: number;
  records?: number;
  start: number;
  /** largest process memory seen since the start or the last collection (raw: garbage included) */
  peak: number;
  /** largest growth a collection confirmed as held */
  confirmedGrowth: number;
  concurrent: Set<string>;
}

/** `gc()`: the process's own when node ran with --expose-gc, else exposed through V8's flags for a new context. */
const collect: (() => void) | undefined = (() => {
  const own = (globalThis as { gc?: () => void }).gc;
  if (own) return own;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return undefined; // no forced collection: every raw sample past the limit counts, erring towards flagging
  }
})();

/** process.memoryUsage()'s heapUsed + external, without the resident-set read it also makes (a syscall per sample: 2.5% of the runtime's CPU under load) */
const used = (): number => {
  const { used_heap_size, external_memory } = getHeapStatistics();
  return used_heap_size + external_memory;
};

const running = new Set<Watched>();
let timer: NodeJS.Timeout | undefined;
let log: (line: string) => void = (line) => console.error(line);
/** The largest measure of each function since the process started (what bench/sender-memory.ts reports). */
const largest = new Map<string, MemoryMeasure>();

const limitBytes = (w: Watched): number => Math.max(MIN_FLAGGED_GROWTH_MB, w.memoryMb - LAMBDA_BASELINE_MB) * MB;
const rawGrowth = (w: Watched): number => w.peak - w.start;

/**
 * Whether a sample must be confirmed by a collection: every time its growth is past the limit until
 * a collection has confirmed it over (garbage may put it there again and again: each time it is
 * confirmed, or the raw figure would stand at the end), then only each CONFIRM_STEP_MB further.
 */
function crosses(w: Watched): boolean {
  const limit = limitBytes(w);
  if (rawGrowth(w) <= limit) return false;
  return w.confirmedGrowth <= limit || rawGrowth(w) > w.confirmedGrowth + CONFIRM_STEP_MB * MB;
}

/** Takes a sample; a sample that puts any running invocation past its limit is confirmed by a full collection first. */
function sample(): void {
  let now = used();
  for (const w of running) if (now > w.peak) w.peak = now;
  const crossing = [...running].filter((w) => crosses(w));
  if (crossing.length === 0) return;
  if (collect) {
    collect();
    now = used();
  }
  for (const w of crossing) {
    w.confirmedGrowth = Math.max(w.confirmedGrowth, now - w.start);
    w.peak = Math.max(w.start, now); // what the collection freed was garbage: the peak is what is still held
  }
}

function measure(w: Watched): MemoryMeasure {
  const growth = Math.max(0, w.confirmedGrowth, rawGrowth(w));
  const growthMb = growth / MB;
  const estimatedPeakMb = LAMBDA_BASELINE_MB + growthMb;
  return {
    function: w.name,
    memoryMb: w.memoryMb,
    growthMb: Math.round(growthMb),
    estimatedPeakMb: Math.round(estimatedPeakMb),
    over: growth > limitBytes(w) && estimatedPeakMb > w.memoryMb,
    concurrent: [...w.concurrent].sort(),
    ...(w.records === undefined ? {} : { records: w.records }),
  };
}

/** Starts watching an invocation of `name`, deployed with `memoryMb`. */
export function watchInvocation(name: string, memoryMb: number, records?: number): Watched {
  sample(); // the peak of those already running, before this one's start is taken
  const w: Watched = { name, memoryMb, records, start: 0, peak: 0, confirmedGrowth: 0, concurrent: new Set() };
  w.start = w.peak = used();
  for (const other of running) {
    other.concurrent.add(name);
    w.concurrent.add(other.name);
  }
  running.add(w);
  if (!timer) {
    timer = setInterval(sample, SAMPLE_MS);
    timer.unref();
  }
  return w;
}

/** Ends an invocation's watch (call it while its result is still held): logs an ERROR line when it would not fit, and returns its measure. */
export function endInvocation(w: Watched): MemoryMeasure {
  sample();
  running.delete(w);
  if (running.size === 0 && timer) {
    clearInterval(timer);
    timer = undefined;
  }
  const result = measure(w);
  const before = largest.get(w.name);
  if (!before || result.growthMb > before.growthMb) largest.set(w.name, result);
  if (result.over) {
    log(
      JSON.stringify({
        level: 'ERROR',
        message: 'invocation over its memory',
        function: result.function,
        memory_mb: result.memoryMb,
        estimated_peak_mb: result.estimatedPeakMb,
        growth_mb: result.growthMb,
        baseline_mb: LAMBDA_BASELINE_MB,
        ...(result.records === undefined ? {} : { records: result.records }),
        concurrent: result.concurrent,
        forced_gc: Boolean(collect),
        timestamp: new Date().toISOString(),
      }),
    );
  }
  return result;
}

/** Where the ERROR lines go (default: stderr, which the runtime's log keeps). */
export function setMemoryLog(next: (line: string) => void): void {
  log = next;
}

/** The largest measure of each function's invocations in this process. */
export const largestMeasures = (): MemoryMeasure[] => [...largest.values()];

/** A full collection now, when one can be forced (benchmarks: what the process still holds). */
export function collectGarbage(): boolean {
  collect?.();
  return Boolean(collect);
}
