/**
 * Keeps every run's results under test-results/ (git-ignored), so the next slow file is found from
 * data: jest's own `--json` shape (`formatTestResults`: each file's start and end time, each test's
 * duration), written when the run completes, before the global teardown, so a run whose teardown
 * fails keeps them too. A run of the chaos project alone (the second jest run of `npm test`) writes
 * test-results/jest-chaos.json; every other run test-results/jest.json, replacing the last one.
 * `npm run test:timings` folds them into test/timings.json, the order every run follows
 * (./sequencer.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { formatTestResults } = require('@jest/test-result');

class ResultsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
  }

  onRunComplete(testContexts, results) {
    const projects = new Set([...testContexts].map((context) => context.config.displayName?.name));
    const name = projects.size === 1 && projects.has('chaos') ? 'jest-chaos.json' : 'jest.json';
    const file = path.join(this.rootDir, 'test-results', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${JSON.stringify(formatTestResults(results))}\n`);
  }
}

module.exports = ResultsReporter;
