/**
 * What could end a header line somewhere on its way: C0 and C1 controls but tab, DEL, and the
 * Unicode line and paragraph separators. One definition for the input checks (schemas.ts, the
 * mailbox parser in shared/platform/mail/addresses.ts) and the header-context render
 * (shared/templates/render.ts); zod-free, so workers rendering subjects do not carry zod.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (they end header lines)
export const HEADER_UNSAFE = /[\u0000-\u0008\u000A-\u001F\u007F-\u009F\u2028\u2029]/;

const HEADER_UNSAFE_RUN = new RegExp(`${HEADER_UNSAFE.source}+`, 'g');

/** A value as it may go into a header field: each run of line breaks or control characters becomes one space (as unfolding would). */
export const headerSafeValue = (value: string): string => value.replace(HEADER_UNSAFE_RUN, ' ');
