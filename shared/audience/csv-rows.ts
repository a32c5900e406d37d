/**
 * The CSV of a contact import (./imports.ts), read as a stream: a file of up to MAX_IMPORT_FILE_BYTES
 * is never held whole in memory, and a worker that goes on where an earlier run stopped reads from
 * that row's byte offset instead of parsing the file again from its start.
 *
 * RFC 4180 by csv-parse: quoted fields may hold commas, quotes and line breaks; empty lines are
 * skipped; rows may have fewer or more cells than the header. A file is parsed with the record
 * delimiter its first line ends with (`\r\n`, `\n` or `\r`), found by `scanCsv` and given to every
 * later read, so a read from a row's offset splits rows exactly as the read from the start did.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, type Info, type Options, Parser } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';

/**
 * A record longer than this stops the parser, and the import fails naming its line: csv-parse
 * buffers a whole record, so this bounds the worker's memory. Rows up to it fail one by one (over
 * MAX_IMPORT_ROW_BYTES); it is above anything a request's inline file can hold.
 */
export const MAX_CSV_RECORD_BYTES = 8 * 1024 * 1024;

const OPTIONS = {
  skip_empty_lines: true,
  relax_column_count: true,
  max_record_size: MAX_CSV_RECORD_BYTES,
} satisfies Options;

/** A data row: its cells, and the byte offset in the file just past it (where the next read starts). */
export interface CsvRow {
  cells: string[];
  end: number;
}

/**
 * The column names of the header row at the start of `text` (its first record, trimmed; the BOM
 * dropped), and whether a record delimiter ends it within `text` (else `text`, the first bytes of a
 * file, may have cut it). Throws csv-parse's error when it is not CSV.
 */
export function headerOf(text: string): { names: string[]; ended: boolean } {
  const [first] = parseSync(text, { bom: true, ...OPTIONS, to: 1, info: true }) as unknown as {
    record: string[];
    info: Info;
  }[];
  if (!first) return { names: [], ended: false };
  return {
    names: first.record.map((name) => name.trim()),
    ended: first.info.bytes < Buffer.byteLength(text) || /[\r\n]$/.test(text),
  };
}

/** The file is not UTF-8 or not CSV: the message says how (an import's `failure_reason`). */
export class InvalidCsv extends Error {
  override name = 'InvalidCsv';
}

/** A parser of the import's options (and `info`: each record's byte offset). */
const parser = (options: Options) => new Parser({ ...OPTIONS, ...options, info: true });

/** The records of `stream` through `parser`; `check` sees each chunk of bytes first and may throw. */
async function* records(
  stream: ReadableStream<Uint8Array>,
  parser: Parser,
  check?: (chunk: Uint8Array) => void,
): AsyncGenerator<{ record: string[]; info: Info }, void, undefined> {
  const feeding = pipeline(
    Readable.fromWeb(stream as never),
    async function* (source: AsyncIterable<Uint8Array>) {
      for await (const chunk of source) {
        check?.(chunk);
        yield chunk;
      }
    },
    parser,
  );
  feeding.catch(() => undefined); // a failure reaches the reader through the parser
  try {
    yield* parser as AsyncIterable<{ record: string[]; info: Info }>;
    await feeding;
  } finally {
    parser.destroy(); // a reader that stops early ends the download too
  }
}

export interface ScannedCsv {
  /** the header row's column names */
  header: string[];
  /** where the first data row starts (past the BOM and the header) */
  dataOffset: number;
  /** the record delimiter of the file's first line */
  delimiter: string;
  /** data rows (empty lines not counted) */
  rows: number;
  /** where the row after the first `rowsBefore` data rows starts */
  resumeOffset: number;
}

/**
 * Reads the whole file once: it must be UTF-8 (a fatal decoder sees every byte) and CSV all through
 * (else InvalidCsv). `rowsBefore`: rows already imported (a record from before byte offsets were
 * kept), whose end is `resumeOffset`.
 */
export async function scanCsv(stream: ReadableStream<Uint8Array>, rowsBefore = 0): Promise<ScannedCsv> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const utf8 = (chunk?: Uint8Array) => {
    try {
      decoder.decode(chunk, { stream: chunk !== undefined }); // at the end: a sequence cut off there
    } catch {
      throw new InvalidCsv('the file is not UTF-8 text');
    }
  };
  const scanner = parser({ bom: true });
  let scanned: ScannedCsv | undefined;
  try {
    for await (const { record, info } of records(stream, scanner, utf8)) {
      if (!scanned)
        scanned = {
          header: record.map((name) => name.trim()),
          dataOffset: info.bytes,
          delimiter: '\n',
          rows: 0,
          resumeOffset: info.bytes,
        };
      else if (++scanned.rows === rowsBefore) scanned.resumeOffset = info.bytes;
    }
  } catch (error) {
    throw error instanceof CsvError ? new InvalidCsv(`the file is not CSV: ${error.message}`) : error;
  }
  utf8();
  if (!scanned) throw new InvalidCsv('the file has no header row');
  // found on the first line; none when the file is its header alone (no rows to split)
  scanned.delimiter = scanner.options.record_delimiter[0]?.toString() ?? '\n';
  return scanned;
}

/** The data rows of `stream`, the file's bytes from `offset` (a row boundary), split by `delimiter`. */
export async function* csvRows(
  stream: ReadableStream<Uint8Array>,
  offset: number,
  delimiter: string,
): AsyncGenerator<CsvRow, void, undefined> {
  for await (const { record, info } of records(stream, parser({ bom: false, record_delimiter: delimiter })))
    yield { cells: record, end: offset + info.bytes };
}
