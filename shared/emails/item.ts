/**
 * The stored email (its status item): apart from ./emails.ts, whose logic imports what reads and
 * writes it (./record.ts, ./pending.ts), which need the type too.
 */
import type { EmailSummary } from './model';

/** The stored email: the envelope and status (its content is stored apart, ./content.ts). */
/** (`message_id` holds SES's id; the API shows it as the header and as `ses_message_id`: ./record.ts) */
export interface EmailItem extends Omit<EmailSummary, 'ses_message_id'> {
  project_id: string;
  livemode: boolean;
  configuration_set?: string;
  failure_reason?: string;
  /** why it was canceled, when not by the API (its domain was deleted) */
  cancel_reason?: string;
  /** the sender's claim: when it took the email (`sending`), and how many times it has */
  sending_at?: string;
  send_attempts?: number;
  /** a broadcast email's clicked links (ids: shared/emails/status.ts), for unique clicks per link */
  clicked_links?: Set<string>;
  /** TTL (epoch seconds): emailExpiresAt */
  expires_at?: number;
  /** set while `path` attachments are still to fetch: the fetch stage's (./attachment-fetch.ts), not the sender's */
  attachments_pending?: boolean;
  /** the fetch stage's claim: until when it holds the email */
  fetching_until?: string;
  /** the bytes of its attachments as stored: its `content` ones at acceptance, all once the fetch stage stored the `path` ones (the sender's memory budget: ./sender-memory.ts) */
  attachment_bytes?: number;
  /** the bytes of its content object (./content.ts), for the same budget */
  content_bytes?: number;
  /** an email an inbox sent (shared/inboxes/outbound.ts): the thread its Message-ID is filed under once SES gives it one */
  inbox_thread?: { inbox_id: string; thread_id: string };
  /** its share links' version (./share.ts): DELETE /emails/{id}/share adds one, so every earlier link stops opening */
  share_version?: number;
}
