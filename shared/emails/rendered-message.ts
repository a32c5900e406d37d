/**
 * The message a send would put on the wire: the MIME document (RFC 5322 + 2045-2047) that SES
 * builds from a Simple SendEmail request, built from the same request the live sender gives SES
 * (shared/emails/sender.ts `sesInput`). Test mode stores it instead of sending it
 * (./test-mode-send.ts), and GET /emails/{id} offers it as `raw` (`message/rfc822`), as received
 * mail offers the message as it arrived, so a test can assert on what a recipient would get.
 *
 * The shape SES documents for Simple content: headers From, To, Cc, Reply-To, Subject, Date,
 * Message-ID, MIME-Version and the request's own headers; the body one `text/plain` or
 * `text/html` part, or both in `multipart/alternative`; with attachments, that inside
 * `multipart/mixed` followed by each attachment (base64; an inline one with its Content-ID).
 * Text parts are quoted-printable, so an ASCII body stays readable in the raw message. Where SES's
 * own bytes differ (its boundaries, header order and folding, the DKIM signature it adds, the
 * tracking pixel and wrapped links of a tracking domain), this is the message before SES's
 * changes; the simulated Open and Click events still come as SES would report them.
 */
import { randomBytes } from 'node:crypto';

/** The part of an SES v2 Simple SendEmail request the message is built from (SendEmailCommand's input has this shape). */
export interface SimpleSendRequest {
  FromEmailAddress?: string;
  Destination?: { ToAddresses?: string[]; CcAddresses?: string[]; BccAddresses?: string[] };
  ReplyToAddresses?: string[];
  Content?: {
    Simple?: {
      Subject?: { Data?: string };
      Body?: { Html?: { Data?: string }; Text?: { Data?: string } };
      Headers?: { Name?: string; Value?: string }[];
      Attachments?: {
        FileName?: string;
        RawContent?: Uint8Array;
        ContentType?: string;
        ContentDisposition?: string;
        ContentId?: string;
      }[];
    };
  };
}

const CRLF = '\r\n';
/** RFC 5322's recommended line length; lines are folded (headers) or soft-broken (quoted-printable) before it. */
const LINE = 76;

const isAscii = (text: string) => /^[\x20-\x7e\t]*$/.test(text);

/** RFC 2047 encoded words (UTF-8, base64) for non-ASCII text, each at most 75 characters, never splitting a character. */
function encodedWords(text: string): string[] {
  const words: string[] = [];
  let chunk = '';
  for (const char of text) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`);
}

/** A header's value as written: ASCII as is, anything else as encoded words (apart by spaces, where `header` folds). */
const headerText = (text: string): string => (isAscii(text) ? text : encodedWords(text).join(' '));

/** `Name <a@b>` with the display name encoded when it is not ASCII (quoted when it has specials). */
function mailbox(address: string): string {
  const match = /^\s*(.*?)\s*<([^>]+)>\s*$/.exec(address);
  if (!match || !match[1]) return address.trim();
  const name = match[1].replace(/^"(.*)"$/, '$1');
  if (!isAscii(name)) return `${headerText(name)} <${match[2]}>`;
  return /[()<>[\]:;@\\,."]/.test(name)
    ? `"${name.replace(/(["\\])/g, '\\$1')}" <${match[2]}>`
    : `${name} <${match[2]}>`;
}

/** A header line, folded at spaces so no line passes LINE characters where it can be avoided (RFC 5322 2.2.3). */
function header(name: string, value: string): string {
  const words = `${name}: ${value}`.split(' ');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + 1 + word.length > LINE) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`${CRLF} `);
}

/** Quoted-printable (RFC 2045 6.7) of UTF-8 text, line breaks as CRLF, soft breaks before LINE characters. */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r?\n/)
    .map((line) => {
      const bytes = Buffer.from(line);
      const out: string[] = [];
      let current = '';
      bytes.forEach((byte, i) => {
        const last = i === bytes.length - 1;
        const literal = (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        const piece = literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
        if (current.length + piece.length > LINE - 1) {
          out.push(`${current}=`);
          current = '';
        }
        current += piece;
      });
      out.push(current);
      return out.join(CRLF);
    })
    .join(CRLF);
}

