/**
 * An append-only JSONL journal under a directory: the durable half of an in-memory stand-in
 * (local/aws/sqs.ts). The stand-in keeps its state in memory and records every change here
 * before it answers the request that made it.
 *
 * 1. Open: read `journal.jsonl` and hand each record to `apply`, in order. The last line may be
 *    torn (the process was killed in the middle of a write): a line without its newline is left
 *    out; it belonged to a request that was never answered. A complete line that is not JSON is
 *    damage from outside, and opening stops, naming the file and line.
 * 2. Compact at once: the state's snapshot (`snapshot()`, records that rebuild it from nothing)
 *    is written to `journal.jsonl.tmp`, fsynced and renamed over the journal, and the directory
 *    fsynced. A kill at any point leaves either the old journal or the new one whole (a leftover
 *    temp file is removed at the next open).
 * 3. Run: `record` buffers a change, `flush` writes the buffered records with one synchronous
 *    write on the open descriptor. A response sent after `flush` survives a SIGKILL of the
 *    process right after (the bytes are in the kernel's page cache); there is no fsync, so a
 *    power loss or a kernel crash may lose the last writes. A kill during a write of several
 *    records may keep the first of them: a batch request that was never answered may be half
 *    applied, which a client retrying it (SQS is at-least-once) does not tell apart.
 * 4. Once the journal has grown past `compactAtBytes` (and past twice the last snapshot, so a
 *    large live state is not rewritten on every flush), `flush` compacts it as in step 2 (one that
 *    fails, a full disk say, leaves the journal as it was and is tried again once it doubled).
 *
 * Without a directory the journal keeps nothing: the stand-in runs in memory.
 * One process per directory: the local runtime's DATA_DIR lock (local/data-dir-lock.ts)
 * keeps a second one away; nothing here checks it.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

/** The journal is rewritten from the live state once it has grown past this (64 MiB). */
export const DEFAULT_COMPACT_AT_BYTES = 64 * 1024 * 1024;

const FILE = 'journal.jsonl';

export interface JournalOptions<R> {
  /** the folder of the journal; without one, nothing is kept */
  dir?: string;
  /** applies one record to the in-memory state (at open, for each record of the journal) */
  apply: (record: R) => void;
  /** records that rebuild the whole current state from nothing */
  snapshot: () => Iterable<R>;
  compactAtBytes?: number;
}

export class Journal<R> {
  private fd?: number;
  private pending: string[] = [];
  private bytes = 0;
  private snapshotBytes = 0;
  private readonly file?: string;
  private readonly compactAtBytes: number;

  constructor(private readonly options: JournalOptions<R>) {
    this.compactAtBytes = options.compactAtBytes ?? DEFAULT_COMPACT_AT_BYTES;
    if (!options.dir) return;
    mkdirSync(options.dir, { recursive: true });
    this.file = join(options.dir, FILE);
    rmSync(`${this.file}.tmp`, { force: true }); // a compaction killed before its rename: the journal is whole
    if (existsSync(this.file)) this.replay(this.file);
    this.compact();
  }

  /** Buffers a change; `flush` writes it. */
  record(record: R): void {
    if (this.file) this.pending.push(`${JSON.stringify(record)}\n`);
  }

  /** Writes every buffered record (one write), then compacts when the journal has grown too large. */
  flush(): void {
    if (this.fd === undefined || this.pending.length === 0) return;
    const data = Buffer.from(this.pending.join(''));
    this.pending = [];
    for (let written = 0; written < data.length; ) written += writeSync(this.fd, data, written, data.length - written);
    this.bytes += data.length;
    if (this.bytes <= Math.max(this.compactAtBytes, 2 * this.snapshotBytes)) return;
    try {
      this.compact();
    } catch {
      // the records are written; the journal only stays longer. Tried again once it doubled.
      this.snapshotBytes = this.bytes;
    }
  }

  close(): void {
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private replay(file: string): void {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    lines.pop(); // after the last newline: empty, or a torn write that was never answered
    for (const [i, line] of lines.entries()) {
      if (line === '') continue;
      let record: R;
      try {
        record = JSON.parse(line);
      } catch (error) {
        throw new Error(
          `${file}:${i + 1} is not a journal record (${(error as Error).message}); move the file away to start empty`,
        );
      }
      this.options.apply(record);
    }
  }

  /**
   * Step 2 of the module comment: the snapshot to a temp file, fsync, rename over, fsync the folder,
   * reopen for appends. Until the rename the journal is untouched and its descriptor stays open.
   */
  private compact(): void {
    if (!this.file || !this.options.dir) return;
    const temp = `${this.file}.tmp`;
    const fd = openSync(temp, 'w');
    try {
      let chunk: string[] = [];
      const write = () => {
        const data = Buffer.from(chunk.join(''));
        for (let written = 0; written < data.length; ) written += writeSync(fd, data, written, data.length - written);
        chunk = [];
      };
      for (const record of this.options.snapshot()) {
        chunk.push(`${JSON.stringify(record)}\n`);
        if (chunk.length >= 1000) write();
      }
      write();
      fsyncSync(fd);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    const dirFd = openSync(this.options.dir, 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
    if (this.fd !== undefined) closeSync(this.fd); // the old journal's, unlinked by the rename
    this.fd = openSync(this.file, 'a');
    this.bytes = this.snapshotBytes = statSync(this.file).size;
  }
}
