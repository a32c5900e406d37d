/**
 * Tells the global teardown (./global-teardown.ts) whether the run failed, which jest does not pass
 * it (a global teardown gets only the configuration). A reporter hears every suite's result, and
 * its onRunComplete runs before the global teardown, in the same process: the flag it leaves on
 * globalThis is read there, as the runtime that global setup leaves there is.
 */
class RunOutcomeReporter {
  onRunComplete(_testContexts, results) {
    // a suite with a failing test, or one that did not run (a syntax error, a failed beforeAll's module)
    globalThis.__testRunFailed =
      results.numFailedTestSuites > 0 || results.numRuntimeErrorTestSuites > 0 || results.runExecError !== undefined;
  }
}

module.exports = RunOutcomeReporter;
