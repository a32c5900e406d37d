/**
 * The archives report files come in, opened with a cap on what they may unpack to: gzip (node:zlib,
 * every DMARC and TLS-RPT reporter's default) and zip (fflate: pure JavaScript, no dependencies,
 * sizes of the entries readable before anything is inflated; Google and others send zip).
 *
 * Neither a declared size nor a compression ratio is trusted: gunzip stops at `maxOutputLength`,
 * and a zip entry is inflated as a stream that is abandoned (a thrown sentinel unwinds fflate's
 * synchronous inflate) the moment its output passes the cap, whatever its header said. So a bomb
 * costs at most `cap` bytes of memory and the time to inflate them.
 */
import { gunzipSync } from 'node:zlib';
import { Unzip, UnzipInflate, type UnzipFileInfo, unzipSync } from 'fflate';
import { dropped, errorMessage } from './drops';
import type { Dropped } from './model';

/** A report archive holds one report; a few entries beside it (folders, `__MACOSX/`) are tolerated. */
export const MAX_ARCHIVE_ENTRIES = 10;

export type Unpacked = { ok: true; bytes: Uint8Array } | Dropped;

export type Packing = 'gzip' | 'zip';

/** What the bytes are packed in, by their magic number: gzip `1f 8b`, zip `PK\x03\x04` (or `PK\x05\x06`, an empty zip). */
export function packingOf(bytes: Uint8Array): Packing | undefined {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip';
  if (
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
  )
    return 'zip';
  return undefined;
}

const tooLarge = (cap: number) => dropped('too_large', `unpacks to more than ${cap} bytes`);

/**
 * White space after the last gzip member (Mimecast's reports end in CRLF, as do files a gateway
 * re-encoded): zlib would read it as the header of another member and fail. A member's last byte
 * is the top byte of its length, 0x00 or 0x01 for anything under the cap, so it is never cut.
 */
function withoutTrailingSpace(bytes: Uint8Array): Uint8Array {
  const isSpace = (byte: number) => byte === 0x09 || byte === 0x0a || byte === 0x0d || byte === 0x20;
  let end = bytes.length;
  while (end > 0 && isSpace(bytes[end - 1])) end--;
  return bytes.subarray(0, end);
}

export function gunzip(bytes: Uint8Array, cap: number): Unpacked {
  try {
    return { ok: true, bytes: gunzipSync(withoutTrailingSpace(bytes), { maxOutputLength: cap }) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return tooLarge(cap);
    return dropped('malformed', `not a readable gzip: ${errorMessage(error)}`);
  }
}

/** Thrown from fflate's callbacks to stop it: more entries than allowed, or output past the cap. */
class Stop {
  constructor(readonly result: Dropped) {}
}

/** The entries the zip's central directory lists (nothing inflated), stopping past MAX_ARCHIVE_ENTRIES. */
function listEntries(bytes: Uint8Array): UnzipFileInfo[] | Dropped {
  const entries: UnzipFileInfo[] = [];
  try {
    unzipSync(bytes, {
      filter: (info) => {
        if (entries.push(info) > MAX_ARCHIVE_ENTRIES)
          throw new Stop(dropped('archive', `more than ${MAX_ARCHIVE_ENTRIES} entries`));
        return false;
      },
    });
    return entries;
  } catch (error) {
    if (error instanceof Stop) return error.result;
    return dropped('archive', `not a readable zip: ${errorMessage(error)}`);
  }
}

const isFile = (name: string) => !name.endsWith('/') && !name.startsWith('__MACOSX/');
const isReportName = (name: string) => /\.(xml|json)$/i.test(name);

/**
 * The report of a zip: its one file (folders and macOS resource forks aside, whatever its name), or
 * of several files the one named `.xml` or `.json` (a README a gateway added beside it).
 */
function reportEntry(entries: UnzipFileInfo[]): UnzipFileInfo | Dropped {
  const files = entries.filter((e) => isFile(e.name));
  if (files.length === 1) return files[0];
  const reports = files.filter((e) => isReportName(e.name));
  if (reports.length === 1) return reports[0];
  if (!files.length) return dropped('archive', 'no file in the archive');
  const names = files.map((f) => f.name).join(', ');
  return dropped(
    'archive',
    `${files.length} files (${names}), ${reports.length} of them .xml or .json: which is the report?`,
  );
}

/** The report file of a zip (see reportEntry), inflated up to `cap` bytes. */
export function unzipOne(bytes: Uint8Array, cap: number): Unpacked {
  const entries = listEntries(bytes);
  if (!Array.isArray(entries)) return entries;
  const entry = reportEntry(entries);
  if ('ok' in entry) return entry;
  if (entry.compression !== 0 && entry.compression !== 8)
    return dropped(
      'archive',
      `${entry.name}: compression method ${entry.compression} (only stored and deflate are read)`,
    );
  if (entry.originalSize > cap)
    return dropped('too_large', `${entry.name} declares ${entry.originalSize} bytes unpacked`);

  const chunks: Uint8Array[] = [];
  let size = 0;
  let started = false;
  let complete = false;
  const unzip = new Unzip((file) => {
    if (file.name !== entry.name || started) return; // not started: fflate skips it
    started = true;
    file.ondata = (error, chunk, final) => {
      if (error) throw error;
      size += chunk.length;
      if (size > cap) throw new Stop(tooLarge(cap));
      chunks.push(chunk);
      complete = final;
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    unzip.push(bytes, true);
  } catch (error) {
    if (error instanceof Stop) return error.result;
    return dropped('archive', `${entry.name}: not readable (encrypted or corrupt): ${errorMessage(error)}`);
  }
  if (!complete) return dropped('archive', `${entry.name}: its data ends early or was not found`);
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return { ok: true, bytes: out };
}
