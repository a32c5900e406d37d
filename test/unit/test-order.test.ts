/**
 * The order every run follows (test/support/sequencer.js, from the committed test/timings.json): the
 * unit suites first, then the longest first, the volume suites never beside each other, the browser
 * suites and the chaos test last; a file the timing file does not know counts as its project's median.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const { orderTests } = require('../support/sequencer');

type FakeTest = { path: string; context: { config: { displayName: { name: string }; rootDir: string } } };
const test = (project: string, name: string): FakeTest => ({
  path: `/repo/test/${project}/${name}.test.ts`,
  context: { config: { displayName: { name: project }, rootDir: '/repo' } },
});
const names = (tests: FakeTest[]) => tests.map((t) => t.path.replace('/repo/test/', '').replace('.test.ts', ''));

/** When each file starts and ends, played on `workers` workers that each take the next file in order when free. */
function play(order: FakeTest[], seconds: Record<string, number>, workers: number) {
  const free = Array.from({ length: workers }, () => 0);
  return order.map((t) => {
    const worker = free.indexOf(Math.min(...free));
    const start = free[worker];
    free[worker] = start + seconds[t.path];
    return { name: names([t])[0], project: t.context.config.displayName.name, start, end: free[worker] };
  });
}

it('runs the unit suites first, then the longest first, the browser suites and the chaos test last', () => {
  const tests = [
    test('browser', 'console'),
    test('api', 'short'),
    test('chaos', 'chaos'),
    test('unit', 'keys'),
    test('api', 'long'),
    test('integration', 'middle'),
  ];
  const seconds = Object.fromEntries(tests.map((t, i) => [t.path, [60, 5, 120, 2, 50, 20][i]]));
  expect(names(orderTests(tests, seconds, 2))).toEqual([
    'unit/keys',
    'api/long',
    'integration/middle',
    'api/short',
    'browser/console',
    'chaos/chaos',
  ]);
});

it('never plans two volume suites side by side, even when they are the two longest files', () => {
  const tests = [
    test('volume', 'a'),
    test('volume', 'b'),
    test('volume', 'c'),
    ...Array.from({ length: 12 }, (_, i) => test('api', `s${i}`)),
  ];
  const seconds = Object.fromEntries(tests.map((t, i) => [t.path, i < 3 ? 100 - i : 10 + i]));
  const played = play(orderTests(tests, seconds, 2), seconds, 2).filter((p) => p.project === 'volume');
  expect(played).toHaveLength(3);
  for (const [i, one] of played.entries())
    for (const other of played.slice(i + 1)) expect(other.start >= one.end || one.start >= other.end).toBe(true);
  // without the rule, longest first would start the first two together
  expect(played[0].start).toBe(0);
});

it("counts a file the timing file does not know as its project's median", () => {
  const tests = [test('api', 'fast'), test('api', 'slow'), test('api', 'mid'), test('api', 'new')];
  const seconds: Record<string, number> = { [tests[0].path]: 1, [tests[1].path]: 100, [tests[2].path]: 30 };
  expect(names(orderTests(tests, seconds, 2))).toEqual(['api/slow', 'api/mid', 'api/new', 'api/fast']);
});

it('the committed timing file names only test files that exist', () => {
  const root = path.join(__dirname, '..', '..');
  const { files } = JSON.parse(fs.readFileSync(path.join(root, 'test', 'timings.json'), 'utf8'));
  const missing = Object.keys(files).filter((file) => !fs.existsSync(path.join(root, file)));
  expect(missing).toEqual([]);
  expect(Object.keys(files).length).toBeGreaterThan(100);
});
