/**
 * Variable substitution for templates and broadcasts, in Resend's syntax:
 *
 * - `{{{KEY}}}` inserts the value as it is, `{{KEY}}` inserts it HTML-escaped (& < > " ').
 * - KEY is letters, digits and `_`, or `contact.<field>` (Resend's name for a contact's field or
 *   property: what it means is the caller's `values`), with optional spaces inside the braces
 *   (`{{ FIRST_NAME }}`).
 * - `|fallback` after the key (`{{{FIRST_NAME|there}}}`, `{{{contact.first_name|dear friend}}}`)
 *   is used when the value is missing, null or the empty string (as Resend: a contact without a
 *   first name has an empty one, and the fallback is written for exactly that). The fallback is
 *   the text after the first `|` up to the closing braces, spaces at its ends trimmed, taken
 *   literally (quotes are part of it: Resend's docs never quote one); it may not contain a brace.
 *   It is inserted as a value would be: escaped in `{{KEY|fallback}}`, header-safe in a subject.
 * - A placeholder whose braces do not pair (`{{{FIRST_NAME|there}}`, `{{KEY}}}`) is `malformed`:
 *   reported and left in place. Anything else between braces (`{{first name}}`, `{{a-b}}`,
 *   `{{X.Y}}`, four braces) is no placeholder and is left alone.
 *
 * Values are looked up exactly; a key without a value (and no fallback) is reported in `missing`,
 * and left in place, so the caller decides whether that is an error (templates: 422) or fine
 * (broadcasts: empty string, via `missing: 'empty'`). `placeholderProblems` is the check that
 * create and update run, so content whose placeholders cannot render is refused before it is stored.
 */
import { headerSafeValue } from '../platform/mail/header-text';

/** Braces at each end are matched loosely (two or three) so that unpaired ones can be named, never taken from a longer run. */
const PLACEHOLDER = /(?<!\{)(\{{2,3})\s*((?:contact\.)?[A-Za-z0-9_]+)\s*(?:\|([^{}]*))?(\}{2,3})(?!\})/g;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export type Values = Record<string, string | number | boolean | null | undefined>;

export interface Placeholder {
  /** as written, braces included */
  raw: string;
  key: string;
  /** undefined without `|`; '' for `{{{KEY|}}}` (renders nothing when the value is empty) */
  fallback: string | undefined;
  /** `{{{...}}}`: the value goes in as it is */
  raw_form: boolean;
  /** the braces do not pair: rendered as written, refused by create and update */
  malformed: boolean;
}

function toPlaceholder(match: RegExpMatchArray): Placeholder {
  const [raw, open, key, fallback, close] = match;
  return { raw, key, fallback: fallback?.trim(), raw_form: open.length === 3, malformed: open.length !== close.length };
}

/** Every placeholder of a text, in order, malformed ones included. */
export const placeholdersIn = (text: string): Placeholder[] => [...text.matchAll(PLACEHOLDER)].map(toPlaceholder);

export interface Rendered {
  text: string;
  /** keys that appear in the text and have neither a value nor a fallback (each once, in order of appearance) */
  missing: string[];
  /** placeholders whose braces do not pair, as written (each once), left in the text */
  malformed: string[];
}

export { headerSafeValue };

/** A value that counts as there: the fallback stands in for undefined, null and ''. */
const present = (value: Values[string]): boolean => value !== undefined && value !== null && value !== '';

/**
 * `escape: false` for plain text and subjects, where `{{KEY}}` inserts the value as it is too.
 * `context: 'header'` for subjects: values are inserted as they are, with line breaks and control
 * characters replaced (headerSafeValue), so no value (a send's variable, a contact's name or
 * property, a fallback) can start a header line of its own.
 */
export function render(
  text: string,
  values: Values,
  options: { missing?: 'keep' | 'empty'; escape?: boolean; context?: 'body' | 'header' } = {},
): Rendered {
  const missing: string[] = [];
  const malformed: string[] = [];
  const out = text.replace(PLACEHOLDER, (...args) => {
    const placeholder = toPlaceholder(args as unknown as RegExpMatchArray);
    if (placeholder.malformed) {
      if (!malformed.includes(placeholder.raw)) malformed.push(placeholder.raw);
      return placeholder.raw;
    }
    const { key, fallback } = placeholder;
    const value = Object.hasOwn(values, key) ? values[key] : undefined;
    let inserted: string;
    if (present(value)) inserted = String(value);
    else if (fallback !== undefined) inserted = fallback;
    else if (value === '') inserted = '';
    else {
      if (!missing.includes(key)) missing.push(key);
      return options.missing === 'empty' ? '' : placeholder.raw;
    }
    if (options.context === 'header') return headerSafeValue(inserted);
    return placeholder.raw_form || options.escape === false ? inserted : escapeHtml(inserted);
  });
  return { text: out, missing, malformed };
}

/** A subject (or another header field) rendered with `values`: see `context: 'header'`. */
export const renderHeader = (text: string, values: Values, options: { missing?: 'keep' | 'empty' } = {}): Rendered =>
  render(text, values, { ...options, context: 'header' });

/** The variable keys a text uses (malformed placeholders aside), each once, in order of appearance. */
export function variablesIn(text: string): string[] {
  const keys: string[] = [];
  for (const { key, malformed } of placeholdersIn(text)) if (!malformed && !keys.includes(key)) keys.push(key);
  return keys;
}

/** An ErrorDetail (shared/platform/errors.ts), declared here so the console can import the renderer. */
export interface PlaceholderProblem {
  code: 'malformed_placeholder' | 'unresolvable_placeholder';
  message: string;
  path: string;
}

/**
 * What create and update refuse (422) in content: each malformed placeholder, and each placeholder
 * without a fallback whose key `resolvable` does not know, once per field (`fields`: field name ->
 * its text; absent ones are skipped). `why` ends the message of an unresolvable key.
 */
export function placeholderProblems(
  fields: Record<string, string | null | undefined>,
  resolvable: (key: string) => boolean,
  why: string,
): PlaceholderProblem[] {
  const problems: PlaceholderProblem[] = [];
  for (const [path, text] of Object.entries(fields)) {
    const named = new Set<string>();
    for (const p of placeholdersIn(text ?? '')) {
      if (named.has(p.raw)) continue;
      named.add(p.raw);
      if (p.malformed) {
        const braces = p.raw_form ? '{{{…}}}' : '{{…}}';
        problems.push({
          code: 'malformed_placeholder',
          message: `${p.raw}: its braces do not pair (write ${braces}, three or two on both sides)`,
          path,
        });
      } else if (p.fallback === undefined && !resolvable(p.key)) {
        problems.push({
          code: 'unresolvable_placeholder',
          message: `${p.raw}: ${p.key} ${why}; give it a fallback (${p.raw_form ? `{{{${p.key}|…}}}` : `{{${p.key}|…}}`}) or use a key that has a value`,
          path,
        });
      }
    }
  }
  return problems;
}
