/**
 * What the sender adds to an inbox's email (shared/inboxes/outbound.ts) when SES has taken it: SES sets the Message-ID itself
 * (it overrides one given in the request), so the id a reply to this email will name is known only
 * now. It is filed under the email's thread (keys.inboxMessageId) in the sender's `sent`
 * transaction, so an answer threads by its In-Reply-To alone (the thread's message shows it from
 * the email itself: shared/inboxes/threads.ts). A Put only: a thread deleted meanwhile leaves a key that
 * expires with the email and points at no thread (filing then starts a new one).
 */
import * as keys from '../platform/db/keys';
import { put, type WriteAction } from '../platform/db/table';
import { normalizeMessageId } from '../platform/mail/message-id';

export function sentMessageIdWrites(
  projectId: string,
  ref: { inbox_id: string; thread_id: string },
  messageIdHeader: string,
  expiresAt: number | undefined,
): WriteAction[] {
  const normalized = normalizeMessageId(messageIdHeader);
  if (!normalized) return [];
  return [
    put({
      ...keys.inboxMessageId(projectId, ref.inbox_id, normalized),
      type: 'inbox_message_id',
      thread_id: ref.thread_id,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
    }),
  ];
}
