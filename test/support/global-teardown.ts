import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { Config } from '@jest/types';
import { grantProblems, readCallLog } from './grants-check';
import { runtimeLogDigest, runtimeLogPath } from './runtime-log';

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
    !process.argv.some((arg) => arg.startsWith('--selectProjects') || arg.startsWith('--ignoreProjects')) // argv: the jest CLI's own process
  );
}

/**
 * Stops the local runtime (it stops DynamoDB Local's JVM itself), prints what went wrong in it
 * (./runtime-log.ts), checks the functions' AWS calls against their needs (./grants-check.ts), and
 * removes the runtime's data folder.
 */
export default async function globalTeardown(globalConfig?: Config.GlobalConfig): Promise<void> {
  const child = (globalThis as { __localRuntime?: ChildProcess }).__localRuntime;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
  const problems = process.env.AWS_CALLS_LOG ? grantProblems(readCallLog(process.env.AWS_CALLS_LOG), ranEverything(globalConfig)) : [];
  const logPath = process.env.TEST_DATA_DIR && runtimeLogPath(process.env.TEST_DATA_DIR);
  if (logPath && existsSync(logPath)) console.log(runtimeLogDigest(readFileSync(logPath, 'utf8')).join('\n'));
  if (process.env.TEST_DATA_DIR) rmSync(process.env.TEST_DATA_DIR, { recursive: true, force: true });
  if (problems.length > 0) {
    throw new Error(`The functions' AWS calls and their needs disagree (${problems.length}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}
