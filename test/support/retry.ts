/**
 * One more try for a failed test of the suites that run against the shared local runtime: on two
 * cores, every suite's runtime work shares one DynamoDB Local and one Node process, and a test that
 * waits on time (a delivery, a second's send slot, a route within its Lambda timeout) fails now and
 * then when another suite loads the machine (the closing notes of stops 29-31 list the ones seen).
 * The failure is printed before the retry (logErrorsBeforeRetry), so a flaky test shows in the log
 * of a green run; a test that fails twice fails the run. Not for the chaos test (minutes long, its
 * own runtime) or the unit and infra suites (no timing).
 */
jest.retryTimes(1, { logErrorsBeforeRetry: true });
