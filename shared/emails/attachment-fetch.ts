/**
 * The fetch stage: an email's `path` attachments (remote URLs) are fetched here, before the email
 * reaches its send queue, so the shared sender only ever sends stored bytes and one project's slow
 * URLs never hold the sender that every project's transactional mail goes through (issue 32, 11:
 * a test key's 40 emails with hanging URLs took another project's send from 249 ms to 58 s).
 *
 * - Which emails: those accepted with a `path` attachment carry `attachments_pending` on their
 *   item until every one is stored. `firstQueueOf` (./send-queue.ts) sends them here instead of to
 *   their send lane, from POST /emails, batches, retries and the due-email dispatcher alike; a
 *   sender that meets one anyway (a message from before) leaves it to the dispatcher.
 * - Fair: messages go in their project's group (an SQS fair queue, as send-bulk), and the worker
 *   takes one email per invocation (functions/workers.ts), so an email's fetch never waits for
 *   another's in the same batch.
 * - Bounded: each URL must connect within PATH_CONNECT_TIMEOUT_MS (3 s), all of an email's fetches
 *   end within PATH_FETCH_TIMEOUT_MS (20 s; the worker has 60), and the bytes are counted as they
 *   arrive against what MAX_ATTACHMENT_BYTES leaves after the email's other attachments. The
 *   webhooks' address guard applies (./attachments.ts `fetchPath`).
 * - Claim: the email is taken for FETCH_LEASE_MS (past the worker's timeout) with a condition, and
 *   its due entry moved past the claim, so a duplicate message or the dispatcher finds it taken;
 *   after a dead worker's claim runs out, the dispatcher brings it here again.
 * - Written once: each attachment's bytes are put under its key (./attachments.ts `attachmentKey`)
 *   once; an attachment already stored (an earlier attempt that died after it) is not fetched again.
 * - Then one conditional update ends the claim, drops `attachments_pending`, records the stored
 *   bytes (`attachment_bytes`, all of its attachments', for the sender's memory budget: ./sender-memory.ts) and gives the
 *   email a send lease; the email is then put on its send lane. An enqueue that fails is the
 *   lease's to repair (the dispatcher), as after acceptance.
 * - A fetch that fails (refused URL, an answer other than 2xx, too big, too slow) ends the email
 *   `failed` with the reason and `email.failed`, as the sender's own failures do. Anything else
 *   (S3, DynamoDB) throws: the message comes back, and after its receives the email's lease still
 *   brings it back through the dispatcher. No email is lost.
 * - Test mode (`livemode: false`) fetches nothing: the URL gets every check a live fetch makes
 *   before it connects (its rules, its host's addresses), and a simulated fetch is recorded: a
 *   short text naming the URL is stored as the attachment's bytes, so the rendered message and the
 *   download show what happened. A URL a live fetch would refuse fails the email the same way.
 * - Scheduled emails are fetched when they become due, not at acceptance: the file that goes is
 *   the URL's at send time (as when the sender fetched it), a canceled email never fetches, and
 *   no bytes wait up to 30 days in the bucket.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, update, updateItem } from '../platform/db/table';
import { logger } from '../platform/log';
import { now as clockNow } from '../platform/clock';
import { putObject } from '../platform/aws/s3';
import {
  AttachmentFetchError,
  attachmentKey,
  checkPath,
  fetchPath,
  MAX_ATTACHMENT_BYTES,
  PATH_FETCH_TIMEOUT_MS,
  storedAttachmentSize,
  type StoredAttachment,
} from './attachments';
import { getEmailContent } from './content';
import { SEND_LEASE_MS, type EmailItem } from './emails';
import { failWaiting, MISSING_CONTENT } from './sender';
import { sendQueueOf } from './send-queue';
import { laneOf } from './send-rate';

/** How long a fetch stage's claim on an email lasts: past the fetch worker's 60 s timeout. */
export const FETCH_LEASE_MS = 90_000;

/** `fetched`: stored and on its send lane; `simulated`: the same for a test-mode email; `failed`: ended with the reason; `skipped`: not this stage's (any more). */
export type FetchOutcome = 'fetched' | 'simulated' | 'failed' | 'skipped';

const WAITING_VALUES = { ':queued': 'queued', ':scheduled': 'scheduled' };
const isWaiting = (email: EmailItem) => email.last_event === 'queued' || email.last_event === 'scheduled';

/** The bytes test mode stores for a `path` it did not fetch (the module comment). */
export const simulatedFetch = (path: string): Buffer =>
  Buffer.from(
    `Test mode: ${path} was not fetched. Emails sent with an es_test_ key never fetch attachments; the URL passed every check a live fetch makes before it connects.\n`,
  );

