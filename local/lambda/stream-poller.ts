/**
 * Feeds a DynamoDB stream consumer the way Lambda's event source mapping does: per shard, in
 * order, batches of up to `batchSize` records that pass the filter. With `batchItemFailures`
 * (or a thrown error) the batch is retried from the first failed record, up to
 * `maxRetryAttempts`; after that the records are skipped and logged, as Lambda does when no
 * on-failure destination is set. A batch also stops where its event would pass Lambda's 6 MB; the
 * handler runs as its function (needs, timeout: local/lambda/invocation.ts), and a timeout
 * fails the batch like an error.
 *
 * Where it starts: with a `checkpointFile` (the runtime keeps one per function under
 * DATA_DIR/streams), each shard resumes after the last record handled before the runtime stopped
 * or was killed, as Lambda's event source mapping keeps its position: records committed while the
 * runtime was down are handled when it is back (DynamoDB Local keeps them, on disk, 24 hours). The
 * checkpoint moves after a batch succeeded or was skipped, so a kill between the handler's writes
 * and the checkpoint hands the batch over again (at least once, as on AWS; the consumers are
 * idempotent). A shard the checkpoint does not know (first start, or opened while the runtime
 * was down) starts at TRIM_HORIZON, as the stack's mappings do; one whose checkpointed records
 * were trimmed too. A checkpoint of another stream (the table was made again) is dropped.
 * Without a checkpoint file (tests' own pollers), shards that exist at the first poll start at
 * `startingPosition` (LATEST by default).
 *
 * Shards are looked up (DescribeStream) at the first poll, when a shard ends (its child opens as it
 * closes) and otherwise every DESCRIBE_INTERVAL_MS, not on every poll: DynamoDB Local answers each
 * DescribeStream on the one thread all its requests share, at a cost that grows with the stream
 * records it keeps, and two pollers doing it five times a second held that thread for seconds at a
 * time late in a test run (jstack of the JVM during the stalls).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { matchesFilter, type FilterPattern } from './event-filter';
import type { AnyHandler } from './handlers';
import { eventsWithin, invoke, MAX_BATCH_EVENT_BYTES, type FunctionIdentity } from './invocation';
import { LOCAL_REGION } from '../settings';

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
  /** without a checkpoint file: where to start on shards that exist when polling starts (new child shards always start at their beginning) */
  startingPosition?: 'LATEST' | 'TRIM_HORIZON';
  /** where the position of each shard is kept across restarts (see the module comment) */
  checkpointFile?: string;
}

interface ShardState {
  iterator?: string;
  /** records read but not yet handled successfully */
  pending: DynamoDBRecord[];
  /** the sequence number of the last record read (filtered out or not) */
  readUpTo?: string;
  attempts: number;
  closed: boolean;
}

/** What a checkpoint file holds: per shard, the sequence number of the last record handled (null: none yet). */
interface Checkpoint {
  streamArn: string;
  shards: Record<string, string | null>;
}

function readCheckpoint(file: string, streamArn: string): Checkpoint | undefined {
  let saved: Checkpoint;
  try {
    saved = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // none yet (a torn file cannot be: it is written whole and renamed)
  }
  return saved.streamArn === streamArn && saved.shards && typeof saved.shards === 'object' ? saved : undefined;
}

/**
 * An image as Lambda's event carries it. The streams client parses an empty map (`{"M": {}}` on the
 * wire, as Lambda passes it on) into `{}`, an attribute value of no type, which no unmarshaller
 * reads; put the map back (lists and every other type come through as they are).
 */
function lambdaImage(image: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!image) return image;
  const value = (attribute: unknown): unknown => {
    if (!attribute || typeof attribute !== 'object') return attribute;
    const typed = attribute as Record<string, unknown>;
    if (Object.keys(typed).length === 0) return { M: {} };
    if (typed.M) return { M: lambdaImage(typed.M as Record<string, unknown>) };
    if (Array.isArray(typed.L)) return { L: typed.L.map(value) };
    return typed;
  };
  return Object.fromEntries(Object.entries(image).map(([name, attribute]) => [name, value(attribute)]));
}

function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const d = record.dynamodb ?? {};
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: LOCAL_REGION,
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: d.ApproximateCreationDateTime
        ? Math.floor(d.ApproximateCreationDateTime.getTime() / 1000)
        : undefined,
      Keys: d.Keys as never,
      NewImage: lambdaImage(d.NewImage) as never,
      OldImage: lambdaImage(d.OldImage) as never,
      SequenceNumber: d.SequenceNumber,
      SizeBytes: d.SizeBytes,
      StreamViewType: d.StreamViewType as never,
    },
  };
}

/** How often open shards are looked up when none has ended (Lambda's own shard discovery is not instant either). */
export const DESCRIBE_INTERVAL_MS = 5_000;

export class StreamPoller {
  private readonly shards = new Map<string, ShardState>();
  /** when the shards were last looked up; 0: look them up at the next poll */
  private describedAt = 0;
  private running = false;
  private loop?: Promise<void>;
  private initialised = false;
  /** records handed to the function since the start */
  handled = 0;
  /** when the latest poll that found nothing to read or retry began (epoch ms; 0: none yet) */
  quietSince = 0;
  private checkpoint?: Checkpoint;
  /** ends the pause between two polls that found nothing (set while the poller pauses) */
  private endPause?: () => void;
  /** a wake() during a poll: the next pause is skipped, as that poll may have begun too early */
  private woken = false;

  constructor(private readonly options: StreamPollerOptions) {}

  /**
   * Polls now instead of at the end of the pause: the control API's drain waits for a quiet poll
   * begun after everything else was quiet, and need not wait out the pause for it.
   */
  wake(): void {
    if (this.endPause) this.endPause();
    else this.woken = true;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.endPause?.();
    await this.loop;
  }

