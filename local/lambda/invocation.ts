/**
 * One Lambda invocation, locally: the handler runs inside an async context that names its
 * function (so the call guard can check its needs: ./needs.ts), with a context whose deadline is
 * the function's timeout, and Lambda's limits applied where Lambda applies them:
 * - the timeout: past it the invocation fails with Lambda's "Task timed out" error and is treated
 *   as killed: any AWS call it still makes is refused (on AWS the sandbox is frozen or gone);
 * - the synchronous payload limits: an event over 6 MB is refused before the handler runs, a
 *   result over 6 MB fails the invocation after it (callers: the HTTP gateway);
 * - event source mappings cut batches to the same 6 MB (./queue-poller.ts, ./stream-poller.ts);
 * - the memory it is deployed with: each invocation's memory is measured against it and one that
 *   would not fit is logged as an ERROR, which fails the test run (../memory-watch.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { routeMemoryMb, workerMemoryMb } from '../../functions/needs';
import { functionName, routeNeeds, routeTimeoutSeconds, type Route } from '../../functions/routes';
import { workerFunctionName, workers, workerTimeoutSeconds } from '../../functions/workers';
import { installAwsCallChecker, installGrantScope } from '../../shared/platform/aws/call-guard';
import type { AnyHandler } from './handlers';
import { endInvocation, watchInvocation } from '../memory-watch';
import { lambdaContext } from './context';
import { checkCall } from './needs';
import type { FunctionIdentity, Invocation } from './function-identity';

export type { FunctionIdentity, Invocation } from './function-identity';

/** Lambda's synchronous request limit: the event's JSON (6 MiB). */
export const MAX_SYNC_REQUEST_BYTES = 6 * 1024 * 1024;
/** Lambda's synchronous response limit: the result's JSON (6 MiB + 100 bytes, as Lambda measures it). */
export const MAX_SYNC_RESPONSE_BYTES = 6 * 1024 * 1024 + 100;
/** What Lambda hands an event source mapping's function at most in one batch. */
export const MAX_BATCH_EVENT_BYTES = 6 * 1024 * 1024;

/** A route of functions/routes.ts (or the fallback route) as its function: name, needs, timeout and memory as the stack makes them. */
export const routeFunction = (
  route: Pick<Route, 'handler' | 'operation' | 'needs' | 'timeoutSeconds' | 'memoryMb'> & {
    method?: string;
    path?: string;
  },
): FunctionIdentity => ({
  name: functionName(route),
  needs: routeNeeds(route),
  timeoutMs: routeTimeoutSeconds(route) * 1000,
  memoryMb: routeMemoryMb(route),
});

/** A worker of functions/workers.ts as its function: name, needs, timeout and memory as the stack makes them. */
export function workerFunction(workerName: string): FunctionIdentity {
  const worker = workers.find((w) => w.name === workerName);
  if (!worker) throw new Error(`no worker ${workerName} in functions/workers.ts`);
  return {
    name: workerFunctionName(worker.name),
    needs: worker.needs,
    timeoutMs: workerTimeoutSeconds(worker) * 1000,
    memoryMb: workerMemoryMb(worker),
  };
}

const storage = new AsyncLocalStorage<Invocation>();

/** The invocation the calling code runs in, if any. */
export const currentInvocation = (): Invocation | undefined => storage.getStore();

// Every guarded AWS client of this process now checks its calls against the running function's needs.
installAwsCallChecker((call) => {
  const invocation = storage.getStore();
  if (invocation) checkCall(invocation, call);
});
// ...and caches of what a grant fetched are kept per function (call-guard.ts `grantScope`).
installGrantScope(() => storage.getStore()?.fn.name ?? '');

/** Lambda's error for an invocation past its timeout. */
export class InvocationTimedOut extends Error {
  override name = 'Sandbox.Timedout';
  constructor(fn: FunctionIdentity) {
    super(`${fn.name}: Task timed out after ${(fn.timeoutMs / 1000).toFixed(2)} seconds`);
  }
}

/** Lambda's error for a synchronous payload over its limit. */
export class PayloadTooLarge extends Error {
  constructor(
    readonly direction: 'request' | 'response',
    readonly bytes: number,
    limit: number,
  ) {
    super(
      `${direction === 'request' ? 'Request' : 'Response'} payload size (${bytes} bytes) exceeded maximum allowed payload size (${limit} bytes)`,
    );
    this.name = direction === 'request' ? 'RequestEntityTooLargeException' : 'Function.ResponseSizeTooLarge';
  }
}

/** The size of a value as Lambda's payload: its JSON in UTF-8. */
export const payloadBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');

/** An event source mapping's records in order, cut into batches whose event stays within `maxBytes` (a record alone always makes a batch). */
export function eventsWithin<R>(records: R[], maxBytes: number): R[][] {
  const batches: R[][] = [];
  let batch: R[] = [];
  let bytes = payloadBytes({ Records: [] });
  for (const record of records) {
    const size = payloadBytes(record) + 1; // and its comma
    if (batch.length > 0 && bytes + size > maxBytes) {
      batches.push(batch);
      batch = [];
      bytes = payloadBytes({ Records: [] });
    }
    batch.push(record);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Runs `handler` as `fn` would run on Lambda. Resolves with its result; rejects with its error, or
 * with InvocationTimedOut when it outlives the function's timeout.
 */
export async function invoke(
  fn: FunctionIdentity,
  handler: AnyHandler,
  event: unknown,
  requestId?: string,
): Promise<unknown> {
  const invocation: Invocation = { fn, timedOut: false };
  const context = lambdaContext(fn.name, fn.timeoutMs, requestId, fn.memoryMb);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      invocation.timedOut = true;
      reject(new InvocationTimedOut(fn));
    }, fn.timeoutMs);
  });
  const records = (event as { Records?: unknown })?.Records;
  const memory =
    fn.memoryMb === undefined
      ? undefined
      : watchInvocation(fn.name, fn.memoryMb, Array.isArray(records) ? records.length : undefined);
  let result: unknown;
  try {
    result = await Promise.race([storage.run(invocation, () => handler(event, context)), timeout]);
    return result;
  } finally {
    clearTimeout(timer);
    if (memory) endInvocation(memory); // while `result` is still held: a handler's answer is part of its memory
  }
}
