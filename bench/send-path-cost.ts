/**
 * What an email costs over its life (issue 17): accepted by POST /emails, sent through the local
 * SES to its mailbox simulator (`success@`: delivered), its `email.delivered` webhook delivered
 * to a receiver, measured for 5, 20 and 60 KB emails; then, for 320 emails of 20 KB, the hottest
 * partition keys; then a cost table per 100,000 emails from those counts and the list prices below.
 *
 * How it is measured: the local runtime runs in this process, so every handler's DynamoDB call
 * goes through the one document client (shared/platform/db/client.ts), on which a middleware asks
 * DynamoDB Local for `ReturnConsumedCapacity: INDEXES` and adds up what it answers (DynamoDB
 * Local bills as DynamoDB does: a write unit per KB of item, twice in a transaction; a read unit
 * per 4 KB, half when eventually consistent; its indexes' writes apart). A transaction's units
 * are given for the whole table, so they are attributed to its items' partition keys in
 * proportion to each action's size in the request (at least one unit each); an index's units go
 * to the GSI1 partitions the item's entry leaves and lands on (followed from the writes seen). The
 * read units and S3 GETs include the benchmark's own GET /emails/{id} polling. S3 requests, SQS sends and SES calls are counted at the
 * call guard every handler's AWS client passes (shared/platform/aws/call-guard.ts); SQS receives
 * and deletes, SNS publishes (one per SES event) and Lambda invocations are derived from the
 * messages, as the cost table says.
 *
 * Run alone: `npx tsx bench/send-path-cost.ts` (BENCH_LIFECYCLE_EMAILS: emails per size, default 20).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBenchApi } from './local-api';
import { installMeter, kindOf, type Units } from './meter';

export type { Units };

const KEY = `es_live_${'C'.repeat(32)}`;
const SIZES_KB = [5, 20, 60];

export interface LifecycleRow {
  kb: number;
  emails: number;
  writePerEmail: number;
  readPerEmail: number;
  s3PutsPerEmail: number;
  s3GetsPerEmail: number;
  sqsMessagesPerEmail: number;
  /** write units per email by kind of partition (`PROJECT#<pid>#EMAILS#<shard>` -> `EMAILS`) */
  writeByKind: Record<string, number>;
}

export interface SendPathCostResult {
  rows: LifecycleRow[];
  hottest: { emails: number; keys: { key: string; unitsPerEmail: number; at500PerSecond: number }[] };
  costPer100k: { item: string; count: string; price: string; dollars: number }[];
  totalBesidesSes: number;
}

