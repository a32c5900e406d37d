/**
 * The suites as projects by layer (`npm run test:unit`, `test:integration`, `test:api`,
 * `test:hostile`, `test:volume`, `test:infra`, `test:browser`, `test:chaos` select one). `npm test`
 * runs them all in one jest run, in the order of the committed timing file (unit first, longest
 * first, the volume suites never beside each other, the browser last: test/support/sequencer.js),
 * and the chaos test alone after it (package.json). One run, not one per tier: the unused-grants
 * check (test/support/grants-check.ts) needs every suite's calls in the run it checks.
 * `npm run test:fast` (typecheck, lint, unit, infra without the bundle build) and `npm run test:deep`
 * (TEST_DEEP=true: random seeds, every generated case, the project `deep`) are the other tiers.
 * The API, hostile and integration suites share one global setup that starts the local runtime once
 * (DynamoDB Local in memory, local SQS and SES, the HTTP gateway) as a child process, exactly as
 * `npm start` does; they call it over real HTTP. A project's global setup and teardown run only when
 * one of its tests is selected, and a module named by several projects runs once: unit and infra
 * runs start no runtime. esbuild transforms our TypeScript, and middy (ESM-only) too:
 * test/support/esbuild-transform.js.
 */
// The AWS SDK warns once per process that it will need Node 22 from 2027; Lambda runs 22 already.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** @type {import('jest').Config} */
const common = {
  rootDir: __dirname,
  roots: ['<rootDir>/test'],
  testEnvironment: 'node',
  transform: { '^.+\\.[tj]s$': '<rootDir>/test/support/esbuild-transform.js' },
  transformIgnorePatterns: ['/node_modules/(?!@middy/)'],
  moduleNameMapper: {
    '^#shared/(.*)$': '<rootDir>/shared/$1',
    '^#functions/(.*)$': '<rootDir>/functions/$1',
  },
};

/** The local runtime, for the suites that talk to it. */
const withRuntime = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // No retries: a test that fails once fails the run. Tests wait on the runtime's clock and drain
  // (test/support/own-runtime.ts), or on what the API shows (test/support/wait.ts), never on a sleep.
};

const HOSTILE = '<rootDir>/test/api/hostile-input.test.ts';
/** The volume suites: thousands of emails, items or processes each, minutes of a run (`npm run test:volume`). */
const VOLUME = [
  '<rootDir>/test/api/send-path-scale.test.ts',
  '<rootDir>/test/integration/due-dispatcher.test.ts',
  '<rootDir>/test/api/process-tree.test.ts',
];

/**
 * `npm run test:deep` (TEST_DEEP=true, test/support/depth.ts): the same suites with random seeds, every
 * generated case and the large sizes, and the suites that only it runs (`test/deep/`).
 */
const DEEP = process.env.TEST_DEEP === 'true';

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 30_000,
  // Two suites at a time: the api and integration suites mostly wait on the local runtime (a process of
  // its own), so one worker left a core idle (on 2 cores: 396 s with one worker, 300 s with two).
  maxWorkers: 2,
  // one order everywhere, from the committed test/timings.json: test/support/sequencer.js
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // jest's own output; whether the run failed, for the global teardown; every run's results kept under test-results/
  reporters: [
    'default',
    '<rootDir>/test/support/run-outcome-reporter.js',
    '<rootDir>/test/support/results-reporter.js',
  ],
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      ...withRuntime,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...VOLUME],
    },
    {
      ...common,
      ...withRuntime,
      displayName: 'api',
      testMatch: ['<rootDir>/test/api/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', HOSTILE, ...VOLUME],
    },
    { ...common, ...withRuntime, displayName: 'hostile', testMatch: [HOSTILE] },
    { ...common, ...withRuntime, displayName: 'volume', testMatch: VOLUME },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    // the web console in headless Chromium (playwright-core + Debian's chromium), against the shared runtime
    { ...common, ...withRuntime, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
    // a runtime of its own, on disk, killed and started again (test/chaos/chaos.test.ts)
    { ...common, displayName: 'chaos', testMatch: ['<rootDir>/test/chaos/**/*.test.ts'] },
    // only in `npm run test:deep`: CDK's own bundled synth, and whatever else is too slow for every change
    ...(DEEP ? [{ ...common, displayName: 'deep', testMatch: ['<rootDir>/test/deep/**/*.test.ts'] }] : []),
  ],
};