  private async discoverShards(): Promise<void> {
    const { streams, streamArn, checkpointFile } = this.options;
    if (checkpointFile && !this.checkpoint)
      this.checkpoint = readCheckpoint(checkpointFile, streamArn) ?? { streamArn, shards: {} };
    const description = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    const shards = description.StreamDescription?.Shards ?? [];
    for (const shard of shards) {
      const shardId = shard.ShardId!;
      if (this.shards.has(shardId)) continue;
      const iterator = await this.shardIterator(shardId);
      this.shards.set(shardId, { iterator, pending: [], attempts: 0, closed: !iterator });
      if (this.checkpoint && !(shardId in this.checkpoint.shards)) this.checkpoint.shards[shardId] = null;
    }
    if (this.checkpoint) {
      // shards the stream no longer has (trimmed after 24 hours) leave the checkpoint
      const live = new Set(shards.map((shard) => shard.ShardId));
      for (const shardId of Object.keys(this.checkpoint.shards))
        if (!live.has(shardId)) delete this.checkpoint.shards[shardId];
      this.saveCheckpoint();
    }
    this.initialised = true;
    this.describedAt = Date.now(); // after every shard has its iterator: a failure looks again at the next poll
  }

  private async shardIterator(shardId: string): Promise<string | undefined> {
    const { streams, streamArn } = this.options;
    const after = this.checkpoint?.shards[shardId];
    if (after) {
      try {
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({
            StreamArn: streamArn,
            ShardId: shardId,
            ShardIteratorType: 'AFTER_SEQUENCE_NUMBER',
            SequenceNumber: after,
          }),
        );
        return ShardIterator;
      } catch (error) {
        if ((error as Error).name !== 'TrimmedDataAccessException') throw error;
        // the checkpointed record is gone: everything the shard still has is newer
      }
    }
    const position = this.checkpoint || this.initialised ? 'TRIM_HORIZON' : (this.options.startingPosition ?? 'LATEST');
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: position }),
    );
    return ShardIterator;
  }

  /** Moves a shard's checkpoint to the last record handled: all read when nothing is pending, else the one before the first pending record. */
  private advance(shardId: string, state: ShardState, handledUpTo?: string): void {
    if (!this.checkpoint) return;
    const upTo = state.pending.length === 0 ? state.readUpTo : handledUpTo;
    if (!upTo || upTo === this.checkpoint.shards[shardId]) return;
    this.checkpoint.shards[shardId] = upTo;
    this.saveCheckpoint();
  }

  /** Written whole to a temporary file and renamed over the old one, so a kill leaves one or the other. */
  private saveCheckpoint(): void {
    const file = this.options.checkpointFile!;
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(this.checkpoint));
    renameSync(`${file}.tmp`, file);
  }

  /** Reads every open shard once and hands the records on; returns how many records were handled. Exposed for tests. */
  async pollOnce(): Promise<number> {
    const began = Date.now();
    const handled = await this.readShards();
    this.handled += handled;
    if (handled === 0 && [...this.shards.values()].every((state) => state.pending.length === 0))
      this.quietSince = began;
    return handled;
  }

  /** Records read and not yet handed on successfully (the control API's drain: ../control.ts). */
  inHand(): number {
    return [...this.shards.values()].reduce((n, state) => n + state.pending.length, 0);
  }

  private async readShards(): Promise<number> {
    if (Date.now() - this.describedAt >= DESCRIBE_INTERVAL_MS) await this.discoverShards();
    let handled = 0;
    for (const [shardId, state] of this.shards) {
      if (state.pending.length === 0 && state.iterator && !state.closed) {
        const out = await this.options.streams.send(
          new GetRecordsCommand({ ShardIterator: state.iterator, Limit: 1000 }),
        );
        state.iterator = out.NextShardIterator;
        if (!state.iterator) {
          state.closed = true;
          this.describedAt = 0; // its child shard: look it up at the next poll
        }
        const records = (out.Records ?? []).map((r) => toLambdaRecord(r, this.options.streamArn));
        state.readUpTo = records.at(-1)?.dynamodb?.SequenceNumber ?? state.readUpTo;
        state.pending = this.options.filter ? records.filter((r) => matchesFilter(r, this.options.filter!)) : records;
        if (state.pending.length === 0) this.advance(shardId, state); // nothing for this function in what was read
      }
      while (state.pending.length > 0) {
        const batch = eventsWithin(state.pending.slice(0, this.options.batchSize), MAX_BATCH_EVENT_BYTES)[0];
        const failedAt = await this.invoke(batch);
        if (failedAt === -1) {
          state.pending = state.pending.slice(batch.length);
          state.attempts = 0;
          handled += batch.length;
          this.advance(shardId, state, batch.at(-1)?.dynamodb?.SequenceNumber);
          continue;
        }
        handled += failedAt;
        state.pending = state.pending.slice(failedAt);
        state.attempts += 1;
        if (failedAt > 0) this.advance(shardId, state, batch[failedAt - 1].dynamodb?.SequenceNumber);
        if (state.attempts > this.options.maxRetryAttempts) {
          this.options.onError?.(
            new Error(
              `${this.options.fn.name}: skipping ${batch.length - failedAt} records after ${state.attempts} attempts`,
            ),
          );
          const skipped = batch.at(-1)?.dynamodb?.SequenceNumber;
          state.pending = state.pending.slice(batch.length - failedAt);
          state.attempts = 0;
          this.advance(shardId, state, skipped);
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
      if (handled === 0 && this.running) await this.pause(this.options.idleMs ?? 200);
    }
  }

  private async pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.endPause = undefined;
  }
}
