/**
 * multipart/form-data bodies (RFC 7578), for the one route that takes a file (POST
 * /contacts/imports, which the Resend SDK sends as a FormData). Synchronous and small: the body is
 * already whole in memory (at most MAX_BODY_BYTES, decoded from API Gateway's base64).
 *
 * Fields become an object like a form body's: a text field is its value decoded as UTF-8; a file
 * field (one with a `filename`) is its bytes as a latin1 string, one character per byte, so the
 * operation's string schema bounds it in bytes and the handler gets the exact bytes back with
 * `Buffer.from(value, 'latin1')` (whatever their encoding: checking it is the route's business).
 * A name given twice becomes an array, which no string schema accepts.
 */
import { badRequest } from '../errors';

export const MULTIPART_TYPE = /^multipart\/form-data\s*;/i;

const malformed = (why: string) => badRequest('invalid_multipart', `Body is not valid multipart/form-data: ${why}`);

/** A header parameter (`name="file"`), quoted or not; quoted values keep what is inside the quotes. */
function parameter(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(header);
  return match ? (match[1]?.replace(/\\(.)/g, '$1') ?? match[2]) : undefined;
}

export function parseMultipart(raw: Buffer, contentType: string): Record<string, string | string[]> {
  const boundary = parameter(contentType, 'boundary');
  if (!boundary) throw malformed('no boundary in Content-Type');
  const delimiter = Buffer.from(`--${boundary}`);
  const separator = Buffer.from(`\r\n--${boundary}`);
  const fields = new Map<string, string | string[]>();
  let at = raw.indexOf(delimiter);
  if (at < 0) throw malformed('no part');
  for (;;) {
    at += delimiter.length;
    if (raw[at] === 0x2d && raw[at + 1] === 0x2d) break; // `--`: the closing delimiter
    if (raw[at] !== 0x0d || raw[at + 1] !== 0x0a) throw malformed('a delimiter is not followed by a line break');
    const headersEnd = raw.indexOf('\r\n\r\n', at + 2);
    if (headersEnd < 0) throw malformed("a part's headers do not end");
    const headers = raw.subarray(at + 2, headersEnd).toString('utf8');
    const next = raw.indexOf(separator, headersEnd + 4);
    if (next < 0) throw malformed('the closing delimiter is missing');
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? '';
    const name = parameter(disposition, 'name');
    if (!/^\s*form-data\s*;/i.test(disposition) || name === undefined)
      throw malformed('a part has no Content-Disposition: form-data name');
    const content = raw.subarray(headersEnd + 4, next);
    const value =
      parameter(disposition, 'filename') === undefined ? content.toString('utf8') : content.toString('latin1');
    const seen = fields.get(name);
    fields.set(name, seen === undefined ? value : [seen, value].flat());
    at = next + 2;
  }
  return Object.fromEntries(fields); // own data properties only: a field named __proto__ stays a field
}
