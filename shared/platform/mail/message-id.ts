/** RFC 5322 Message-IDs as the service compares them: by threading (shared/inboxes/threading.ts) and the sender's filing of SES's id. */
/**
 * A Message-ID as stored and compared: trimmed, without the angle brackets, lower-cased. '' for
 * something that is no id: empty, with whitespace, or without an "@" between two non-empty parts
 * (RFC 5322's id-left "@" id-right; a bare word such as "unknown" is what broken mailers put in
 * every message, and would join them all).
 */
export function normalizeMessageId(value: string): string {
  const bracketed = /<([^<>]*)>/.exec(value);
  const id = (bracketed ? bracketed[1] : value)
    .trim()
    .replace(/^[<\s]+|[>\s]+$/g, '')
    .toLowerCase();
  if (!id || /[\s<>]/.test(id)) return '';
  const at = id.indexOf('@');
  return at > 0 && at < id.length - 1 ? id : '';
}