/** Base64 in lines of LINE characters. */
const base64Lines = (bytes: Uint8Array): string =>
  (
    Buffer.from(bytes)
      .toString('base64')
      .match(new RegExp(`.{1,${LINE}}`, 'g')) ?? []
  ).join(CRLF);

const boundary = () => `=_es_${randomBytes(12).toString('hex')}`;

/** A MIME entity: its headers and body, as lines. */
const entity = (headers: string[], body: string): string => [...headers, '', body].join(CRLF);

function multipart(subtype: string, parts: string[]): string {
  const b = boundary();
  return entity(
    [`Content-Type: multipart/${subtype}; boundary="${b}"`],
    [...parts.map((part) => `--${b}${CRLF}${part}`), `--${b}--`, ''].join(CRLF),
  );
}

const textPart = (subtype: 'plain' | 'html', text: string) =>
  entity(
    [`Content-Type: text/${subtype}; charset=UTF-8`, 'Content-Transfer-Encoding: quoted-printable'],
    quotedPrintable(text),
  );

/** The parameter value of a file name: quoted ASCII, or RFC 2231 UTF-8 for any other. */
const filenameParameter = (parameter: string, filename: string) =>
  isAscii(filename)
    ? `${parameter}="${filename.replace(/(["\\])/g, '\\$1')}"`
    : `${parameter}*=UTF-8''${encodeURIComponent(filename)}`;

/**
 * The message as RFC 5322 bytes. `messageId`: the Message-ID header (with its angle brackets);
 * `date`: when it was sent. Bcc recipients are not in the headers (SES leaves them out too).
 */
export function renderMessage(request: SimpleSendRequest, options: { messageId: string; date: Date }): Buffer {
  const simple = request.Content?.Simple ?? {};
  const destination = request.Destination ?? {};
  const headers = [
    header('From', mailbox(request.FromEmailAddress ?? '')),
    ...(destination.ToAddresses?.length ? [header('To', destination.ToAddresses.map(mailbox).join(', '))] : []),
    ...(destination.CcAddresses?.length ? [header('Cc', destination.CcAddresses.map(mailbox).join(', '))] : []),
    ...(request.ReplyToAddresses?.length ? [header('Reply-To', request.ReplyToAddresses.map(mailbox).join(', '))] : []),
    header('Subject', headerText(simple.Subject?.Data ?? '')),
    header('Date', options.date.toUTCString().replace(/GMT$/, '+0000')),
    header('Message-ID', options.messageId),
    'MIME-Version: 1.0',
    ...(simple.Headers ?? []).map((h) => header(String(h.Name), String(h.Value))),
  ];
  const html = simple.Body?.Html?.Data;
  const text = simple.Body?.Text?.Data;
  const texts = [
    ...(text !== undefined ? [textPart('plain', text)] : []),
    ...(html !== undefined ? [textPart('html', html)] : []),
  ];
  let body = texts.length === 1 ? texts[0] : multipart('alternative', texts);
  const attachments = simple.Attachments ?? [];
  if (attachments.length) {
    body = multipart('mixed', [
      body,
      ...attachments.map((a) => {
        const filename = a.FileName ?? 'attachment';
        const disposition = a.ContentDisposition === 'INLINE' ? 'inline' : 'attachment';
        return entity(
          [
            `Content-Type: ${a.ContentType ?? 'application/octet-stream'}; ${filenameParameter('name', filename)}`,
            `Content-Disposition: ${disposition}; ${filenameParameter('filename', filename)}`,
            'Content-Transfer-Encoding: base64',
            ...(a.ContentId ? [`Content-ID: <${a.ContentId.replace(/^<|>$/g, '')}>`] : []),
          ],
          base64Lines(a.RawContent ?? new Uint8Array()),
        );
      }),
    ]);
  }
  return Buffer.from(`${headers.join(CRLF)}${CRLF}${body}${body.endsWith(CRLF) ? '' : CRLF}`);
}
