/**
 * Queue, stream and schedule consumers: the second half of the map, beside the route table.
 * The CDK stack will give each its event source mapping; the local runtime feeds each through a
 * poller with Lambda's batch semantics (lib/local/queue-poller.ts, lib/local/stream-poller.ts).
 *
 * Every queue consumer is idempotent, reports partial batch failures (`batchItemFailures`) and
 * has a DLQ. Workers arrive with the issues that need them (sending, SES feedback, webhooks).
 */
import type { TableAction } from './routes';

export interface QueueDefinition {
  /** logical name, also the local queue name */
  name: string;
  /** seconds a received message stays invisible; also the delay unit of retries scheduled by the consumer */
  visibilityTimeoutSeconds: number;
  /** receives before SQS moves a message to `<name>-dlq` */
  maxReceiveCount: number;
}

export type Trigger =
  | { kind: 'queue'; queue: string; batchSize: number }
  /** `filter` is a Lambda event-filtering pattern over the stream record, applied the same way locally */
  | { kind: 'stream'; batchSize: number; filter?: Record<string, unknown>; maxRetryAttempts: number }
  | { kind: 'schedule'; everySeconds: number };

export interface Worker {
  name: string;
  handler: string;
  trigger: Trigger;
  table: readonly TableAction[];
}

export const queues: readonly QueueDefinition[] = [];
export const workers: readonly Worker[] = [];
