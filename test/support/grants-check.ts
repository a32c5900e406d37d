/**
 * The test run's check of every function's grants against what the functions did. The local
 * runtime (and any suite that invokes a handler through local/lambda/invocation.ts) writes one
 * line per (function, grant, allowed|denied) to AWS_CALLS_LOG (local/lambda/needs.ts); the
 * global teardown reads it and fails the run when
 * - a function made a call its `needs` do not grant (on AWS: an AccessDenied, a 500), always;
 * - after a run of every suite, a function is granted something none of its calls used (a grant
 *   that outlived its code, or code no test reaches), unless its `needs.untested` says why.
 */
import { existsSync, readFileSync } from 'node:fs';
import { grantedActions, type Needs } from '../../functions/needs';
import { fallbackRoute, routes } from '../../functions/routes';
import { workers } from '../../functions/workers';
import { routeFunction, workerFunction } from '../../local/lambda/invocation';

/** Every function of the stack, as the local runtime invokes it, with where its needs are declared. */
export function declaredFunctions(): Map<string, { needs: Needs; declaredIn: string }> {
  const declared = [
    ...routes.map((route) => ({
      fn: routeFunction(route),
      declaredIn: `functions/routes.ts (${route.method} ${route.path})`,
    })),
    { fn: routeFunction(fallbackRoute), declaredIn: 'functions/routes.ts (fallbackRoute)' },
    ...workers.map((worker) => ({
      fn: workerFunction(worker.name),
      declaredIn: `functions/workers.ts (${worker.name})`,
    })),
  ];
  return new Map(declared.map(({ fn, declaredIn }) => [fn.name, { needs: fn.needs, declaredIn }]));
}

export interface CallRecord {
  fn: string;
  grant: string;
  outcome: 'allowed' | 'denied';
}

export function readCallLog(file: string): CallRecord[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [fn, grant, outcome] = line.split('\t');
      return { fn, grant, outcome: outcome as CallRecord['outcome'] };
    });
}

/** The problems the records show: denied calls always, unused grants only when `complete` (every suite ran). */
export function grantProblems(records: CallRecord[], complete: boolean): string[] {
  const functions = declaredFunctions();
  const problems: string[] = [];
  for (const { fn, grant } of records.filter((r) => r.outcome === 'denied')) {
    const declared = functions.get(fn);
    if (!declared) continue; // a test's own function (test/integration/queue-poller.test.ts) or a test of the refusal itself
    problems.push(
      `${fn} called ${grant}, which its needs in ${declared.declaredIn} do not grant: on AWS that call is denied (AccessDenied, a 500)`,
    );
  }
  if (!complete) return problems;
  for (const [fn, { needs, declaredIn }] of functions) {
    const used = new Set(records.filter((r) => r.fn === fn && r.outcome === 'allowed').map((r) => r.grant));
    for (const grant of grantedActions(needs)) {
      if (used.has(grant) || needs.untested?.[grant]) continue;
      problems.push(
        `${fn} is granted ${grant} in ${declaredIn}, but no test made it use it: remove the grant, add a test that reaches the call, or say why in its needs.untested`,
      );
    }
  }
  return problems;
}
