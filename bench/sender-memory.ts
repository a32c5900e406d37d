/**
 * The sender's peak memory for a batch of 10 emails at the largest size the API takes (issue 32,
 * finding 3), next to the memory the sender is deployed with (functions/needs.ts `workerMemoryMb`).
 *
 * Each email carries what one email may carry in attachments, MAX_ATTACHMENT_BYTES (28 MiB: four
 * `path` files of 7 MiB of random bytes, served over loopback HTTP), so its SES message is close to
 * SES's 40 MB; the ten emails' html and text (about 0.22 MiB each) fill the rest of one POST
 * /emails/batch (5 MiB at most, shared/platform/http/pipeline.ts MAX_BODY_BYTES). Ten POST /emails
 * of 4.8 MiB of html and text each would be larger still, but such an email with 28 MiB of
 * attachments is over SES's 40 MB (the local SES refuses it: MessageRejected, the email fails).
 *
 * The emails are accepted by the real API of a local runtime started in this process, scheduled an
 * hour ahead and then moved (PATCH) to a moment later, so that no queue message exists for them.
 * Once due, each goes through the fetch stage first, as the attachment-fetch worker takes it
 * (shared/emails/attachment-fetch.ts `fetchEmailAttachments`, which the worker calls per message;
 * called here directly for its outcome, which the worker's batch answer does not show): its four
 * URLs fetched and stored, `attachments_pending` dropped, `attachment_bytes` recorded (what the
 * sender's memory budget reads: shared/emails/sender-memory.ts). The stage's messages to the send
 * lane go, for the fetch only, to a queue of this benchmark's that no poller reads, so that the
 * runtime's own sender in this process does not send them; those ten messages are then handed,
 * as one SQS event of 10 records (the sender's batch at SES's default 14/s: functions/workers.ts
 * senderScaling), to the sender's real handler in a process of its own, invoked as the runtime
 * invokes it (local/lambda/invocation.ts: its needs, its memory check) against this process's
 * stand-ins. (Before the fetch stage the sender fetched the URLs itself; it now leaves an email
 * with `path` attachments not stored to the stage and sends nothing, so without the stage first
 * this measured no send.) A process of its own, because in the runtime's process the stand-ins' memory (the
 * local SES parses and keeps every message it takes) would count for the sender too. The figures
 * are the local check's (local/memory-watch.ts: held heap and external growth, plus the
 * baseline of a fresh Lambda process), the process's RSS beside them, and the baseline measured:
 * node with the sender's bundle loaded.
 *
 * The sender's memory budget (shared/emails/sender-memory.ts) reserves each email's footprint (4x
 * its content and 4x its attachments' bytes, here about 114 MB) of 160 MB per instance before it
 * reads anything: two of these never fit together, so the ten go one at a time, each waiting at
 * most the invocation's slot wait (20 s); one that finds no room in that time comes back (a batch
 * item failure, nothing written), and is counted as such here.
 *
 * Run alone: `BENCH_ONLY=sender npm run bench` (replaces its section of bench/RESULTS.md), or
 * `npx tsx bench/sender-memory.ts` (prints only).
 */
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import { execSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { workerMemoryMb } from '../functions/needs';
import { queueUrlVariable, workerFunctionName, workers } from '../functions/workers';
import { bundleOptions } from '../lib/bundling';
import { collectGarbage, LAMBDA_BASELINE_MB, largestMeasures, setMemoryLog } from '../local/memory-watch';
import type { FetchOutcome } from '../shared/emails/attachment-fetch';
import { MAX_ATTACHMENT_BYTES } from '../shared/emails/attachments';
import type { EmailItem } from '../shared/emails/emails';
import type { LocalRuntime } from '../local/runtime';
import { startBenchApi } from './local-api';

const MiB = 2 ** 20;
const KEY = `es_live_${'M'.repeat(32)}`;
const EMAILS = 10;
/** html and text of each email: ten emails' bodies fill one request of at most 5 MiB (shared/platform/http/pipeline.ts MAX_BODY_BYTES) */
const BODY_BYTES = Math.floor(0.22 * MiB);
const ATTACHMENTS = 4;

export interface SenderMemoryResult {
  /** the commit measured, and whether the sender's code had changes not committed yet */
  commit: string;
  senderChanged: boolean;
  emails: number;
  htmlBytes: number;
  textBytes: number;
  attachmentBytes: number;
  declaredMb: number;
  baselineMb: number;
  /** rss of a fresh node process that loaded the sender's bundle */
  freshProcessMb: number;
  /** the sender's invocation, in a process of its own */
  sender: SenderChildResult;
  /** the fetch stage's outcome for each email (all `fetched` for a real send) */
  fetched: Record<string, number>;
  /** what the sender's memory budget reserves for each email (the largest of the ten), and the budget */
  footprintMb: number;
  budgetMb: number;
  /** functions the local runtime flagged as over their memory during the run (the sender's own process included) */
  flagged: string[];
  outcomes: Record<string, number>;
  seconds: number;
}

/** What the sender's process measured. */
export interface SenderChildResult {
  records: number;
  /** emails the invocation handed back (batch item failures: no room in the memory budget, or no send slot, in its time) */
  cameBack: string[];
  /** the memory check's figures (local/memory-watch.ts) */
  growthMb: number;
  estimatedPeakMb: number;
  over: boolean;
  /** the process's RSS before the invocation and its peak RSS (node with tsx and the handler's source loaded) */
  rssBeforeMb: number;
  peakRssMb: number;
  flagged: string[];
}

/** rss of a fresh node process with the sender's bundle imported (Lambda's init, without its runtime client). */
async function freshProcessMb(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'email-service-bench-sender-'));
  try {
    const root = join(__dirname, '..');
    const sender = workers.find((w) => w.name === 'sender')!;
    const outfile = join(dir, 'sender.mjs');
    const { entryPoints, ...options } = bundleOptions(root, join(root, 'functions', `${sender.handler}.ts`));
    await build({ ...options, entryPoints, outfile });
    const child = spawnSync(
      process.execPath,
      ['-e', 'import(process.argv[1]).then(()=>process.stdout.write(String(process.memoryUsage().rss)))', outfile],
      {
        encoding: 'utf8',
        env: { ...process.env, TABLE_NAME: 'bench', AWS_REGION: 'ap-southeast-2' },
      },
    );
    if (child.status !== 0) throw new Error(`loading the sender's bundle failed: ${child.stderr.slice(-1000)}`);
    return Number(child.stdout) / MiB;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchSenderMemory(): Promise<SenderMemoryResult> {
  const started = Date.now();
  const freshMb = await freshProcessMb();
  process.env.SEND_RATE_PER_SECOND = '14'; // SES's default production rate: the sender's batch of 10 (functions/workers.ts senderScaling)
  const attachment = randomBytes(MAX_ATTACHMENT_BYTES / ATTACHMENTS);
  const files: Server = createServer((_, response) =>
    response
      .writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(attachment.length) })
      .end(attachment),
  );
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  const flaggedLines: string[] = [];
  setMemoryLog((line) => flaggedLines.push(line));
  // the due-email dispatcher never runs on its own here: the batch is handed to the sender below, not through the queue
  const { runtime, call, stop } = await startBenchApi('sender-memory', KEY, {
    LOCAL_SCHEDULE_INTERVAL_SECONDS: '3600',
  });
  try {
    const domain = await call('POST', '/domains', { name: 'memory.example.com' });
    await call('POST', `/domains/${domain.id}/verify`);
    const html = `<p>${'large '.repeat(Math.floor((BODY_BYTES - 7) / 6))}</p>`;
    const text = 'large '.repeat(Math.floor(BODY_BYTES / 6));
    const later = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const accepted = await call(
      'POST',
      '/emails/batch',
      Array.from({ length: EMAILS }, (_, i) => ({
        from: 'bench@memory.example.com',
        to: `reader${i}@example.com`,
        subject: `sender memory ${i}`,
        html,
        text,
        scheduled_at: later,
        attachments: Array.from({ length: ATTACHMENTS }, (_, j) => ({
          path: `${filesUrl}/part-${i}-${j}.pdf`,
          filename: `part-${j}.pdf`,
        })),
      })),
    );
    const ids = (accepted.data as { id: string }[]).map((e) => e.id);
    // due in a moment: the sender takes a scheduled email once its time has come
    const due = Date.now() + 1500;
    for (const id of ids) await call('PATCH', `/emails/${id}`, { scheduled_at: new Date(due).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 200));
    const { fetched, messages } = await runFetchStage(runtime, ids);
    // imported once the runtime has set the stand-ins' environment (and never by the sender's process)
    const [{ SENDER_MEMORY_BUDGET_BYTES, sendFootprint }, keys, { getItem }] = await Promise.all([
      import('../shared/emails/sender-memory'),
      import('../shared/platform/db/keys'),
      import('../shared/platform/db/table'),
    ]);
    const footprints = await Promise.all(
      ids.map(async (id) => sendFootprint((await getItem(keys.email(runtime.projectId, id))) as EmailItem)),
    );
    const sender = await runSenderProcess(messages);
    const sentIds = ids.filter((id) => !sender.cameBack.includes(id));
    const final = new Set(['sent', 'delivered', 'failed', 'bounced', 'suppressed', 'canceled']);
    let outcomes: Record<string, number> = {};
    for (const deadline = Date.now() + 2 * 60_000; Date.now() < deadline; ) {
      const listed = (await call('GET', `/emails?limit=${EMAILS}`)).data as { id: string; last_event: string }[];
      const ours = listed.filter((e) => ids.includes(e.id));
      outcomes = {};
      for (const e of ours) outcomes[e.last_event] = (outcomes[e.last_event] ?? 0) + 1;
      // an email the invocation handed back waits (its message would come back on SQS): only the others end
      if (ours.length === EMAILS && ours.every((e) => final.has(e.last_event) || !sentIds.includes(e.id))) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return {
      commit: execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim(),
      senderChanged:
        execSync('git status --porcelain shared/emails functions/workers', { encoding: 'utf8' }).trim() !== '',
      emails: EMAILS,
      htmlBytes: html.length,
      textBytes: text.length,
      attachmentBytes: attachment.length * ATTACHMENTS,
      declaredMb: workerMemoryMb(workers.find((w) => w.name === 'sender')!),
      baselineMb: LAMBDA_BASELINE_MB,
      freshProcessMb: freshMb,
      sender,
      fetched,
      footprintMb: Math.max(...footprints) / MiB,
      budgetMb: SENDER_MEMORY_BUDGET_BYTES / MiB,
      flagged: [...flaggedLines.map((line) => String(JSON.parse(line).function)), ...sender.flagged],
      outcomes,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await stop();
    await new Promise((resolve) => files.close(resolve));
  }
}

/**
 * The fetch stage for each email, one after another (the attachment-fetch worker takes one email
 * per invocation): `fetchEmailAttachments`, which the worker calls for each message, so that each
 * email's outcome is seen (the worker answers only a batch's failures; an email the stage fails or
 * skips would not be sent). The stage ends by putting the email's message on its send lane; for
 * these calls that queue's URL names a queue of this benchmark's that no poller reads (the
 * runtime in this process would otherwise send the emails itself), from which the ten messages
 * are then taken: the sender's event is what the stage enqueued.
 */
async function runFetchStage(
  runtime: LocalRuntime,
  emailIds: string[],
): Promise<{ fetched: Record<string, number>; messages: Message[] }> {
  const { fetchEmailAttachments } = await import('../shared/emails/attachment-fetch');
  const sqs = new SQSClient({
    endpoint: runtime.sqsEndpoint,
    region: process.env.AWS_REGION ?? 'ap-southeast-2',
    credentials: runtime.credentials,
  });
  const held = (
    await sqs.send(
      new CreateQueueCommand({ QueueName: 'bench-sender-memory-held', Attributes: { VisibilityTimeout: '600' } }),
    )
  ).QueueUrl!;
  const variable = queueUrlVariable('send');
  const sendUrl = process.env[variable];
  const fetched: Record<string, number> = {};
  process.env[variable] = held;
  try {
    for (const id of emailIds) {
      const outcome: FetchOutcome = await fetchEmailAttachments(runtime.projectId, id);
      fetched[outcome] = (fetched[outcome] ?? 0) + 1;
    }
  } finally {
    process.env[variable] = sendUrl;
  }
  if (fetched.fetched !== emailIds.length)
    throw new Error(`the fetch stage did not fetch every email: ${JSON.stringify(fetched)}`);
  const messages: Message[] = [];
  for (const deadline = Date.now() + 30_000; messages.length < emailIds.length && Date.now() < deadline; ) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: held,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        AttributeNames: ['All'],
      }),
    );
    messages.push(...(out.Messages ?? []));
  }
  if (messages.length !== emailIds.length)
    throw new Error(`the fetch stage enqueued ${messages.length} send messages, not ${emailIds.length}`);
  await sqs.send(
    new DeleteMessageBatchCommand({
      QueueUrl: held,
      Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
    }),
  );
  sqs.destroy();
  return { fetched, messages };
}

