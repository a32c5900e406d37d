/**
 * The send queues, one per lane: one message per email to send, `{project_id, email_id}`. The
 * email item is the truth; a message only says "look at this email". Losing one is safe (the
 * due-email dispatcher re-enqueues emails that wait too long) and so is a duplicate (the sender
 * claims each email with a condition before sending).
 *
 * Lanes, so transactional mail never waits behind bulk mail: `send` takes POST /emails, batches
 * and retries; `send-bulk` takes broadcast emails, each message in its project's group (an SQS
 * fair queue: one project's million-recipient broadcast does not hold up another project's). The
 * same sender consumes both, and bulk sends never take the send-rate slots kept for
 * transactional mail (./send-rate.ts).
 *
 * Test mode (a project's `_test` twin) has a lane of its own, `send-test`: the same sender code,
 * deployed as a function that alone holds what simulating needs (PutObject of the rendered message,
 * SendMessage to the SES feedback and inbound queues, the inbound bucket), so the live senders, which
 * fetch nothing but talk to SES, carry none of it. Every enqueue picks the queue by the email's
 * project (`sendQueueOf`).
 *
 * An email with `path` attachments goes first to the attachment-fetch queue (./attachment-fetch.ts:
 * `firstQueueOf`), grouped by project as well, and reaches its send queue only once their bytes
 * are stored: the sender never fetches.
 */
import { isTestProject } from '../project/test-mode';
import { queue } from '../platform/aws/queues';
import type { SendLane } from './send-rate';

export interface SendMessage {
  project_id: string;
  email_id: string;
}

/** `enqueue` throws when SQS does not take every message; callers leave those emails to the due-email dispatcher. */
export const sendQueue = /* @__PURE__ */ queue<SendMessage>('send', 'throw');
/** Broadcast emails, grouped by project (fair between projects). */
export const bulkSendQueue = /* @__PURE__ */ queue<SendMessage>('send-bulk', 'throw', {
  group: (message) => message.project_id,
});

/** Test mode's emails, both lanes (grouped by project, as bulk): the test-sender's. */
export const testSendQueue = /* @__PURE__ */ queue<SendMessage>('send-test', 'throw', {
  group: (message) => message.project_id,
});

/** The send queue of an email of `projectId` in `lane`: test mode's own, else the lane's. */
export const sendQueueOf = (projectId: string, lane: SendLane) =>
  isTestProject(projectId) ? testSendQueue : lane === 'bulk' ? bulkSendQueue : sendQueue;

/** Emails whose `path` attachments are still to fetch, grouped by project (an SQS fair queue): ./attachment-fetch.ts. */
export const attachmentFetchQueue = /* @__PURE__ */ queue<SendMessage>('attachment-fetch', 'throw', {
  group: (message) => message.project_id,
});

/** The queue a waiting email goes to next: the fetch stage while it has `path` attachments not yet stored (`attachments_pending`), else its send lane. */
// (a broadcast email is bulk: ./send-rate.ts laneOf, not imported, so the API's bundles carry no SES client)
export const firstQueueOf = (email: {
  project_id: string;
  attachments_pending?: boolean;
  broadcast_id?: string | null;
}) =>
  email.attachments_pending
    ? attachmentFetchQueue
    : sendQueueOf(email.project_id, email.broadcast_id ? 'bulk' : 'transactional');
