/**
 * The broadcast fan-out at scale: a segment of 100,000 contacts in DynamoDB Local, fanned out by
 * the real fan-out handler fed by a queue poller (Lambda's SQS semantics) from a local SQS queue,
 * its emails put on a real local send queue. Sending stops there (the send-pipeline benchmark
 * measures the sender against the SES rate): the send queue is not consumed.
 *
 * Beside it, in the same run and the same DynamoDB Local, the raw write rate: the contacts and
 * their memberships written with BatchWriteItem (25 items per call, 16 calls in flight).
 * 1% of the contacts are unsubscribed, so the skip path is in the figures too.
 *
 * The account's send rate (SEND_RATE_PER_SECOND, default here 200) sets how many pages of the
 * broadcast run side by side (fanOutParallelism: 4 at 200/s, 1 at SES's default 14/s); as many
 * pollers as that take the fan-out queue's messages at once, as the fan-out function's
 * concurrency would on AWS.
 *
 * Run alone: `npx tsx bench/broadcast-fanout.ts` (BENCH_CONTACTS to change the size).
 */
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { startLocalKms } from '../local/aws/kms';
import { QueuePoller } from '../local/lambda/queue-poller';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import { writeRaw } from './raw-write';
import { startWorkerBackends } from './worker-backends';
import { workerFunction } from '../local/lambda/invocation';
import { collectGarbage } from '../local/memory-watch';
import { workerMemoryMb } from '../functions/needs';
import { workers } from '../functions/workers';

export interface BroadcastFanOutResult {
  contacts: number;
  pageSize: number;
  /** the send rate it ran at, and the pages in flight that gives */
  sendRate: number;
  pagesInFlight: number;
  /** items per second written by BatchWriteItem while seeding (contacts and memberships) */
  rawItemsPerSecond: number;
  recipientsPerSecond: number;
  /** recipient records, emails and their events written per second by the fan-out */
  fanOutItemsPerSecond: number;
  /** every action of the fan-out's transactions (the above, counters, quotas, due-index entries ...) per second */
  transactionItemsPerSecond: number;
  seconds: number;
  counters: { recipients: number; sent: number; skipped: number; failed: number };
  enqueued: number;
  /** the most the process's heap and resident set grew over their level before the fan-out */
  peakHeapGrowthMb: number;
  /** full collections the sampler forced to tell held memory from garbage (each when a sample passed the goal) */
  heapCollections: number;
  /** the memory the fan-out function is deployed with (functions/workers.ts) */
  functionMemoryMb: number;
  peakRssGrowthMb: number;
  status: string;
}

/** Counts the actions of the fan-out's TransactWriteItems as the service's document client sends them. */
async function countTransactionActions() {
  const { documentClient } = await import('../shared/platform/db/client');
  const counted = { items: 0, stop: () => {} };
  let on = true;
  counted.stop = () => {
    on = false;
  };
  (documentClient.middlewareStack as unknown as { add: (m: unknown, o: unknown) => void }).add(
    (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input: unknown }) => {
        if (on && context.commandName === 'TransactWriteItemsCommand')
          counted.items += (args.input as TransactWriteCommandInput).TransactItems?.length ?? 0;
        return next(args);
      },
    { step: 'initialize', name: 'benchCountTransactionActions' },
  );
  return counted;
}

/** Issue 39's goals for the 100,000-contact fan-out: a share of the raw BatchWrite item rate, and the heap it may grow by. */
export const BROADCAST_RATE_GOAL = 0.5;
export const BROADCAST_HEAP_GOAL_MB = 100;

