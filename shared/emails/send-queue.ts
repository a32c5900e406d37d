/**
 * The send queue: one message per email to send, `{project_id, email_id}`. The email item is the
 * truth; a message only says "look at this email". Losing one is safe (the due-email dispatcher
 * re-enqueues emails that wait too long) and so is a duplicate (the sender claims each email
 * with a condition before sending).
 */
import { queue } from '../platform/aws/queues';

export interface SendMessage {
  project_id: string;
  email_id: string;
}

/** `enqueue` throws when SQS does not take every message; callers leave those emails to the due-email dispatcher. */
export const sendQueue = queue<SendMessage>('send', 'throw');
