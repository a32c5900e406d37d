/**
 * After every run the shared runtime's own log outlives the data folder the teardown removes
 * (test/support/global-teardown.ts): a copy at test-results/runtime.log, or LOCAL_RUNTIME_LOG's file
 * where that is set; when the run failed, its path is printed. The run's outcome reaches the
 * teardown as in jest, through test/support/run-outcome-reporter.js.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import globalTeardown from '../support/global-teardown';

const RunOutcomeReporter = require('../support/run-outcome-reporter');

const LOG = '{"level":"ERROR","message":"unhandled error","function":"emails/send","error":"boom"}\n';
const saved = {
  TEST_DATA_DIR: process.env.TEST_DATA_DIR,
  AWS_CALLS_LOG: process.env.AWS_CALLS_LOG,
  LOCAL_RUNTIME_LOG: process.env.LOCAL_RUNTIME_LOG,
};
const made: string[] = [];
const folder = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `email-service-${name}-`));
  made.push(dir);
  return dir;
};

let printed: string[];
beforeEach(() => {
  printed = [];
  jest.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line));
  delete process.env.AWS_CALLS_LOG; // no grant check here: this run made no AWS call
  delete process.env.LOCAL_RUNTIME_LOG;
});
afterEach(() => {
  jest.restoreAllMocks();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A run whose suites failed in `failedSuites`, its runtime's data folder holding `runtime.log`, torn down as jest does. */
async function tearDown(failedSuites: number, rootDir: string): Promise<string> {
  const dataDir = folder('test-data');
  writeFileSync(join(dataDir, 'runtime.log'), LOG);
  process.env.TEST_DATA_DIR = dataDir;
  new RunOutcomeReporter().onRunComplete(new Set(), {
    numFailedTestSuites: failedSuites,
    numRuntimeErrorTestSuites: 0,
  });
  await globalTeardown({ rootDir } as Config.GlobalConfig);
  expect(existsSync(dataDir)).toBe(false);
  return dataDir;
}

it('keeps the log of a failed run at test-results/runtime.log and prints where', async () => {
  const root = folder('root');
  await tearDown(1, root);
  const kept = join(root, 'test-results', 'runtime.log');
  expect(readFileSync(kept, 'utf8')).toBe(LOG);
  expect(printed).toContain(`local runtime: the run failed; its log is kept at ${kept}`);
});

it('keeps the log of a passing run too, without a word about it', async () => {
  const root = folder('root');
  await tearDown(0, root);
  expect(readFileSync(join(root, 'test-results', 'runtime.log'), 'utf8')).toBe(LOG);
  expect(printed.join('\n')).not.toContain('kept at');
});

it('names LOCAL_RUNTIME_LOG when that is where the log was written', async () => {
  const root = folder('root');
  const own = join(folder('own-log'), 'runtime.log');
  writeFileSync(own, LOG);
  process.env.LOCAL_RUNTIME_LOG = own;
  await tearDown(1, root);
  expect(readFileSync(own, 'utf8')).toBe(LOG);
  expect(existsSync(join(root, 'test-results'))).toBe(false);
  expect(printed).toContain(`local runtime: the run failed; its log is kept at ${own}`);
});