/** Takes the email for this stage (false: not waiting, not pending, or another fetch holds it). */
async function claim(email: EmailItem, until: string, now: string): Promise<boolean> {
  try {
    await updateItem(
      update(
        keys.email(email.project_id, email.id),
        {
          set: { fetching_until: until, ...keys.emailDue(email.project_id, email.id, until) },
          condition: {
            expression:
              'attachments_pending = :yes AND last_event IN (:queued, :scheduled) AND (attribute_not_exists(fetching_until) OR fetching_until < :now)',
            values: { ':yes': true, ':now': now, ...WAITING_VALUES },
          },
        },
        { tag: 'taken' },
      ),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error, 'taken')) return false;
    throw error;
  }
}

/** Fetches (or, in test mode, checks) and stores each `path` attachment not stored yet; returns the bytes of all the email's attachments. */
async function storePathAttachments(email: EmailItem, listed: StoredAttachment[], deadline: number): Promise<number> {
  let used = listed.reduce((sum, a) => sum + (a.path === undefined ? (a.size ?? 0) : 0), 0);
  for (const a of listed) {
    if (a.path === undefined) continue;
    const stored = await storedAttachmentSize(email.project_id, email.id, a.id);
    if (stored !== undefined) {
      used += stored;
      continue;
    }
    let bytes: Buffer;
    if (email.livemode) {
      bytes = await fetchPath(a.path, MAX_ATTACHMENT_BYTES - used, deadline);
    } else {
      await checkPath(a.path);
      bytes = simulatedFetch(a.path);
    }
    used += bytes.length;
    await putObject(attachmentKey(email.project_id, email.id, a.id), bytes, a.content_type, 'content');
  }
  return used;
}

/** The fetch stage for one email (the module comment): called by the attachment-fetch worker for each message. */
export async function fetchEmailAttachments(projectId: string, emailId: string): Promise<FetchOutcome> {
  const key = keys.email(projectId, emailId);
  const email = (await getItem(key)) as EmailItem | undefined;
  if (!email || !email.attachments_pending || !isWaiting(email)) return 'skipped';
  if (email.last_event === 'scheduled' && email.scheduled_at && Date.parse(email.scheduled_at) > clockNow())
    return 'skipped'; // rescheduled later: fetched when due
  const start = clockNow();
  const fetchDeadline = Date.now() + PATH_FETCH_TIMEOUT_MS; // machine time: the fetch's I/O deadline
  const until = new Date(start + FETCH_LEASE_MS).toISOString();
  if (!(await claim(email, until, new Date(start).toISOString()))) return 'skipped';
  const caller: Caller = { projectId, livemode: email.livemode, permission: 'full_access' };

  const content = await getEmailContent(projectId, emailId);
  const fail = async (reason: string): Promise<FetchOutcome> =>
    (await failWaiting(caller, email, reason)) === 'failed' ? 'failed' : 'skipped';
  if (!content) return fail(MISSING_CONTENT);
  const listed = (content.attachments ?? []).filter((a): a is StoredAttachment => 'id' in a);
  let bytes: number;
  try {
    bytes = await storePathAttachments(email, listed, fetchDeadline);
  } catch (error) {
    if (error instanceof AttachmentFetchError) return fail(`not sent: ${error.message}`);
    throw error;
  }

  // stored: the claim ends, the email waits for the sender under a send lease, and goes on its lane
  const leaseEnd = new Date(clockNow() + SEND_LEASE_MS).toISOString();
  try {
    await updateItem(
      update(
        key,
        {
          set: { attachment_bytes: bytes, ...keys.emailDue(projectId, emailId, leaseEnd) },
          remove: ['attachments_pending', 'fetching_until'],
          condition: {
            expression: 'fetching_until = :claim AND last_event IN (:queued, :scheduled)',
            values: { ':claim': until, ...WAITING_VALUES },
          },
        },
        { tag: 'claim lost' },
      ),
    );
  } catch (error) {
    if (isConditionFailed(error, 'claim lost')) return 'skipped'; // canceled, or its domain deleted, meanwhile
    throw error;
  }
  await sendQueueOf(projectId, laneOf(email))
    .enqueue([{ project_id: projectId, email_id: emailId }])
    .catch((error) =>
      logger.warn('enqueue after the fetch failed; the due-email dispatcher will send it', {
        email_id: emailId,
        error,
      }),
    );
  return email.livemode ? 'fetched' : 'simulated';
}
