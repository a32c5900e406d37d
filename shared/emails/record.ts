/**
 * An email item as the API shows it, and the addresses it is keyed by: a leaf module, so the
 * functions that only need these (DELETE /domains cancelling waiting mail) bundle nothing else.
 */
import type { Item } from '../platform/db/table';
import type { EmailItem, EmailRecord } from './emails';

/** The bare address of `Name <addr>`, lower-cased (suppression and domain checks compare these). */
export function bareAddress(address: string): string {
  const match = /<([^>]+)>\s*$/.exec(address);
  return (match ? match[1] : address).trim().toLowerCase();
}

/** The domain part of a From address (`Name <a@b.example>` -> `b.example`): the sending domain it must belong to. */
export function addressDomain(address: string): string {
  return bareAddress(address).split('@')[1];
}

export function toRecord(item: Item): EmailRecord {
  const e = item as EmailItem;
  return {
    object: 'email',
    id: e.id,
    message_id: e.message_id ?? null,
    from: e.from,
    to: e.to,
    cc: e.cc ?? [],
    bcc: e.bcc ?? [],
    reply_to: e.reply_to ?? [],
    subject: e.subject,
    html: e.html ?? null,
    text: e.text ?? null,
    headers: e.headers ?? {},
    tags: e.tags ?? [],
    last_event: e.last_event,
    scheduled_at: e.scheduled_at ?? null,
    created_at: e.created_at,
    ...(e.broadcast_id ? { broadcast_id: e.broadcast_id } : {}),
  };
}
