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
 * - no control characters (CR, LF, NUL, U+2028, U+2029, ...) anywhere;
 * - a name (display names here, contact names in shared/audience/model.ts, which render into
 *   broadcast subjects) holds no bidi controls (U+202A-202E, U+2066-2069, U+200E, U+200F,
 *   U+061C: they reorder what a reader sees, `moc.knab` shown as `bank.com`) and no character
 *   that NFKC turns into `@`, `<`, `>` or `.` (full-width `＠` `＜` `＞` `．`, small `﹫`...): a
 *   name that reads as an address, checked after normalisation as a mail client may show it.
 *
 * The local part of an address is a dot-atom (RFC 5322 3.4.1: atext runs joined by single dots,
 * none first or last), with non-ASCII letters as RFC 6531 allows but no controls or bidi
 * controls. Quoted local parts (`"a b"@x`) are refused everywhere, as they always were (a `"`
 * never passed): one grammar for POST /emails, contacts, imports, suppressions and the
 * suppression list's keys, so an address is either valid in all of them or in none. So `[`, `]`,
 * `\` and `..` are refused in a local part.
 */
import { addressParser } from 'postal-mime';
import { HEADER_UNSAFE } from './header-text';

/** A dot-atom's character: RFC 5322's atext, or any non-ASCII character but controls, separators and bidi controls. */
const ATEXT =
  "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\u00A0-\\u061B\\u061D-\\u200D\\u2010-\\u2027\\u202F-\\u2065\\u206A-\\uFFFF-]";
const DOMAIN = /[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/
  .source;
export const BARE_ADDRESS = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*@${DOMAIN}$`);
export const MAX_ADDRESS_LENGTH = 254;
/** A whole mailbox, display name included. */
export const MAX_MAILBOX_LENGTH = 320;
export const isAddress = (value: string): boolean => value.length <= MAX_ADDRESS_LENGTH && BARE_ADDRESS.test(value);

// U+061C, U+200E-200F, U+202A-202E, U+2066-2069
const BIDI_CONTROL = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const ADDRESS_SIGN = /[@<>.]/;

/** Why a name (display name, contact name) is refused, or undefined: bidi controls, or a look-alike of `@` `<` `>` `.` (after NFKC). */
export function nameProblem(name: string): string | undefined {
  if (BIDI_CONTROL.test(name))
    return 'must not contain bidi (text direction) controls (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C)';
  for (const char of name) {
    const normal = char.normalize('NFKC');
    if (normal !== char && ADDRESS_SIGN.test(normal))
      return `must not contain ${char} (U+${char.codePointAt(0)!.toString(16).toUpperCase()}), which reads as ${normal}`;
  }
  return undefined;
}

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
    return {
      problem:
        'must be one email address, optionally as "Name <address>"; a display name may hold , ; : ( ) only inside double quotes, and no @ < > or \\',
    };
  if (!isAddress(address)) return { problem: 'must be one email address, optionally as "Name <address>"' };
  const parsed = addressParser(value);
  const [mailbox] = parsed;
  if (
    parsed.length !== 1 ||
    !mailbox ||
    'group' in mailbox ||
    mailbox.group ||
    mailbox.address?.toLowerCase() !== address.toLowerCase()
  ) {
    return {
      problem: 'must be exactly one mailbox (no lists, groups or comments): give each recipient as its own entry',
    };
  }
  const name = mailbox.name ?? '';
  for (const shown of [rawName, name]) {
    if (/[@<>]/.test(shown) || HEADER_UNSAFE.test(shown))
      return { problem: 'the display name must not contain an address (@ < >) or control characters' };
    const problem = nameProblem(shown);
    if (problem) return { problem: `the display name ${problem}` };
    if (role === 'from' && /[,;]/.test(shown)) return { problem: 'the From display name must not contain , or ;' };
  }
  return { address, name };
}

/** The problem with a mailbox, or undefined when it is one acceptable mailbox. */
export const mailboxProblem = (value: string, role: 'from' | 'recipient' = 'recipient'): string | undefined => {
  const result = parseMailbox(value, role);
  return 'problem' in result ? result.problem : undefined;
};
