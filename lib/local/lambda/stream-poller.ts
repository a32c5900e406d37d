/**
 * Feeds a DynamoDB stream consumer the way Lambda's event source mapping does: per shard, in
 * order, batches of up to `batchSize` records that pass the filter. With `batchItemFailures`
 * (or a thrown error) the batch is retried from the first failed record, up to
 * `maxRetryAttempts`; after that the records are skipped and logged, as Lambda does when no
 * on-failure destination is set. Starts at the stream's LATEST position when the runtime starts.
 * A batch also stops where its event would pass Lambda's 6 MB; the handler runs as its function
 * (needs, timeout: lib/local/lambda/invocation.ts), and a timeout fails the batch like an error.
 */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type _Record, type DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { matchesFilter, type FilterPattern } from './event-filter';
import type { AnyHandler } from './handlers';
import { eventsWithin, invoke, MAX_BATCH_EVENT_BYTES, type FunctionIdentity } from './invocation';

export interface StreamPollerOptions {
  /** the consuming function: its name, needs and timeout */
  fn: FunctionIdentity;
  streams: DynamoDBStreamsClient;
  streamArn: string;
  batchSize: number;
  maxRetryAttempts: number;
  filter?: FilterPattern;
  handler: AnyHandler;
  idleMs?: number;
  onError?: (error: unknown) => void;
  /** where to start on shards that exist when polling starts (new child shards always start at their beginning) */
  startingPosition?: 'LATEST' | 'TRIM_HORIZON';
}

interface ShardState {
  iterator?: string;
  /** records read but not yet handled successfully */
  pending: DynamoDBRecord[];
  attempts: number;
  closed: boolean;
}

function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'ap-southeast-2',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000) : undefined,
      Keys: d.Keys as never,
      NewImage: d.NewImage as never,
      OldImage: d.OldImage as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

export class StreamPoller {
  private readonly shards = new Map<string, ShardState>();
  private running = false;
  private loop?: Promise<void>;
  private initialised = false;

  constructor(private readonly options: StreamPollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async discoverShards(): Promise<void> {
    const { streams, streamArn } = this.options;
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of description.StreamDescription?.Shards ?? []) {
      if (this.shards.has(shard.ShardId!)) continue;
      const position = this.initialised ? 'TRIM_HORIZON' : (this.options.startingPosition ?? 'LATEST');
      const { ShardIterator } = await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId!, ShardIteratorType: position }));
      this.shards.set(shard.ShardId!, { iterator: ShardIterator, pending: [], attempts: 0, closed: !ShardIterator });
    }
    this.initialised = true;
  }

  /** Reads every open shard once and hands the records on; returns how many records were handled. Exposed for tests. */
  async pollOnce(): Promise<number> {
    await this.discoverShards();
    let handled = 0;
    for (const state of this.shards.values()) {
      if (state.pending.length === 0 && state.iterator && !state.closed) {
        const out = await this.options.streams.send(new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }));
        state.iterator = out.NextShardIterator;
        if (!state.iterator) state.closed = true;
        const records = (out.Records ?? []).map((r) => toLambdaRecord(r, this.options.streamArn));
        state.pending = this.options.filter ? records.filter((r) => matchesFilter(r, this.options.filter!)) : records;
      }
      while (state.pending.length > 0) {
        const batch = eventsWithin(state.pending.slice(0, this.options.batchSize), MAX_BATCH_EVENT_BYTES)[0];
        const failedAt = await this.invoke(batch);
        if (failedAt === -1) {
          state.pending = state.pending.slice(batch.length);
          state.attempts = 0;
          handled += batch.length;
          continue;
        }
        handled += failedAt;
        state.pending = state.pending.slice(failedAt);
        state.attempts += 1;
        if (state.attempts > this.options.maxRetryAttempts) {
          this.options.onError?.(new Error(`${this.options.fn.name}: skipping ${batch.length - failedAt} records after ${state.attempts} attempts`));
          state.pending = state.pending.slice(batch.length - failedAt);
          state.attempts = 0;
        }
        break; // retry on the next poll, like Lambda's retry of a failed batch
      }
    }
    return handled;
  }

  /** -1 when the whole batch succeeded, else the index of the first failed record. */
  private async invoke(batch: DynamoDBRecord[]): Promise<number> {
    const event: DynamoDBStreamEvent = { Records: batch };
    try {
      const result = (await invoke(this.options.fn, this.options.handler, event)) as DynamoDBBatchResponse | undefined;
      const failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
      if (failed.size === 0) return -1;
      const index = batch.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? ''));
      return index === -1 ? 0 : index;
    } catch (error) {
      this.options.onError?.(error);
      return 0;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.pollOnce();
      } catch (error) {
        this.options.onError?.(error);
      }
      if (handled === 0 && this.running) await new Promise((r) => setTimeout(r, this.options.idleMs ?? 200));
    }
  }
}
