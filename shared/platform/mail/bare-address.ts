/**
 * The bare lower-cased address of "Name <a@b>" or "a@b" ('' when none), read leniently (received
 * mail's headers, search filters): the form inboxes thread by and GET /emails' index keeps.
 */
export function bareAddressOf(value: string): string {
  // the last bracketed address: a quoted display name may hold brackets or an address of its own
  const bracketed = [...value.matchAll(/<([^<>]*)>/g)].map((m) => m[1].trim()).filter((a) => a.includes('@'));
  const address = bracketed.at(-1) ?? /[^\s<>"(),;:]+@[^\s<>"(),;:]+/.exec(value)?.[0] ?? '';
  const bare = address
    .replace(/^mailto:/i, '')
    .replace(/\.+$/, '')
    .toLowerCase();
  const at = bare.lastIndexOf('@');
  return at > 0 && at < bare.length - 1 ? bare : '';
}
