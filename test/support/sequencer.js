/**
 * One order everywhere: CI, a clean clone and a developer's machine run the files in the same order,
 * taken from the committed timing file test/timings.json (each file's seconds in a full run; `npm run
 * test:timings` refreshes it from the last run's results, ./results-reporter.js), never from jest's
 * cache (which a clean clone lacks: jest then orders by file size, which once put the two volume
 * suites side by side and the two isolation suites last).
 *
 * - The unit suites first (seconds, no runtime: a broken rule fails the run's first minute).
 * - Then the longest first, so the last files to start are short and the two workers end together.
 * - The volume suites never run beside each other: the order is planned by playing the run on the
 *   workers with the file's times, and a volume suite waits in the list until no other volume suite
 *   would still be running when it starts.
 * - The browser suites last (Chromium beside the API suites on two cores starved the shared runtime
 *   into Lambda timeouts), and the chaos test after them (`npm test` runs it alone anyway, in a jest
 *   run of its own: package.json).
 * A file not in the timing file counts as its project's median. Within equal times, by path.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const TIMINGS = path.join(__dirname, '..', 'timings.json');
const FIRST = 'unit';
const LAST = ['browser', 'chaos'];
const APART = 'volume';

const projectOf = (test) => test.context.config.displayName?.name ?? '';
/** 0 for the unit suites, 1 for every project but the last ones, then 2, 3... in LAST's order */
const rank = (test) => {
  const project = projectOf(test);
  if (project === FIRST) return 0;
  return LAST.indexOf(project) + 2; // indexOf is -1 for the others: 1
};

function readTimings(rootDir) {
  if (!fs.existsSync(TIMINGS)) return {};
  const { files } = JSON.parse(fs.readFileSync(TIMINGS, 'utf8'));
  return Object.fromEntries(Object.entries(files).map(([file, seconds]) => [path.join(rootDir, file), seconds]));
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : 1;
};

/** The files of one rank, longest first, with the volume suites held back until none would overlap another. */
function plan(tests, seconds, workers, start) {
  const remaining = [...tests].sort((a, b) => seconds(b) - seconds(a) || a.path.localeCompare(b.path));
  const free = Array.from({ length: workers }, () => start);
  let apartUntil = 0; // when the last volume suite placed is expected to end
  const order = [];
  while (remaining.length) {
    const now = Math.min(...free);
    let index = remaining.findIndex((test) => projectOf(test) !== APART || now >= apartUntil);
    if (index === -1) index = 0; // only volume suites left: the next one waits for its worker anyway
    const [test] = remaining.splice(index, 1);
    const worker = free.indexOf(now);
    const begins = projectOf(test) === APART ? Math.max(now, apartUntil) : now;
    free[worker] = begins + seconds(test);
    if (projectOf(test) === APART) apartUntil = free[worker];
    order.push(test);
  }
  return { order, end: Math.max(...free) };
}

/** `tests` in the order to run them, given each file's seconds by absolute path (`known`) and the number of workers. */
function orderTests(tests, known, workers) {
  const byProject = {};
  for (const test of tests)
    if (known[test.path] !== undefined) (byProject[projectOf(test)] ??= []).push(known[test.path]);
  const seconds = (test) => known[test.path] ?? median(byProject[projectOf(test)] ?? Object.values(known));
  const order = [];
  let start = 0;
  for (const r of [...new Set(tests.map(rank))].sort((a, b) => a - b)) {
    const planned = plan(
      tests.filter((test) => rank(test) === r),
      seconds,
      workers,
      start,
    );
    order.push(...planned.order);
    start = planned.end;
  }
  return order;
}

class TimedOrder extends Sequencer {
  constructor(options) {
    super(options);
    this.workers = Math.max(1, options?.globalConfig?.maxWorkers ?? 2);
  }

  sort(tests) {
    if (tests.length === 0) return tests;
    return orderTests(tests, readTimings(tests[0].context.config.rootDir), this.workers);
  }
}

module.exports = TimedOrder;
module.exports.orderTests = orderTests;
