/**
 * Email addresses. No zod here, so workers can check addresses without carrying the schema library.
 *
 * A bare address (`local@domain`) is what the suppression list keys. A mailbox is what `from`,
 * `to`, `cc`, `bcc` and `reply_to` take: `addr`, `<addr>`, `Name <addr>` or `"Name" <addr>`,
 * exactly ONE mailbox per entry, because the string goes to SES as it is and SES reads it as
 * RFC 5322 does: `x@evil, y@evil <ok@...>` is three recipients there, and ours would count and
 * suppression-check only the last. So an entry must parse to one mailbox with postal-mime's
 * RFC 5322 address parser AND with the strict grammar below, both naming the same address:
 * - groups (`team: a@x, b@x;`) are refused: their members would escape the count;
 * - comments (`(...)`) are refused: parsers disagree on them (postal-mime reads one as the name);
 * - a display name carries no address: no `@`, `<` or `>`, no `\`, `"` only as its quotes, and
 *   `,` `;` `:` `(` `)` `[` `]` only inside them (a From name takes no `,` or `;` at all);
 * - encoded-words (`=?utf-8?B?...?=`) are allowed; the decoded name obeys the same rules;
 * - no control characters (CR, LF, NUL, U+2028, U+2029, ...) anywhere.
 */
import { addressParser } from 'postal-mime';
import { HEADER_UNSAFE } from '../platform/http/header-text';

export const BARE_ADDRESS = /^[^\s@<>"(),;:]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
export const MAX_ADDRESS_LENGTH = 254;
/** A whole mailbox, display name included. */
export const MAX_MAILBOX_LENGTH = 320;
export const isAddress = (value: string): boolean => value.length <= MAX_ADDRESS_LENGTH && BARE_ADDRESS.test(value);

/** `Name <addr>`: an unquoted phrase (no specials but `.`) or one quoted string without escapes, then the angle address. */
const NAME_ADDR = /^(?:"([^"\\]*)"|([^"\\()<>[\]:;@,]*?))\s*<([^<>]*)>$/;

export interface Mailbox {
  /** the bare address, as given */
  address: string;
  /** the display name, decoded ('' without one) */
  name: string;
}

/** One mailbox, or why the value is not exactly one acceptable mailbox (a sentence for `errors[].message`). */
export function parseMailbox(input: string, role: 'from' | 'recipient' = 'recipient'): Mailbox | { problem: string } {
  const value = input.trim();
  if (HEADER_UNSAFE.test(value)) return { problem: 'must not contain line breaks or control characters' };
  if (value.length > MAX_MAILBOX_LENGTH) return { problem: `must be at most ${MAX_MAILBOX_LENGTH} characters` };
  const nameAddr = NAME_ADDR.exec(value);
  const rawName = nameAddr ? (nameAddr[1] ?? nameAddr[2]).trim() : '';
  const address = nameAddr ? nameAddr[3].trim() : value;
  if (!nameAddr && /[<>"]/.test(value))
    return { problem: 'must be one email address, optionally as "Name <address>"; a display name may hold , ; : ( ) only inside double quotes, and no @ < > or \\' };
  if (!isAddress(address)) return { problem: 'must be one email address, optionally as "Name <address>"' };
  const parsed = addressParser(value);
  const [mailbox] = parsed;
  if (parsed.length !== 1 || !mailbox || 'group' in mailbox || mailbox.group || mailbox.address?.toLowerCase() !== address.toLowerCase()) {
    return { problem: 'must be exactly one mailbox (no lists, groups or comments): give each recipient as its own entry' };
  }
  const name = mailbox.name ?? '';
  for (const shown of [rawName, name]) {
    if (/[@<>]/.test(shown) || HEADER_UNSAFE.test(shown)) return { problem: 'the display name must not contain an address (@ < >) or control characters' };
    if (role === 'from' && /[,;]/.test(shown)) return { problem: 'the From display name must not contain , or ;' };
  }
  return { address, name };
}

/** The problem with a mailbox, or undefined when it is one acceptable mailbox. */
export const mailboxProblem = (value: string, role: 'from' | 'recipient' = 'recipient'): string | undefined => {
  const result = parseMailbox(value, role);
  return 'problem' in result ? result.problem : undefined;
};
