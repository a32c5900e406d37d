/**
 * Variable substitution for templates and broadcasts: `{{{KEY}}}` inserts the value as it is,
 * `{{KEY}}` inserts it HTML-escaped (& < > " '). Keys are letters, digits and `_`, with optional
 * spaces inside the braces (`{{ FIRST_NAME }}`); anything else between braces is left alone.
 * Values are looked up exactly; a key without a value is reported, and left in place, so the
 * caller decides whether that is an error (templates: 422) or fine (broadcasts: empty string,
 * via `missing: 'empty'`).
 */
import { headerSafeValue } from '../platform/http/header-text';
const VARIABLE = /\{\{\{\s*([A-Za-z0-9_]+)\s*\}\}\}|\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]);

export type Values = Record<string, string | number | boolean | null | undefined>;

export interface Rendered {
  text: string;
  /** keys that appear in the text and have no value (each once, in order of appearance) */
  missing: string[];
}

export { headerSafeValue };

/**
 * `escape: false` for plain text and subjects, where `{{KEY}}` inserts the value as it is too.
 * `context: 'header'` for subjects: values are inserted as they are, with line breaks and control
 * characters replaced (headerSafeValue), so no value (a send's variable, a contact's name or
 * property) can start a header line of its own.
 */
export function render(text: string, values: Values, options: { missing?: 'keep' | 'empty'; escape?: boolean; context?: 'body' | 'header' } = {}): Rendered {
  const missing: string[] = [];
  const out = text.replace(VARIABLE, (whole, raw: string | undefined, escaped: string | undefined) => {
    const key = (raw ?? escaped)!;
    const value = Object.hasOwn(values, key) ? values[key] : undefined;
    if (value === undefined || value === null) {
      if (!missing.includes(key)) missing.push(key);
      return options.missing === 'empty' ? '' : whole;
    }
    if (options.context === 'header') return headerSafeValue(String(value));
    return raw !== undefined || options.escape === false ? String(value) : escapeHtml(String(value));
  });
  return { text: out, missing };
}

/** A subject (or another header field) rendered with `values`: see `context: 'header'`. */
export const renderHeader = (text: string, values: Values, options: { missing?: 'keep' | 'empty' } = {}): Rendered => render(text, values, { ...options, context: 'header' });

/** The variable keys a text uses, each once, in order of appearance. */
export function variablesIn(text: string): string[] {
  const keys: string[] = [];
  for (const match of text.matchAll(VARIABLE)) {
    const key = match[1] ?? match[2];
    if (!keys.includes(key)) keys.push(key);
  }
  return keys;
}
