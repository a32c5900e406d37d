import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import { grantProblems, readCallLog } from './grants-check';
import { stopPooledRuntimes } from './runtime-pool';
import { keepRuntimeLog, runtimeLogDigest, runtimeLogFailures, runtimeLogPath } from './runtime-log';

/** Whether this run was every suite and every test (no project chosen, no path or name pattern, no shard, not only changed or failed tests). */
function ranEverything(config: Config.GlobalConfig | undefined): boolean {
  if (!config) return false;
  return (
    !config.testPathPatterns?.isSet() &&
    !config.testNamePattern &&
    !config.onlyChanged &&
    !config.onlyFailures &&
    !config.findRelatedTests &&
    !config.shard &&
    !config.listTests &&
    !process.argv.some((arg) => arg.startsWith('--selectProjects')) && // argv: the jest CLI's own process
    ignoredProjects(process.argv).every((name) => name === 'chaos')
  );
}

/**
 * The projects `--ignoreProjects` leaves out. Leaving out only the chaos test (as `npm test` does,
 * to run it alone afterwards) still runs everything that uses the shared runtime: the chaos test
 * starts a runtime of its own and calls nothing the other suites do not.
 */
function ignoredProjects(argv: string[]): string[] {
  const names: string[] = [];
  argv.forEach((arg, i) => {
    if (arg.startsWith('--ignoreProjects=')) names.push(...arg.slice('--ignoreProjects='.length).split(','));
    else if (arg === '--ignoreProjects')
      for (let j = i + 1; j < argv.length && !argv[j].startsWith('-'); j++) names.push(argv[j]);
  });
  return names;
}

/**
 * Stops the local runtime (it stops DynamoDB Local's JVM itself) and the pooled own runtimes, prints what went wrong in it
 * (./runtime-log.ts), checks the functions' AWS calls against their needs (./grants-check.ts), and
 * removes the runtime's data folder. Fails the run on a grant problem or an invocation over its
 * function's memory. The runtime's log is kept under test-results/ after every run (beside the
 * run's results, ./results-reporter.js); when the run failed (a test, as ./run-outcome-reporter.js
 * tells, or one of these checks), its path is printed.
 */
export default async function globalTeardown(globalConfig?: Config.GlobalConfig): Promise<void> {
  if (process.env.TEST_RUNTIME_POOL) await stopPooledRuntimes(process.env.TEST_RUNTIME_POOL);
  const child = (globalThis as { __localRuntime?: ChildProcess }).__localRuntime;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  const problems = process.env.AWS_CALLS_LOG
    ? grantProblems(readCallLog(process.env.AWS_CALLS_LOG), ranEverything(globalConfig))
    : [];
  const logPath = process.env.TEST_DATA_DIR && runtimeLogPath(process.env.TEST_DATA_DIR);
  const log = logPath && existsSync(logPath) ? readFileSync(logPath, 'utf8') : undefined;
  if (log !== undefined) console.log(runtimeLogDigest(log).join('\n'));
  const overMemory = log === undefined ? [] : runtimeLogFailures(log);
  const failures = [
    ...(problems.length > 0
      ? [
          `The functions' AWS calls and their needs disagree (${problems.length}):\n${problems.map((p) => `  - ${p}`).join('\n')}`,
        ]
      : []),
    ...(overMemory.length > 0
      ? [
          `Invocations that would not fit their function's memory on AWS (${overMemory.length}; local/memory-watch.ts):\n${overMemory.map((p) => `  - ${p}`).join('\n')}`,
        ]
      : []),
  ];
  const testsFailed = (globalThis as { __testRunFailed?: boolean }).__testRunFailed === true;
  if (logPath && log !== undefined) {
    const kept = keepRuntimeLog(logPath, globalConfig?.rootDir ?? join(__dirname, '..', '..'));
    if (testsFailed || failures.length > 0) console.log(`local runtime: the run failed; its log is kept at ${kept}`);
  }
  if (process.env.TEST_DATA_DIR) rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  if (failures.length > 0) throw new Error(failures.join('\n'));
}
