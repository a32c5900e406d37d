/**
 * The unit suites first (seconds, no runtime: a broken rule fails the run's first minute), then
 * jest's own order (slowest first, from its cache; by file size on a first run), with the suites
 * that bring their own heavy processes last: the browser suites (Chromium) and the chaos test (a
 * second local runtime on disk, its JVM, killed and started again). Run beside the API and
 * integration suites on CI's two cores, they starved the shared runtime: routes outlived their
 * Lambda timeouts (500s from DELETE /segments, POST /domains/{id}/verify). Last, they overlap only
 * the other worker's final suites. `npm test` goes further and runs the chaos test alone, in a jest
 * run of its own after this one (package.json): beside the last browser suite it made that suite's
 * broadcast miss its wait on CI.
 */
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = /[\\/]test[\\/]unit[\\/]/;
const LAST = [/[\\/]test[\\/]browser[\\/]/, /[\\/]test[\\/]chaos[\\/]/];
const rank = (test) => {
  if (FIRST.test(test.path)) return -2;
  const index = LAST.findIndex((pattern) => pattern.test(test.path));
  return index === -1 ? -1 : index;
};

class HeavyLast extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    // stable: within a rank, jest's order
    return sorted
      .map((test, i) => ({ test, i }))
      .sort((a, b) => rank(a.test) - rank(b.test) || a.i - b.i)
      .map(({ test }) => test);
  }
}

module.exports = HeavyLast;
