/**
 * An email item as the API shows it, and the addresses it is keyed by: a leaf module, so the
 * functions that only need these (DELETE /domains cancelling waiting mail) bundle nothing else.
 *
 * The item holds the envelope and the status; the content (html, text, headers, attachments) is
 * stored once beside it (./content.ts). So there are two shapes: the summary (the item alone:
 * lists, and `data.object` of every email event, which never carries a body) and the whole
 * record (GET /emails/{id}: the item with its content).
 */
import type { Item } from '../platform/db/table';
import { sesMessageIdHeader } from '../platform/aws/region';
import type { EmailContent } from './content';
import type { EmailItem } from './item';
import type { EmailRecord, EmailSummary } from './model';

/** The bare address of `Name <addr>`, lower-cased (suppression and domain checks compare these). */
export function bareAddress(address: string): string {
  const match = /<([^>]+)>\s*$/.exec(address);
  return (match ? match[1] : address).trim().toLowerCase();
}

/** The domain part of a From address (`Name <a@b.example>` -> `b.example`): the sending domain it must belong to. */
export function addressDomain(address: string): string {
  return bareAddress(address).split('@')[1];
}

/** The Message-ID header of a test-mode email (its id is `test-...`, no SES id): under `.invalid`, a name that never resolves. */
export const testMessageIdHeader = (messageId: string): string => `<${messageId}@test-mode.invalid>`;

/** The email without its content: what lists show and what email events carry. */
export function toSummary(item: Item): EmailSummary {
  const e = item as EmailItem;
  return {
    object: 'email',
    id: e.id,
    // the item keeps SES's id; the API shows the Message-ID header the recipient sees, and SES's id beside it
    message_id: e.message_id
      ? e.livemode === false
        ? testMessageIdHeader(e.message_id)
        : sesMessageIdHeader(e.message_id)
      : null, // test mode never reaches SES
    ses_message_id: e.message_id ?? null,
    from: e.from,
    to: e.to,
    cc: e.cc ?? [],
    bcc: e.bcc ?? [],
    reply_to: e.reply_to ?? [],
    subject: e.subject,
    tags: e.tags ?? [],
    last_event: e.last_event,
    scheduled_at: e.scheduled_at ?? null,
    created_at: e.created_at,
    ...(e.broadcast_id ? { broadcast_id: e.broadcast_id } : {}),
    ...(e.template_id ? { template_id: e.template_id } : {}),
    ...(e.topic_id ? { topic_id: e.topic_id } : {}),
    ...(e.suppressed_reason ? { suppressed_reason: e.suppressed_reason } : {}),
  };
}

/**
 * The whole email: its item with its content (`html`, `text` null and no headers when the content is gone: past its retention);
 * `raw`: a test-mode email's rendered message (undefined for live mail, which has none).
 */
export function toRecord(item: Item, content: EmailContent | undefined, raw?: EmailRecord['raw']): EmailRecord {
  const { object, id, message_id, from, to, cc, bcc, reply_to, subject, ...rest } = toSummary(item);
  return {
    object,
    id,
    message_id,
    from,
    to,
    cc,
    bcc,
    reply_to,
    subject,
    html: content?.html ?? null,
    text: content?.text ?? null,
    headers: content?.headers ?? {},
    ...rest,
    ...(raw !== undefined ? { raw } : {}),
  };
}