export async function benchBroadcastFanOut(
  contacts = Number(process.env.BENCH_CONTACTS ?? 100_000),
): Promise<BroadcastFanOutResult> {
  const { region, credentials, sqs, s3Root, admin, writer, stop } = await startWorkerBackends();
  // the unsubscribe key is sealed under the secrets key
  const kms = await startLocalKms(join(s3Root, 'kms'), region, credentials).catch(async (error) => {
    await stop();
    throw error;
  });
  try {
    const fanOutQueue = (
      await sqs.send(
        new CreateQueueCommand({ QueueName: 'broadcast-fanout', Attributes: { VisibilityTimeout: '120' } }),
      )
    ).QueueUrl!;
    const sendQueue = (await sqs.send(new CreateQueueCommand({ QueueName: 'send' }))).QueueUrl!;
    Object.assign(process.env, {
      QUEUE_URL_BROADCAST_FANOUT: fanOutQueue,
      QUEUE_URL_SEND: sendQueue,
      QUEUE_URL_SEND_BULK: sendQueue, // broadcast emails go to the bulk lane
      AWS_ENDPOINT_URL_KMS: kms.endpoint,
      SECRETS_KEY_ARN: kms.keyArn,
      SEND_RATE_PER_SECOND: process.env.SEND_RATE_PER_SECOND ?? '200',
      PUBLIC_API_URL: 'https://email.example.test',
    });
    const { handler } = await import('../functions/workers/broadcast-fanout');
    const transactions = await countTransactionActions();
    const { fanOutQueue: fanOutMessages } = await import('../shared/broadcasts/queue');
    const { fanOutParallelism, pageSize } = await import('../shared/broadcasts/fanout');
    const sendRate = Number(process.env.SEND_RATE_PER_SECOND);
    const pagesInFlight = fanOutParallelism(sendRate);
    const { getItem } = await import('../shared/platform/db/table');
    const keys = await import('../shared/platform/db/keys');
    const { newId, nowIso } = await import('../shared/platform/ids');

    // 1. seed the segment: the raw write rate of this DynamoDB Local
    const projectId = newId();
    const segmentId = newId();
    const at = nowIso();
    const base = { project_id: projectId, created_at: at, updated_at: at };
    const items: Record<string, unknown>[] = [
      { ...keys.segment(projectId, segmentId), ...base, type: 'segment', id: segmentId, name: 'Everyone' },
    ];
    for (let i = 0; i < contacts; i++) {
      const id = newId();
      items.push(
        {
          ...keys.contact(projectId, id),
          ...base,
          type: 'contact',
          id,
          email: `reader${i}@readers.example.com`,
          first_name: `Reader${i}`,
          last_name: null,
          unsubscribed: i % 100 === 0,
          properties: { plan: 'pro' },
          segment_ids: [segmentId],
          topics: {},
        },
        {
          ...keys.segmentMember(projectId, segmentId, id),
          ...base,
          type: 'segment_member',
          segment_id: segmentId,
          contact_id: id,
        },
      );
    }
    const seedSeconds = await writeRaw(writer, LOCAL_TABLE_NAME, items);

    // 2. the broadcast, queued, and its fan-out through the queue
    const broadcastId = newId();
    await writer.send(
      new BatchWriteCommand({
        RequestItems: {
          [LOCAL_TABLE_NAME]: [
            {
              // the sending domain's name claim, as createDomain leaves it (the fan-out reads it for the configuration set)
              PutRequest: {
                Item: {
                  ...keys.domainName('bench.example.com'),
                  type: 'domain_name',
                  project_id: projectId,
                  domain_id: 'bench',
                  name: 'bench.example.com',
                  state: 'active',
                  claimed_at: new Date().toISOString(),
                  configuration_set: 'es-bench',
                  status: 'verified',
                  sending: 'enabled',
                },
              },
            },
            {
              PutRequest: {
                Item: {
                  ...keys.broadcast(projectId, broadcastId),
                  ...base,
                  type: 'broadcast',
                  id: broadcastId,
                  name: 'bench',
                  segment_id: segmentId,
                  topic_id: null,
                  from: 'News <news@bench.example.com>',
                  subject: 'Hello {{{FIRST_NAME}}}',
                  reply_to: null,
                  preview_text: 'This month',
                  status: 'queued',
                  scheduled_at: null,
                  sent_at: null,
                  count_recipients: 0,
                  count_sent: 0,
                  count_skipped: 0,
                  count_failed: 0,
                  livemode: true,
                  cursor: '',
                },
              },
            },
            {
              PutRequest: {
                Item: {
                  ...keys.broadcastContent(projectId, broadcastId),
                  type: 'broadcast_content',
                  html: '<p>Hi {{FIRST_NAME}}, on {{{plan}}}.</p><p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
                  text: 'Hi {{{FIRST_NAME}}}',
                },
              },
            },
          ],
        },
      }),
    );
    const queueArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: fanOutQueue, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn!;
    const poller = new QueuePoller({
      fn: workerFunction('broadcast-fanout'),
      sqs,
      queueUrl: fanOutQueue,
      queueArn,
      batchSize: 1,
      handler: handler as never,
      idleMs: 5,
    });
    // what the process holds, not its garbage: a full collection before, and whenever a sample passes the goal
    // (as the local runtime's memory watch confirms a sample past a function's memory: local/memory-watch.ts)
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const rssBefore = process.memoryUsage().rss;
    const goalBytes = BROADCAST_HEAP_GOAL_MB * 2 ** 20;
    let peakHeap = heapBefore;
    let peakRss = rssBefore;
    let collections = 0;
    const sampler = setInterval(() => {
      let m = process.memoryUsage();
      if (m.heapUsed - heapBefore > goalBytes && collectGarbage()) {
        collections++;
        m = process.memoryUsage();
      }
      peakHeap = Math.max(peakHeap, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
    }, 20);
    const started = process.hrtime.bigint();
    await fanOutMessages.enqueue([{ project_id: projectId, broadcast_id: broadcastId, after: '' }]);
    let broadcast: Record<string, unknown> | undefined;
    const going = () => broadcast !== undefined && ['queued', 'sending'].includes(broadcast.status as string);
    broadcast = await getItem(keys.broadcast(projectId, broadcastId));
    await Promise.all(
      Array.from({ length: pagesInFlight }, async () => {
        while (going()) {
          if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 5));
          broadcast = await getItem(keys.broadcast(projectId, broadcastId));
        }
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    transactions.stop();

    const enqueued = Number(
      (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: sendQueue, AttributeNames: ['ApproximateNumberOfMessages'] }),
        )
      ).Attributes?.ApproximateNumberOfMessages ?? 0,
    );
    const counters = {
      recipients: Number(broadcast?.count_recipients ?? 0),
      sent: Number(broadcast?.count_sent ?? 0),
      skipped: Number(broadcast?.count_skipped ?? 0),
      failed: Number(broadcast?.count_failed ?? 0),
    };
    admin.destroy();
    return {
      contacts,
      pageSize: pageSize(),
      sendRate,
      pagesInFlight,
      rawItemsPerSecond: (contacts * 2) / seedSeconds,
      recipientsPerSecond: counters.recipients / seconds,
      fanOutItemsPerSecond: (counters.recipients + counters.sent * 2) / seconds,
      transactionItemsPerSecond: transactions.items / seconds,
      seconds,
      counters,
      enqueued,
      peakHeapGrowthMb: (peakHeap - heapBefore) / 2 ** 20,
      heapCollections: collections,
      functionMemoryMb: workerMemoryMb(workers.find((w) => w.name === 'broadcast-fanout')!),
      peakRssGrowthMb: (peakRss - rssBefore) / 2 ** 20,
      status: String(broadcast?.status),
    };
  } finally {
    await new Promise((resolve) => kms.server.close(resolve));
    await stop();
  }
}

