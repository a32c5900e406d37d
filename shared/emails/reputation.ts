/**
 * The reputation guard: ours, on top of SES's. Every project shares the deployment's SES account,
 * which SES reviews at about 5% bounces or 0.1% complaints; one project sending to a bad list must
 * not get everyone's mail paused. So each project's live mail is counted per UTC hour
 * (keys.reputationBucket: sends by the sender, permanent bounces and complaints by the
 * email-status worker, each in the transaction that records it), and after every bounce or
 * complaint the last 24 hours are added up: past REPUTATION_BOUNCE_RATE (4%) or
 * REPUTATION_COMPLAINT_RATE (0.08%), with at least REPUTATION_MIN_SENDS (200) sends in the window
 * so that one bad email cannot trip it, the project's sending is paused. The complaint rate counts
 * only from REPUTATION_MIN_COMPLAINTS (3) complaints in the window: below about 1,250 sends one
 * complaint is already past the rate, and a single spam report must not stop a small project
 * (./reputation-thresholds.ts says why 3).
 *
 * Paused: POST /emails, /emails/batch and broadcast sends answer 403 `sending_paused` (the rates in
 * the message); mail already accepted stays queued: the sender holds it (its due time moved on by
 * PAUSED_HOLD_SECONDS, 300, without a status change) and the due-email dispatcher brings it back,
 * so it is neither sent nor lost. An operator resumes it (`npm run project -- resume`), which
 * clears the pause; the held mail goes at its next turn. Pausing and resuming each write a
 * platform event (`project.sending_paused`, `project.sending_resumed`) in the same transaction,
 * and the pause counts the `ProjectSendingPaused` metric (an alarm on AWS).
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { isConditionFailed, queryPage, transact, update, type WriteAction } from '../platform/db/table';
import { ApiError } from '../platform/errors';
import { eventWrite } from '../events/events';
import { logger } from '../platform/log';
import { countMetric } from '../platform/metrics';
import { nowDate, nowIso } from '../platform/clock';
import { guardThresholds } from './reputation-thresholds';
import type { SendingPause } from '../project/settings';

/** Counts kept a day past the longest window read: the compliance check's 7 days (shared/deliverability/compliance.ts; DynamoDB's TTL). */
const BUCKET_TTL_SECONDS = 8 * 86_400;
const WINDOW_HOURS = 24;

export interface ReputationCounts {
  sent: number;
  bounced: number;
  complained: number;
}

export interface Reputation extends ReputationCounts {
  bounce_rate: number;
  complaint_rate: number;
  window: '24h';
}

const hourOf = (date: Date) => date.toISOString().slice(0, 13);

/** Adds `counts` of one email's project to the hour of `now` (a write for the transaction that records them). */
export function reputationWrite(
  projectId: string,
  emailId: string,
  counts: Partial<ReputationCounts>,
  now = nowDate(),
): WriteAction {
  return update(keys.reputationBucket(projectId, emailId, hourOf(now)), {
    add: counts as Record<string, number>,
    set: { expires_at: Math.floor(now.getTime() / 1000) + BUCKET_TTL_SECONDS },
  });
}

/** The project's counts and rates over the last 24 hours: the guard's window. */
export async function reputationOf(projectId: string, now = nowDate()): Promise<Reputation> {
  return { ...(await reputationOver(projectId, WINDOW_HOURS, now)), window: '24h' };
}

/** The project's counts and rates over the last `hours`, at most 7 days (the buckets' TTL; its shards, read side by side). */
export async function reputationOver(
  projectId: string,
  hours: number,
  now = nowDate(),
): Promise<Omit<Reputation, 'window'>> {
  const from = keys.reputationHourSk(hourOf(new Date(now.getTime() - (hours - 1) * 3_600_000)));
  // newest first: at most one bucket per shard and hour, so a page of `hours` per shard holds the window
  const { items } = await queryPage(keys.reputationBuckets(projectId), {
    limit: keys.COLLECTION_SHARDS * hours,
  });
  const counts: ReputationCounts = { sent: 0, bounced: 0, complained: 0 };
  for (const item of items) {
    if (String(item.SK) < from) continue;
    counts.sent += Number(item.sent ?? 0);
    counts.bounced += Number(item.bounced ?? 0);
    counts.complained += Number(item.complained ?? 0);
  }
  const rate = (n: number) => (counts.sent ? n / counts.sent : 0);
  return { ...counts, bounce_rate: rate(counts.bounced), complaint_rate: rate(counts.complained) };
}

const percent = (rate: number) => `${(rate * 100).toFixed(2)}%`;

/** Why the project's reputation calls for a pause; undefined when it does not (yet). */
export function pauseReason(reputation: Reputation, thresholds = guardThresholds()): string | undefined {
  if (reputation.sent < thresholds.minSends) return undefined;
  const over: string[] = [];
  if (reputation.bounce_rate >= thresholds.bounceRate)
    over.push(`bounce rate ${percent(reputation.bounce_rate)} (the limit is ${percent(thresholds.bounceRate)})`);
  if (reputation.complained >= thresholds.minComplaints && reputation.complaint_rate >= thresholds.complaintRate)
    over.push(
      `complaint rate ${percent(reputation.complaint_rate)} (the limit is ${percent(thresholds.complaintRate)})`,
    );
  return over.length ? `${over.join(' and ')} over the last 24 hours, ${reputation.sent} emails sent` : undefined;
}

const projectCaller = (projectId: string): Caller => ({ projectId, livemode: true, permission: 'full_access' });

/** After a bounce or complaint of the project: pauses its sending when its reputation calls for it (once). */
export async function guardReputation(projectId: string, now = nowDate()): Promise<SendingPause | undefined> {
  const reputation = await reputationOf(projectId, now);
  const reason = pauseReason(reputation);
  if (!reason) return undefined;
  const pause: SendingPause = {
    reason,
    since: now.toISOString(),
    bounce_rate: reputation.bounce_rate,
    complaint_rate: reputation.complaint_rate,
  };
  try {
    await transact([
      update(
        keys.project(projectId),
        {
          set: { sending_paused: pause },
          condition: { expression: 'attribute_exists(PK) AND attribute_not_exists(sending_paused)' },
        },
        { tag: 'paused already' },
      ),
      eventWrite(projectCaller(projectId), 'project.sending_paused', {
        object: 'project',
        id: projectId,
        sending: { status: 'paused', ...pause },
      }),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'paused already')) return undefined;
    throw error;
  }
  logger.warn('project sending paused by the reputation guard', { project_id: projectId, reason });
  countMetric('ProjectSendingPaused');
  return pause;
}

/** The operator's resume: clears the pause (409 when the project is not paused). */
export async function resumeSending(projectId: string): Promise<void> {
  await transact([
    update(
      keys.project(projectId),
      { remove: ['sending_paused'], condition: { expression: 'attribute_exists(sending_paused)' } },
      () => new Error(`project ${projectId} is not paused`),
    ),
    eventWrite(projectCaller(projectId), 'project.sending_resumed', {
      object: 'project',
      id: projectId,
      sending: { status: 'enabled', reason: null, since: nowIso() },
    }),
  ]);
}

/** 403 for a send of a paused project. */
export const sendingPaused = (pause: SendingPause): ApiError => {
  const message = `Sending is paused for this project since ${pause.since}: ${pause.reason}. An operator resumes it once the cause is fixed`;
  return new ApiError(403, 'application_error', message, [{ code: 'sending_paused', message, path: '' }]);
};
