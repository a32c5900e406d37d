/**
 * The due-email dispatcher under a backlog (issue 17): BENCH_DUE_EMAILS (10,000) emails due in the
 * same minute, in DynamoDB Local, taken by the scheduled handler (functions/workers/dispatch-due-emails.ts)
 * through the local Lambda emulation (its needs, its 30 s timeout, and the deadline it takes from
 * the remaining time: shared/emails/due.ts), two runs at once and then one after another until a run
 * finds nothing left, as the schedule would start them. Nothing consumes the send queues meanwhile;
 * afterwards every message is received: emails enqueued per second (from the first run's start to
 * the last run's end), the runs and how many stopped at their bound, the emails enqueued twice and
 * those never enqueued, and the emails on the wrong lane (a broadcast's go to the bulk one).
 * Beside it, the raw BatchWriteItem rate of the seeding in the same DynamoDB Local.
 *
 * The service's clock stands still for the run (shared/platform/clock.ts): a lease lasts 2 minutes of
 * it, so no email falls due again however long the runs take; their bounds are machine time. The gate
 * proves the same claim at 2,000 emails with small explicit bounds (test/integration/due-dispatcher.test.ts).
 *
 * Run alone: `npx tsx bench/due-backlog.ts` (BENCH_DUE_EMAILS to change the size).
 */
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { invoke, workerFunction } from '../local/lambda/invocation';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import type { DueRun } from '../shared/emails/due';
import * as keys from '../shared/platform/db/keys';
import { newId } from '../shared/platform/ids';
import { receiveAndDeleteAll } from '../test/support/sqs';
import { writeRaw } from './raw-write';
import { startWorkerBackends } from './worker-backends';

/** `count` queued emails of three projects, all due at `dueAt`, every tenth a broadcast's: the items as the table holds them. */
export function dueEmailItems(count: number, dueAt: string) {
  const projects = [newId(), newId(), newId()];
  return Array.from({ length: count }, (_, n) => {
    const projectId = projects[n % projects.length];
    const id = newId();
    return {
      ...keys.email(projectId, id),
      ...keys.emailDue(projectId, id, dueAt),
      type: 'email',
      project_id: projectId,
      id,
      last_event: 'queued',
      livemode: false,
      ...(n % 10 === 0 ? { broadcast_id: 'b-1' } : {}),
    };
  });
}

/** Every message on a send queue, received and deleted by 4 receivers side by side: the email ids, with repeats. */
export async function receiveAll(sqs: SQSClient, queueUrl: string): Promise<string[]> {
  const bodies = await receiveAndDeleteAll(sqs, queueUrl, { receivers: 4, visibilityTimeout: 300 });
  return bodies.map((body) => (JSON.parse(body) as { email_id: string }).email_id);
}

export interface DueBacklogResult {
  emails: number;
  /** items per second written by BatchWriteItem while seeding */
  rawItemsPerSecond: number;
  runs: number;
  /** runs that stopped at their deadline or maximum with due emails left */
  stoppedEarly: number;
  enqueued: number;
  seconds: number;
  enqueuedPerSecond: number;
  /** emails received more than once */
  duplicates: number;
  /** emails never received */
  lost: number;
  /** emails received on the other lane than theirs */
  misrouted: number;
}

export async function benchDueBacklog(
  emails = Number(process.env.BENCH_DUE_EMAILS ?? 10_000),
): Promise<DueBacklogResult> {
  const { sqs, writer, admin, stop } = await startWorkerBackends();
  try {
    const queueUrl = async (name: string) => (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
    const send = await queueUrl('send');
    const bulk = await queueUrl('send-bulk');
    Object.assign(process.env, { QUEUE_URL_SEND: send, QUEUE_URL_SEND_BULK: bulk });
    const { setClockSource } = await import('../shared/platform/clock');
    const clockTime = Date.now();
    setClockSource(() => clockTime);

    const items = dueEmailItems(emails, new Date(clockTime - 30_000).toISOString());
    const seedSeconds = await writeRaw(writer, LOCAL_TABLE_NAME, items);

    const { handler } = await import('../functions/workers/dispatch-due-emails');
    const scheduledRun = () => invoke(workerFunction('dispatch-due-emails'), handler as never, {}) as Promise<DueRun>;
    const started = process.hrtime.bigint();
    const runs = await Promise.all([scheduledRun(), scheduledRun()]);
    while (runs.at(-1)!.stoppedEarly || runs.at(-1)!.enqueued > 0) runs.push(await scheduledRun());
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;

    const transactional = await receiveAll(sqs, send);
    const bulkIds = await receiveAll(sqs, bulk);
    const seen = [...transactional, ...bulkIds];
    const received = new Set(seen);
    const ofBroadcast = new Set(items.filter((item) => item.broadcast_id).map((item) => item.id));
    const enqueued = runs.reduce((sum, run) => sum + run.enqueued, 0);
    return {
      emails,
      rawItemsPerSecond: emails / seedSeconds,
      runs: runs.length,
      stoppedEarly: runs.filter((run) => run.stoppedEarly).length,
      enqueued,
      seconds,
      enqueuedPerSecond: enqueued / seconds,
      duplicates: seen.length - received.size,
      lost: items.filter((item) => !received.has(item.id)).length,
      misrouted:
        transactional.filter((id) => ofBroadcast.has(id)).length + bulkIds.filter((id) => !ofBroadcast.has(id)).length,
    };
  } finally {
    admin.destroy();
    await stop();
  }
}

/** Every email enqueued once, on its lane. */
export const dueBacklogMet = (r: DueBacklogResult): boolean =>
  r.duplicates === 0 && r.lost === 0 && r.misrouted === 0 && r.enqueued === r.emails;

export function formatDueBacklog(r: DueBacklogResult): string {
  return [
    `${r.emails.toLocaleString('en')} emails due in the same minute (every tenth a broadcast's), taken by the scheduled handler through the local Lambda emulation: two runs at once, then one after another until a run found nothing.\n`,
    '| run | rate |',
    '|---|---:|',
    `| raw DynamoDB Local BatchWriteItem (seeding the emails, 16 in flight) | ${r.rawItemsPerSecond.toFixed(0)} items/s |`,
    `| due-email dispatcher (a conditional lease update per email, then the page's messages) | ${r.enqueuedPerSecond.toFixed(0)} emails enqueued/s |`,
    '',
    `${r.runs} runs in ${r.seconds.toFixed(1)} s, ${r.stoppedEarly} of them stopped at their bound (the handler's deadline: its remaining time less 5 s) with due emails left; ` +
      `${r.enqueued.toLocaleString('en')} enqueued; ${r.duplicates} enqueued twice, ${r.lost} never, ${r.misrouted} on the wrong lane ` +
      `(${dueBacklogMet(r) ? 'MET' : 'NOT MET'}: every email once, on its lane). Measured ${new Date().toISOString().slice(0, 10)}; run alone: \`npx tsx bench/due-backlog.ts\`.`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchDueBacklog().then(
    (result) => {
      console.log('## The due-email dispatcher under a backlog\n');
      console.log(formatDueBacklog(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
