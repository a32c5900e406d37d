/**
 * A function as the local runtime runs it, and one invocation of it: the types both the
 * invocation (./invocation.ts) and the grants check (./needs.ts) read, apart from either.
 */
import type { Needs } from '../../functions/needs';

export interface FunctionIdentity {
  /** the function's name in the stack (`PostBroadcasts`, `SenderWorker`) */
  name: string;
  needs: Needs;
  timeoutMs: number;
  /** MB, as the stack deploys it; none (a test's own consumer, never deployed): memory is not checked */
  memoryMb?: number;
  /** the queue its event source mapping reads: the consuming calls it may make there */
  triggerQueueUrl?: string;
}

export interface Invocation {
  fn: FunctionIdentity;
  timedOut: boolean;
}
