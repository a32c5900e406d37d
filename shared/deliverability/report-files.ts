/**
 * A report file as it was attached to a report mail, read into a DMARC or TLS report, or dropped
 * with a reason (issue 40). Pure: bytes in, report or drop out; never a throw, never more memory
 * than the limits below allow.
 *
 * What the bytes are is decided by their content, not by the file name or content type (reporters
 * label them every way: `application/gzip`, `application/x-gzip`, `application/octet-stream`,
 * `.xml.gz` holding plain XML, ...): the gzip magic `1f 8b`, the zip magic `PK\x03\x04`; unpacked (or
 * plain), XML starts with `<` and JSON with `{` after an optional byte-order mark and white space.
 * One level of packing is opened: an archive inside an archive is dropped (`archive`). The name and
 * type only appear in the detail of a `not_a_report`.
 *
 * Text is UTF-8 unless a byte-order mark says UTF-16, or the XML declaration names another encoding
 * the runtime knows (`ISO-8859-1`, `windows-1252`, ...).
 */
import { gunzip, packingOf, unzipOne } from './archives';
import { readDmarcReport } from './dmarc-report';
import { dropped, errorMessage } from './drops';
import type { DmarcReport, Dropped, TlsReport } from './model';
import { readTlsReport } from './tls-report';

/** A report file as attached (compressed, if it is): larger ones are `too_large` unread. */
export const MAX_REPORT_FILE_BYTES = 10 * 1024 * 1024;
/** What a report file may unpack to (a zip entry or a gzip's content), declared or actual. */
export const MAX_REPORT_XML_BYTES = 20 * 1024 * 1024;

export interface ReportFile {
  filename: string | null;
  contentType: string | null;
  bytes: Uint8Array;
}

export type ReadReport = { ok: true; report: DmarcReport | TlsReport } | Dropped;

const DECLARED_ENCODING = /^<\?xml[^>]{0,200}?encoding\s*=\s*["']([A-Za-z0-9._:-]{1,40})["']/;

/** The bytes as text: UTF-16 by its byte-order mark, else the XML declaration's (single-byte or UTF-8) encoding, else UTF-8 (a BOM dropped). */
function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 300)).replace(/^\uFEFF|^\xEF\xBB\xBF/, '');
  const declared = DECLARED_ENCODING.exec(head.trimStart())?.[1];
  let decoder = new TextDecoder('utf-8');
  if (declared && !/^utf-?16/i.test(declared))
    try {
      decoder = new TextDecoder(declared);
    } catch {} // a label the runtime does not know: read as UTF-8
  return decoder.decode(bytes);
}

const described = (file: ReportFile) =>
  [file.filename, file.contentType].filter(Boolean).join(', ') || 'no name or type';

function read(file: ReportFile): ReadReport {
  let bytes = file.bytes;
  if (bytes.length > MAX_REPORT_FILE_BYTES)
    return dropped('too_large', `${bytes.length} bytes attached, more than ${MAX_REPORT_FILE_BYTES}`);
  const packing = packingOf(bytes);
  if (packing) {
    const unpacked = packing === 'gzip' ? gunzip(bytes, MAX_REPORT_XML_BYTES) : unzipOne(bytes, MAX_REPORT_XML_BYTES);
    if (!unpacked.ok) return unpacked;
    const inner = packingOf(unpacked.bytes);
    if (inner) return dropped('archive', `a ${inner} inside the ${packing}: one level of packing is read`);
    bytes = unpacked.bytes;
  }
  const text = decodeText(bytes);
  const start = text.search(/[^\s\uFEFF]/);
  if (text[start] === '<') return readDmarcReport(text.slice(start));
  if (text[start] === '{') return readTlsReport(text);
  return dropped(
    'not_a_report',
    `${packing ? `the ${packing}'s content is` : 'it is'} neither gzip, zip, XML nor JSON (${described(file)})`,
  );
}

/** A report file read, or the reason it was dropped. Never throws. */
export function readReportFile(file: ReportFile): ReadReport {
  try {
    return read(file);
  } catch (error) {
    // the readers catch what their libraries throw; this is the net under anything they did not foresee
    return dropped('malformed', `unreadable: ${errorMessage(error)}`);
  }
}