/**
 * The sender's handler in a process of its own (this file with `--sender-child`), invoked as the
 * runtime invokes it (local/lambda/invocation.ts: its needs, its memory check) with one SQS
 * event of the ten emails' messages, against this process's stand-ins (their endpoints and
 * credentials are in the environment it inherits): the stand-ins' memory is not in its figures.
 */
async function runSenderProcess(messages: Message[]): Promise<SenderChildResult> {
  const sent = messages.map((m) => ({
    messageId: m.MessageId!,
    receiptHandle: m.ReceiptHandle!,
    body: m.Body!,
    attributes: m.Attributes ?? {},
  }));
  // spawn, not spawnSync: the stand-ins it calls run on this process's event loop
  const child = spawn(process.execPath, ['--import', 'tsx', __filename, '--sender-child', JSON.stringify(sent)], {
    cwd: join(__dirname, '..'),
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = stdout.split('\n').find((l) => l.startsWith('{"records"'));
  if (status !== 0 || !line) throw new Error(`the sender's process failed (exit ${status}):\n${stderr.slice(-3000)}`);
  return JSON.parse(line) as SenderChildResult;
}

/** A message the fetch stage enqueued, as the child gets it. */
interface HeldMessage {
  messageId: string;
  receiptHandle: string;
  body: string;
  attributes: Record<string, string>;
}

async function senderChild(messages: HeldMessage[]): Promise<SenderChildResult> {
  const { invoke, workerFunction } = await import('../local/lambda/invocation');
  const sender = workers.find((w) => w.name === 'sender')!;
  const { handler } = (await import(`../functions/${sender.handler}`)) as {
    handler: (event: unknown, context: unknown) => Promise<unknown>;
  };
  const flagged: string[] = [];
  setMemoryLog((line) => flagged.push(String(JSON.parse(line).function)));
  const now = String(Date.now());
  const Records = messages.map((m) => ({
    messageId: m.messageId,
    receiptHandle: m.receiptHandle,
    body: m.body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: now,
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: now,
      ...m.attributes,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:ap-southeast-2:000000000000:send',
    awsRegion: 'ap-southeast-2',
  }));
  collectGarbage();
  const rssBeforeMb = process.memoryUsage().rss / MiB;
  const answer = (await invoke(workerFunction('sender'), handler as never, { Records })) as
    | { batchItemFailures?: { itemIdentifier: string }[] }
    | undefined;
  const measure = largestMeasures().find((m) => m.function === workerFunctionName('sender'))!;
  const back = new Set((answer?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
  return {
    records: Records.length,
    cameBack: messages
      .filter((m) => back.has(m.messageId))
      .map((m) => (JSON.parse(m.body) as { email_id: string }).email_id),
    growthMb: measure.growthMb,
    estimatedPeakMb: measure.estimatedPeakMb,
    over: measure.over,
    rssBeforeMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    flagged,
  };
}

export function formatSenderMemory(r: SenderMemoryResult): string {
  const c = r.sender;
  return [
    `Commit ${r.commit}${r.senderChanged ? ' with uncommitted changes to the sender' : ''}. ${r.emails} emails, each ${(r.htmlBytes / MiB).toFixed(2)} MiB of html, ${(r.textBytes / MiB).toFixed(2)} MiB of text and ${(r.attachmentBytes / MiB).toFixed(0)} MiB of \`path\` attachments, fetched and stored by the fetch stage first (${JSON.stringify(r.fetched)}), then one SQS event of the ${c.records} messages it enqueued to the sender in a process of its own; outcomes ${JSON.stringify(r.outcomes)}${c.cameBack.length ? `, ${c.cameBack.length} handed back by the invocation (no room in time)` : ', none handed back'}. The sender's memory budget reserves ${r.footprintMb.toFixed(0)} MB for each of ${r.budgetMb.toFixed(0)} MB (shared/emails/sender-memory.ts): ${2 * r.footprintMb > r.budgetMb ? 'they go one at a time' : 'two or more fit together'}.`,
    '',
    '| measure | MB |',
    '|---|---:|',
    `| the sender's declared memory (deployed MemorySize) | ${r.declaredMb} |`,
    `| a fresh node process with the sender's bundle loaded (the check adds ${r.baselineMb} MB for Lambda's process) | ${r.freshProcessMb.toFixed(0)} |`,
    `| the invocation's growth held (heap + external, collections confirming it) | ${c.growthMb} |`,
    `| its estimated peak on Lambda (growth + ${r.baselineMb} MB), what the local check compares | ${c.estimatedPeakMb} (${((c.estimatedPeakMb / r.declaredMb) * 100).toFixed(0)}% of ${r.declaredMb}${c.over ? ': flagged' : ''}) |`,
    `| the sender's process: RSS before, peak RSS (node, tsx and the sources loaded) | ${c.rssBeforeMb.toFixed(0)}, ${c.peakRssMb.toFixed(0)} |`,
    `| peak RSS growth + the fresh bundle process (the same peak by RSS: pages the process already had are not counted again) | ${(c.peakRssMb - c.rssBeforeMb + r.freshProcessMb).toFixed(0)} |`,
    '',
    `Flagged by the local runtime's memory check in this run: ${r.flagged.length ? r.flagged.join(', ') : 'nothing'}.`,
  ].join('\n');
}

if (require.main === module && process.argv[2] === '--sender-child') {
  senderChild(JSON.parse(process.argv[3]) as HeldMessage[]).then(
    (result) => {
      console.log(JSON.stringify(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchSenderMemory().then(
    (result) => {
      console.log(formatSenderMemory(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
