/**
 * The broadcast fan-out queue: one message per page of a broadcast's segment still to do,
 * `{project_id, broadcast_id, after}` (`after`: the last contact id of the page before, '' for the
 * first). The broadcast's `cursor` is the truth: a message whose `after` is not the cursor is
 * stale (a duplicate, or a page already done) and is dropped, so a redelivered or duplicated
 * message never makes a second chain of pages.
 */
import { queue } from '../platform/aws/queues';

export interface FanOutMessage {
  project_id: string;
  broadcast_id: string;
  after: string;
}

/** `enqueue` throws when SQS does not take every message; the due-broadcast dispatcher resumes what was not sent. */
export const fanOutQueue = /* @__PURE__ */ queue<FanOutMessage>('broadcast-fanout', 'throw');