export async function benchSendPathCost(
  perSize = Number(process.env.BENCH_LIFECYCLE_EMAILS ?? 20),
): Promise<SendPathCostResult> {
  process.env.SEND_RATE_PER_SECOND = '50';
  let delivered = 0;
  const receiver: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      delivered++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { call, stop } = await startBenchApi('cost', KEY, { LOCAL_SES_MAX_SEND_RATE: '50' });
  // After the runtime loaded the handlers' modules: the same document client and call guard they use.
  const meter = await installMeter();
  const until = async (done: () => Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 180_000; !(await done()); await new Promise((r) => setTimeout(r, 250)))
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  };
  try {
    const domain = await call('POST', '/domains', { name: 'cost.example.com' });
    await call('POST', `/domains/${domain.id}/verify`);
    await call('POST', '/webhooks', {
      endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ['email.delivered'],
    });
    const sendAll = async (count: number, kb: number, label: string) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const html = `<p>${label} ${i}</p><p>${'x'.repeat(kb * 1024)}</p>`;
        ids.push(
          (
            await call('POST', '/emails', {
              from: 'news@cost.example.com',
              to: 'success@simulator.amazonses.com',
              subject: `${label} ${i}`,
              html,
            })
          ).id,
        );
      }
      await until(async () => {
        const statuses = await Promise.all(ids.slice(-5).map((id) => call('GET', `/emails/${id}`)));
        return statuses.every((e) => e.last_event === 'delivered');
      }, `${label} delivered`);
      return ids;
    };
    const rows: LifecycleRow[] = [];
    for (const kb of SIZES_KB) {
      const deliveredBefore = delivered;
      meter.reset();
      await sendAll(perSize, kb, `cost-${kb}`);
      await until(async () => delivered - deliveredBefore >= perSize, 'webhook deliveries');
      await new Promise((r) => setTimeout(r, 2000)); // the last writes settle (delivery records)
      const measured = meter.units();
      const byKind: Record<string, number> = {};
      for (const [key, value] of Object.entries(measured.byKey))
        byKind[kindOf(key)] = (byKind[kindOf(key)] ?? 0) + value / perSize;
      rows.push({
        kb,
        emails: perSize,
        writePerEmail: measured.write / perSize,
        readPerEmail: measured.read / perSize,
        s3PutsPerEmail: measured.s3Puts / perSize,
        s3GetsPerEmail: measured.s3Gets / perSize,
        sqsMessagesPerEmail: measured.sqsSends / perSize,
        writeByKind: byKind,
      });
    }

    // The hottest partitions: 320 emails of 20 KB in batches, every write unit by partition key.
    const spread = 320;
    meter.reset();
    const deliveredBefore = delivered;
    for (let i = 0; i < spread; i += 80) {
      const batch = Array.from({ length: 80 }, (_, j) => ({
        from: 'news@cost.example.com',
        to: 'success@simulator.amazonses.com',
        subject: `spread ${i + j}`,
        html: `<p>${'y'.repeat(20 * 1024)}</p>`,
      }));
      await call('POST', '/emails/batch', batch);
    }
    await until(async () => delivered - deliveredBefore >= spread, 'the spread run delivered');
    await new Promise((r) => setTimeout(r, 2000));
    const hottest = Object.entries(meter.units().byKey)
      .filter(([key]) => !key.startsWith('SEND_RATE#')) // a per-second counter: its rate is the send rate itself (sharded above 500/s)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([key, value]) => ({
        key: kindOf(key) === key ? key : `${kindOf(key)} (one shard)`,
        unitsPerEmail: value / spread,
        at500PerSecond: (value / spread) * 500,
      }));

    const twenty = rows.find((r) => r.kb === 20)!;
    const costPer100k = costTable(twenty);
    return {
      rows,
      hottest: { emails: spread, keys: hottest },
      costPer100k,
      totalBesidesSes: costPer100k.filter((c) => c.item !== 'SES sending').reduce((sum, c) => sum + c.dollars, 0),
    };
  } finally {
    await stop();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

/**
 * List prices, ap-southeast-2, as assumed on 2026-11-23 (check the AWS pricing pages before
 * relying on them): DynamoDB on-demand $0.7125 per million write and $0.1425 per million read
 * request units, storage $0.285 per GB-month; S3 Standard PUT $0.0055 and GET $0.00044 per 1,000,
 * $0.025 per GB-month; SQS $0.40 per million requests; SNS $0.50 per million publishes (delivery
 * to SQS free); Lambda $0.20 per million requests and $0.0000166667 per GB-second; API Gateway
 * HTTP API $1.29 per million requests; SES $0.10 per 1,000 emails.
 */
export const PRICES = {
  dynamoWrite: 0.7125 / 1e6,
  dynamoRead: 0.1425 / 1e6,
  dynamoGbMonth: 0.285,
  s3Put: 0.0055 / 1000,
  s3Get: 0.00044 / 1000,
  s3GbMonth: 0.025,
  sqsRequest: 0.4 / 1e6,
  snsPublish: 0.5 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000166667,
  apiRequest: 1.29 / 1e6,
  sesEmail: 0.1 / 1000,
};

/**
 * Per 100,000 emails of 20 KB. Derived counts (stated in each row): SQS requests are a send, a
 * receive and a delete per message (each SendMessage/ReceiveMessage/DeleteMessage request counted
 * alone, though batches carry up to 10: an upper bound); SNS publishes are the SES events of an
 * email (send, delivery: 2), each also an SQS message on two feedback queues; Lambda invocations
 * are one per API request and one per queue message (an upper bound: batches carry up to 10), at
 * 256 MB for 150 ms each (the route has 512 MB since issue 18 and takes about half as long:
 * the same GB-seconds, bench/function-memory.ts); storage is a month of the 30-day retention.
 */
function costTable(r: LifecycleRow) {
  const n = 100_000;
  const sesEvents = 2;
  const sqsMessages = r.sqsMessagesPerEmail + sesEvents * 2; // our sends + the feedback queues' messages
  const lambdaInvocations = 1 + sqsMessages; // the API call, then one per message
  const rows = [
    {
      item: 'DynamoDB writes',
      count: `${(r.writePerEmail * n).toLocaleString('en')} WRU`,
      price: '$0.7125 / million',
      dollars: r.writePerEmail * n * PRICES.dynamoWrite,
    },
    {
      item: 'DynamoDB reads',
      count: `${(r.readPerEmail * n).toLocaleString('en')} RRU`,
      price: '$0.1425 / million',
      dollars: r.readPerEmail * n * PRICES.dynamoRead,
    },
    {
      item: 'DynamoDB storage (a month)',
      count: `${((n * 1) / 1024 / 1024).toFixed(2)} GB (items ~1 KB)`,
      price: '$0.285 / GB-month',
      dollars: ((n * 1) / 1024 / 1024) * PRICES.dynamoGbMonth,
    },
    {
      item: 'S3 PUT',
      count: `${(r.s3PutsPerEmail * n).toLocaleString('en')}`,
      price: '$0.0055 / 1,000',
      dollars: r.s3PutsPerEmail * n * PRICES.s3Put,
    },
    {
      item: 'S3 GET',
      count: `${(r.s3GetsPerEmail * n).toLocaleString('en')}`,
      price: '$0.00044 / 1,000',
      dollars: r.s3GetsPerEmail * n * PRICES.s3Get,
    },
    {
      item: 'S3 storage (a month)',
      count: `${((n * 20) / 1024 / 1024).toFixed(2)} GB`,
      price: '$0.025 / GB-month',
      dollars: ((n * 20) / 1024 / 1024) * PRICES.s3GbMonth,
    },
    {
      item: 'SQS requests',
      count: `${(sqsMessages * 3 * n).toLocaleString('en')} (send, receive, delete per message)`,
      price: '$0.40 / million',
      dollars: sqsMessages * 3 * n * PRICES.sqsRequest,
    },
    {
      item: 'SNS publishes',
      count: `${(sesEvents * n).toLocaleString('en')}`,
      price: '$0.50 / million',
      dollars: sesEvents * n * PRICES.snsPublish,
    },
    {
      item: 'Lambda requests',
      count: `${(lambdaInvocations * n).toLocaleString('en')}`,
      price: '$0.20 / million',
      dollars: lambdaInvocations * n * PRICES.lambdaRequest,
    },
    {
      item: 'Lambda duration',
      count: `${(lambdaInvocations * n * 0.25 * 0.15).toLocaleString('en')} GB-s`,
      price: '$0.0000166667 / GB-s',
      dollars: lambdaInvocations * n * 0.25 * 0.15 * PRICES.lambdaGbSecond,
    },
    {
      item: 'API Gateway',
      count: `${n.toLocaleString('en')}`,
      price: '$1.29 / million',
      dollars: n * PRICES.apiRequest,
    },
    { item: 'SES sending', count: `${n.toLocaleString('en')}`, price: '$0.10 / 1,000', dollars: n * PRICES.sesEmail },
  ];
  return rows.map((row) => ({ ...row, dollars: Math.round(row.dollars * 100) / 100 }));
}

export function formatSendPathCost(r: SendPathCostResult): string {
  const kinds = [...new Set(r.rows.flatMap((row) => Object.keys(row.writeByKind)))].sort();
  return [
    '### DynamoDB units and requests per email over its life (accepted, sent, delivered, one webhook delivery)',
    '',
    '| size | emails | write units | read units | S3 PUT | S3 GET | SQS messages sent | goal (20 KB: at most 30 write units) |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    ...r.rows.map(
      (row) =>
        `| ${row.kb} KB | ${row.emails} | ${row.writePerEmail.toFixed(1)} | ${row.readPerEmail.toFixed(1)} | ${row.s3PutsPerEmail.toFixed(2)} | ${row.s3GetsPerEmail.toFixed(2)} | ${row.sqsMessagesPerEmail.toFixed(2)} | ${row.kb === 20 ? (row.writePerEmail <= 30 ? 'MET' : 'OVER') : ''} |`,
    ),
    '',
    'Write units per email by kind of partition key:',
    '',
    `| kind | ${r.rows.map((row) => `${row.kb} KB`).join(' | ')} |`,
    `|---|${r.rows.map(() => '---:').join('|')}|`,
    ...kinds.map(
      (kind) => `| \`${kind}\` | ${r.rows.map((row) => (row.writeByKind[kind] ?? 0).toFixed(2)).join(' | ')} |`,
    ),
    '',
    `### The hottest partition keys (${r.hottest.emails} emails of 20 KB), scaled to one project sending 500 emails a second`,
    '',
    '| partition key | write units per email | write units a second at 500 emails/s | goal (under 1,000) |',
    '|---|---:|---:|---|',
    ...r.hottest.keys.map(
      (k) =>
        `| \`${k.key}\` | ${k.unitsPerEmail.toFixed(3)} | ${k.at500PerSecond.toFixed(0)} | ${k.at500PerSecond < 1000 ? 'MET' : 'OVER'} |`,
    ),
    '',
    '### Cost per 100,000 emails of 20 KB (ap-southeast-2 list prices as assumed on 2026-11-23)',
    '',
    '| item | count | price | dollars |',
    '|---|---|---|---:|',
    ...r.costPer100k.map((c) => `| ${c.item} | ${c.count} | ${c.price} | $${c.dollars.toFixed(2)} |`),
    `| **total besides SES** | | goal under $5 | **$${r.totalBesidesSes.toFixed(2)}** (${r.totalBesidesSes < 5 ? 'MET' : 'OVER'}) |`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchSendPathCost().then(
    (result) => {
      console.log('## The send path: units, hottest partitions and cost\n');
      console.log(formatSendPathCost(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
