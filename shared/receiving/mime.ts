/**
 * A received message, read: the MIME parse of the raw bytes SES stored, as the fields of a
 * received email. Pure (no I/O), so the unit tests feed it messages directly.
 *
 * The parser is `postal-mime` (by the author of `mailparser`, no dependencies): `mailparser`
 * bundles to about 1.2 MB (iconv-lite's tables, html-to-text, tlds, ...), far past the 450 KB
 * budget of every function (DESIGN.md), while postal-mime adds about 60 KB and decodes charsets
 * with the runtime's own `TextDecoder` (full ICU in Node.js: ISO-8859-*, Windows-125*, KOI8-R,
 * Shift_JIS, ISO-2022-JP, EUC-KR, GB18030, Big5, ...).
 *
 * Decisions the contract leaves open (README, "Receiving"):
 * - addresses are `Name <address>` when the header gives a name, else the bare address; groups
 *   are flattened to their members;
 * - `headers`: every header by its lower-cased name; a header that appears more than once (e.g.
 *   `received`) has its values joined by a newline, in message order;
 * - `html` keeps `cid:` references to inline parts, which are attachments with a `content_id`;
 * - an attached message (`message/rfc822`) is an attachment, not merged into the body.
 * The parser is lenient: a message with broken structure still yields what can be read (at
 * worst its bytes as text), never an error the worker would retry forever.
 */
import PostalMime, { type Address, type Email } from 'postal-mime';

export interface ParsedAttachment {
  filename: string | null;
  content_type: string;
  content_disposition: 'attachment' | 'inline';
  content_id: string | null;
  content: Uint8Array;
}

export interface ParsedMessage {
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  message_id: string | null;
  headers: Record<string, string>;
  text: string | null;
  html: string | null;
  attachments: ParsedAttachment[];
}

const NEEDS_QUOTES = /[",;<>@()[\]:\\]/;

function formatMailbox(name: string, address: string): string {
  if (!name) return address;
  const display = NEEDS_QUOTES.test(name) ? `"${name.replace(/(["\\])/g, '\\$1')}"` : name;
  return address ? `${display} <${address}>` : display;
}

export function formatAddresses(list: Address[] | undefined): string[] {
  return (list ?? [])
    .flatMap((entry) =>
      entry.group
        ? entry.group.map((m) => formatMailbox(m.name, m.address))
        : [formatMailbox(entry.name, entry.address ?? '')],
    )
    .filter(Boolean);
}

function headerRecord(headers: { key: string; value: string }[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { key, value } of headers) {
    const name = key.toLowerCase();
    record[name] = name in record ? `${record[name]}\n${value}` : value;
  }
  return record;
}

const stripAngles = (value: string | undefined) => (value ? value.trim().replace(/^<(.*)>$/, '$1') : null);

function toBytes(content: ArrayBuffer | Uint8Array | string): Uint8Array {
  if (typeof content === 'string') return new TextEncoder().encode(content);
  return content instanceof Uint8Array ? content : new Uint8Array(content);
}

/** `envelopeFrom`: the SMTP MAIL FROM, for a message whose From header is missing or unreadable. */
export async function parseMessage(raw: Uint8Array, envelopeFrom = ''): Promise<ParsedMessage> {
  const email: Email = await PostalMime.parse(raw, { rfc822Attachments: true, attachmentEncoding: 'arraybuffer' });
  const from = formatAddresses(email.from ? [email.from] : undefined)[0] ?? envelopeFrom;
  return {
    from,
    to: formatAddresses(email.to),
    cc: formatAddresses(email.cc),
    bcc: formatAddresses(email.bcc),
    reply_to: formatAddresses(email.replyTo),
    subject: email.subject ?? '',
    message_id: email.messageId?.trim() || null,
    headers: headerRecord(email.headers),
    text: email.text ?? null,
    html: email.html ?? null,
    attachments: email.attachments.map((a) => ({
      filename: a.filename || null,
      content_type: a.mimeType || 'application/octet-stream',
      content_disposition: a.disposition ?? (a.contentId ? 'inline' : 'attachment'),
      content_id: stripAngles(a.contentId),
      content: toBytes(a.content),
    })),
  };
}

/** The headers SES puts in its notification (`mail.commonHeaders`, `mail.headers`), for a message too large to parse. */
export interface SesHeaders {
  commonHeaders?: {
    from?: string[];
    to?: string[];
    cc?: string[];
    bcc?: string[];
    replyTo?: string[];
    subject?: string;
    messageId?: string;
  };
  headers?: { name: string; value: string }[];
}

/** What can be said of a message from SES's notification alone: addresses, subject, headers; no body, no attachments. */
export function messageFromSesHeaders(mail: SesHeaders, envelopeFrom = ''): ParsedMessage {
  const common = mail.commonHeaders ?? {};
  const list = (values: string[] | undefined) => (values ?? []).map((v) => v.trim()).filter(Boolean);
  return {
    from: list(common.from)[0] ?? envelopeFrom,
    to: list(common.to),
    cc: list(common.cc),
    bcc: list(common.bcc),
    reply_to: list(common.replyTo),
    subject: common.subject ?? '',
    message_id: common.messageId?.trim() || null,
    headers: headerRecord((mail.headers ?? []).map((h) => ({ key: h.name, value: h.value }))),
    text: null,
    html: null,
    attachments: [],
  };
}