export function formatBroadcastFanOut(r: BroadcastFanOutResult): string {
  const expectedSent = r.contacts - Math.ceil(r.contacts / 100);
  const ok =
    r.status === 'sent' &&
    r.counters.recipients === r.contacts &&
    r.counters.sent === expectedSent &&
    r.enqueued === expectedSent;
  return [
    `${r.contacts.toLocaleString('en')} contacts in one segment (1% unsubscribed), pages of ${r.pageSize}, one page per message, at a send rate of ${r.sendRate}/s: ${r.pagesInFlight} page(s) in flight at once, SES not involved.\n`,
    '| run | rate | table items written/s |',
    '|---|---:|---:|',
    `| raw DynamoDB Local BatchWriteItem (seeding contacts + memberships, 16 in flight) | ${r.rawItemsPerSecond.toFixed(0)} items/s | ${r.rawItemsPerSecond.toFixed(0)} |`,
    `| broadcast fan-out (recipient record + email + email.queued event per recipient, transactions) | ${r.recipientsPerSecond.toFixed(0)} recipients/s | ${r.fanOutItemsPerSecond.toFixed(0)} |`,
    `| the fan-out's transactions, every action counted (the above, counters, quotas, indexes) | | ${r.transactionItemsPerSecond.toFixed(0)} |`,
    '',
    `Fan-out: ${r.seconds.toFixed(1)} s; status ${r.status}; counters ${r.counters.recipients} / ${r.counters.sent} / ${r.counters.skipped} / ${r.counters.failed} ` +
      `(recipients / sent / skipped / failed); ${r.enqueued.toLocaleString('en')} messages on the send queue (${ok ? 'MET' : 'NOT MET'}: every recipient once).`,
    `Peak memory of the fan-out (this process holds the handler, its pollers and clients; the local SQS runs in its own, so the queued emails are not counted): heap +${r.peakHeapGrowthMb.toFixed(1)} MB held (a sample past the goal is confirmed after a full collection: ${r.heapCollections} forced), RSS +${r.peakRssGrowthMb.toFixed(1)} MB; the function is deployed with ${r.functionMemoryMb} MB (issue 39: heap growth at most ${BROADCAST_HEAP_GOAL_MB} MB: ${r.peakHeapGrowthMb <= BROADCAST_HEAP_GOAL_MB ? 'MET' : 'NOT MET'}).`,
    `The fan-out is ${((r.fanOutItemsPerSecond / r.rawItemsPerSecond) * 100).toFixed(0)}% of the raw write rate in items (issue 39: at least ${BROADCAST_RATE_GOAL * 100}%: ${r.fanOutItemsPerSecond / r.rawItemsPerSecond >= BROADCAST_RATE_GOAL ? 'MET' : 'NOT MET'}); at SES's default 14 emails/s it is ${(r.recipientsPerSecond / 14).toFixed(0)}x faster than sending, so it is not the bottleneck.`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchBroadcastFanOut().then(
    (result) => {
      console.log('## Broadcast fan-out beside the raw DynamoDB Local write rate\n');
      console.log(formatBroadcastFanOut(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
