/**
 * What an email costs over its life (issue 17): accepted by POST /emails, sent through the local
 * SES to its mailbox simulator (`success@`: delivered), its `email.delivered` webhook delivered
 * to a receiver, measured for 5, 20 and 60 KB emails; then, for 320 emails of 20 KB, the hottest
 * partition keys; then a cost table per 100,000 emails from those counts and the list prices below,
 * and (issue 39) what one deployment costs a month before it sends anything.
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
 * Logs and KMS (issue 39): every line the functions write through the logger (shared/platform/log.ts,
 * at its production level INFO) passes process.stdout or stderr here, inside the invocation that
 * wrote it, so it is counted by function (and kept off the terminal); the benchmark's own
 * GET /emails/{id} polling is left out. The Embedded Metric Format lines (shared/platform/metrics.ts)
 * are written only on Lambda: they are added, one per send and one per webhook delivery, at the
 * size metricLine makes them. KMS requests our code makes are counted at the call guard; the ones
 * AWS services make for us (DynamoDB, SNS) are per 5 minutes, not per email, and are priced with the
 * fixed costs. The fixed costs come from the synthesized stack (bench/deployment-inventory.ts) and
 * from 10 s of an idle runtime (what the scheduled workers read each run).
 *
 * Run alone: `npx tsx bench/send-path-cost.ts` (BENCH_LIFECYCLE_EMAILS: emails per size, default 20).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { functionName } from '../functions/routes';
import { workerFunctionName, workers } from '../functions/workers';
import { currentInvocation } from '../local/lambda/invocation';
import type { AwsCall } from '../shared/platform/aws/call-guard';
import { type MetricName, metricLine } from '../shared/platform/metrics';
import { type DeploymentInventory, deploymentInventory } from './deployment-inventory';
import { startBenchApi } from './local-api';
import { installMeter, kindOf, type Units } from './meter';

export type { Units };

const KEY = `es_live_${'C'.repeat(32)}`;
const SIZES_KB = [5, 20, 60];

/** The benchmark's own polling (GET /emails/{id}), left out of what an email's life logs. */
const POLL_FUNCTION = functionName({ method: 'GET', path: '/emails/{email_id}', handler: 'emails/get' });
/** The scheduled workers: every minute on AWS, every 5 s in the benchmark's runtime (bench/local-api.ts). */
const SCHEDULED = new Set(workers.filter((w) => w.trigger.kind === 'schedule').map((w) => workerFunctionName(w.name)));
/** How long the runtime is watched idle, for what a scheduled run reads when there is nothing to do. */
const IDLE_MS = 10_500;
/** Lambda's own START, END and REPORT lines of an invocation: an estimate of their bytes (REPORT alone is about 200). */
const PLATFORM_LOG_BYTES = 300;
/** The custom metrics the functions can emit (shared/platform/metrics.ts), one per name and value of its dimension. */
const CUSTOM_METRICS = [
  'Sent',
  'SendThrottled',
  'ProjectSendingPaused',
  ...['delivered', 'failed', 'retrying', 'throttled'].map((outcome) => `WebhookDeliveries/${outcome}`),
];
/** Lambda's pollers of an SQS event source mapping when the queue is empty (AWS's minimum, as assumed), each waiting 20 s a receive. */
const POLLERS_PER_QUEUE = 5;
/** Function environments assumed warm all month (the 3 scheduled workers, the 7 functions an email passes): each may make DynamoDB decrypt the table key every 5 minutes. */
const WARM_ENVIRONMENTS = 10;
/** The SNS topics with a steady publisher (SES's events; SES's inbound notices): SNS asks KMS for a data key for each every 5 minutes. */
const PUBLISHED_TOPICS = 2;
const MONTH_SECONDS = 30 * 24 * 3600;
const GB = 1024 ** 3;

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
  /** bytes the functions logged per email (the benchmark's polling left out), and the lines */
  logBytesPerEmail: number;
  logLinesPerEmail: number;
  /** Embedded Metric Format bytes per email: written on Lambda only, one line per send and per webhook delivery */
  metricBytesPerEmail: number;
  /** per email, by function: invocations seen (ones that called AWS or logged), log lines and bytes */
  byFunction: Record<string, { invocations: number; logLines: number; logBytes: number }>;
  /** KMS requests our code made per email */
  kmsPerEmail: number;
  /** reads per email DynamoDB Local answered with 0 units (DynamoDB bills at least 0.5 each: not in the read units) */
  emptyReadsPerEmail: number;
}

export interface CostRow {
  item: string;
  count: string;
  price: string;
  dollars: number;
  /** a row issue 39 added: outside issue 17's goal */
  added?: boolean;
}

/** The scheduled workers with nothing to do, per run. */
export interface IdleRuns {
  seconds: number;
  runs: number;
  /** invocations of other functions in the window (none expected) */
  others: number;
  /** with each read DynamoDB Local answered with 0 units (a Query that found nothing) at DynamoDB's least, 0.5 */
  readUnitsPerRun: number;
  writeUnitsPerRun: number;
  logBytesPerRun: number;
}

export interface SendPathCostResult {
  rows: LifecycleRow[];
  hottest: { emails: number; keys: { key: string; unitsPerEmail: number; at500PerSecond: number }[] };
  costPer100k: CostRow[];
  /** issue 17's rows besides SES (DynamoDB, S3, SQS, SNS, Lambda, API Gateway): what its goal of $5 is about */
  totalBesidesSes: number;
  /** with the rows issue 39 added (CloudWatch Logs, KMS, DynamoDB's point-in-time recovery) */
  totalWithOperations: number;
  idle: IdleRuns;
  inventory: DeploymentInventory;
  fixedMonthly: CostRow[];
  fixedMonthlyTotal: number;
}

interface Operations {
  logBytes: Record<string, number>;
  logLines: Record<string, number>;
  /** invocations that made an AWS call or wrote a log line: the ones that can be seen */
  invocations: Record<string, number>;
  /** by `<function> <operation>` */
  kms: Record<string, number>;
  readUnits: Record<string, number>;
  writeUnits: Record<string, number>;
  /** reads DynamoDB Local answered with 0 units (a Query that found nothing: DynamoDB bills at least 0.5) */
  emptyReads: Record<string, number>;
}

const add = (to: Record<string, number>, key: string, n = 1) => {
  to[key] = (to[key] ?? 0) + n;
};
const total = (of: Record<string, number>, keep: (fn: string) => boolean = () => true) =>
  Object.entries(of).reduce((sum, [key, n]) => sum + (keep(key.split(' ')[0]) ? n : 0), 0);

/**
 * Counts, by the function whose invocation does it: the lines written through the logger (JSON
 * lines on stdout or stderr inside an invocation; INFO and DEBUG are kept off the terminal, WARN
 * and ERROR still show), the invocations, KMS requests and DynamoDB units. Installed once the
 * runtime has loaded the handlers' modules (the same document client and call guard they use).
 */
async function installOperationsMeter() {
  const fresh = (): Operations => ({
    logBytes: {},
    logLines: {},
    invocations: {},
    kms: {},
    readUnits: {},
    writeUnits: {},
    emptyReads: {},
  });
  let ops = fresh();
  let seen = new WeakSet<object>();
  const running = (): string | undefined => {
    const invocation = currentInvocation();
    if (!invocation) return undefined;
    if (!seen.has(invocation)) {
      seen.add(invocation);
      add(ops.invocations, invocation.fn.name);
    }
    return invocation.fn.name;
  };
  const checker = globalThis.__awsCallChecker;
  globalThis.__awsCallChecker = (call: AwsCall) => {
    checker?.(call);
    const fn = running();
    if (call.service === 'kms') add(ops.kms, `${fn ?? '-'} ${call.operation.replace(/Command$/, '')}`);
  };
  const { documentClient } = await import('../shared/platform/db/client');
  (documentClient.middlewareStack as unknown as { add: (m: unknown, o: unknown) => void }).add(
    (
      next: (args: unknown) => Promise<{ output: { ConsumedCapacity?: { CapacityUnits?: number }[] | object } }>,
      context: { commandName?: string },
    ) =>
      async (args: unknown) => {
        const out = await next(args);
        const fn = running();
        const units = ([out.output.ConsumedCapacity ?? []].flat() as { CapacityUnits?: number }[]).reduce(
          (sum, c) => sum + (c.CapacityUnits ?? 0),
          0,
        );
        const write = /^(PutItem|UpdateItem|DeleteItem|TransactWriteItems|BatchWriteItem)Command$/.test(
          String(context.commandName),
        );
        if (fn) add(write ? ops.writeUnits : ops.readUnits, fn, units);
        if (fn && !write && units === 0) add(ops.emptyReads, fn);
        return out;
      },
    { step: 'initialize', name: 'benchUnitsByFunction' },
  );
  const restore = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write;
    stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const fn = typeof chunk === 'string' && chunk.startsWith('{"level":"') ? running() : undefined;
      if (fn) {
        const lines = (chunk as string).split('\n').filter(Boolean);
        for (const line of lines) {
          add(ops.logBytes, fn, Buffer.byteLength(line) + 1);
          add(ops.logLines, fn);
        }
        if (lines.every((line) => /^\{"level":"(INFO|DEBUG)"/.test(line))) {
          const done = rest.find((r): r is () => void => typeof r === 'function');
          if (done) process.nextTick(done);
          return true;
        }
      }
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  return {
    take: () => ops,
    reset: () => {
      ops = fresh();
      seen = new WeakSet();
    },
    stop: () => {
      for (const undo of restore) undo();
    },
  };
}

/** An Embedded Metric Format line's bytes, as shared/platform/metrics.ts writes it on Lambda. */
const metricBytes = (name: MetricName, dimensions?: Record<string, string>) =>
  Buffer.byteLength(metricLine(name, 1, dimensions)) + 1;

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
  const ops = await installOperationsMeter();
  const until = async (done: () => Promise<boolean>, what: string) => {
    for (const deadline = Date.now() + 180_000; !(await done()); await new Promise((r) => setTimeout(r, 250)))
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  };
  let result: Omit<SendPathCostResult, 'inventory' | 'fixedMonthly' | 'fixedMonthlyTotal'>;
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
      ops.reset();
      await sendAll(perSize, kb, `cost-${kb}`);
      await until(async () => delivered - deliveredBefore >= perSize, 'webhook deliveries');
      await new Promise((r) => setTimeout(r, 2000)); // the last writes settle (delivery records)
      const measured = meter.units();
      const seen = ops.take();
      const sendsFn = functionName({ method: 'POST', path: '/emails', handler: 'emails/send' });
      if (!seen.logLines[sendsFn])
        throw new Error(
          `no log line from ${sendsFn}: the logger loaded at LOG_LEVEL=${process.env.LOG_LEVEL}, and this benchmark counts what Lambda logs at the production level (INFO, unset)`,
        );
      const byKind: Record<string, number> = {};
      for (const [key, value] of Object.entries(measured.byKey))
        byKind[kindOf(key)] = (byKind[kindOf(key)] ?? 0) + value / perSize;
      // the benchmark's polling is not an email's; the scheduled workers run whether or not anything is sent
      const ours = (fn: string) => fn !== POLL_FUNCTION && !SCHEDULED.has(fn);
      const byFunction: LifecycleRow['byFunction'] = {};
      for (const fn of new Set([...Object.keys(seen.invocations), ...Object.keys(seen.logLines)].filter(ours)))
        byFunction[fn] = {
          invocations: (seen.invocations[fn] ?? 0) / perSize,
          logLines: (seen.logLines[fn] ?? 0) / perSize,
          logBytes: (seen.logBytes[fn] ?? 0) / perSize,
        };
      rows.push({
        kb,
        emails: perSize,
        writePerEmail: measured.write / perSize,
        readPerEmail: measured.read / perSize,
        s3PutsPerEmail: measured.s3Puts / perSize,
        s3GetsPerEmail: measured.s3Gets / perSize,
        sqsMessagesPerEmail: measured.sqsSends / perSize,
        writeByKind: byKind,
        logBytesPerEmail: total(seen.logBytes, ours) / perSize,
        logLinesPerEmail: total(seen.logLines, ours) / perSize,
        metricBytesPerEmail:
          (measured.sesSends * metricBytes('Sent') +
            (delivered - deliveredBefore) * metricBytes('WebhookDeliveries', { Outcome: 'delivered' })) /
          perSize,
        byFunction,
        kmsPerEmail: total(seen.kms, ours) / perSize,
        emptyReadsPerEmail: total(seen.emptyReads, ours) / perSize,
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

    // The scheduled workers with nothing to do: what each run reads (they run every minute on AWS).
    ops.reset();
    await new Promise((r) => setTimeout(r, IDLE_MS));
    const quiet = ops.take();
    const scheduled = (fn: string) => SCHEDULED.has(fn);
    const runs = total(quiet.invocations, scheduled);
    const idle: IdleRuns = {
      seconds: IDLE_MS / 1000,
      runs,
      others: total(quiet.invocations, (fn) => !scheduled(fn)),
      readUnitsPerRun:
        (total(quiet.readUnits, scheduled) + 0.5 * total(quiet.emptyReads, scheduled)) / Math.max(1, runs),
      writeUnitsPerRun: total(quiet.writeUnits, scheduled) / Math.max(1, runs),
      logBytesPerRun: total(quiet.logBytes, scheduled) / Math.max(1, runs),
    };

    const twenty = rows.find((r) => r.kb === 20)!;
    const costPer100k = costTable(twenty);
    const besidesSes = costPer100k.filter((c) => c.item !== 'SES sending');
    result = {
      rows,
      hottest: { emails: spread, keys: hottest },
      costPer100k,
      totalBesidesSes: besidesSes.filter((c) => !c.added).reduce((sum, c) => sum + c.dollars, 0),
      totalWithOperations: besidesSes.reduce((sum, c) => sum + c.dollars, 0),
      idle,
    };
  } finally {
    ops.stop();
    await stop();
    await new Promise((resolve) => receiver.close(resolve));
  }
  // The stack as `cdk synth` builds it: what it bills by the month (after the runtime: a synth takes seconds of CPU).
  const inventory = deploymentInventory();
  const fixedMonthly = fixedCosts(inventory, result.idle);
  return {
    ...result,
    inventory,
    fixedMonthly,
    fixedMonthlyTotal: fixedMonthly.reduce((sum, c) => sum + c.dollars, 0),
  };
}

/**
 * List prices, ap-southeast-2, as assumed on 2026-11-27 (no machine here reaches AWS's pricing
 * pages: check them before relying on these; RESULTS.md says which could be compared with a copy).
 * Issue 17's, first written on 2026-11-23: DynamoDB on-demand $0.7125 per million write and
 * $0.1425 per million read request units, storage $0.285 per GB-month; S3 Standard PUT $0.0055
 * and GET $0.00044 per 1,000, $0.025 per GB-month; SQS $0.40 per million requests; SNS $0.50 per
 * million publishes (delivery to SQS free); Lambda $0.20 per million requests and $0.0000166667
 * per GB-second on x86_64; API Gateway HTTP API $1.29 per million requests; SES $0.10 per 1,000
 * emails. Issue 39's: Lambda on arm64 (what the stack deploys) $0.0000133334 per GB-second;
 * CloudWatch Logs $0.57 per GB ingested and $0.03 per GB-month stored; KMS $1 per customer managed
 * key a month (and $1 more for each of its first two yearly rotations) and $0.03 per 10,000
 * requests; CloudWatch $0.10 per standard-resolution alarm metric a month, $3 per dashboard a month
 * (3 of up to 50 metrics free), $0.30 per custom metric a month; DynamoDB point-in-time recovery
 * $0.228 per GB-month; Secrets Manager $0.40 per secret a month. Free tiers are not subtracted.
 */
export const PRICES = {
  dynamoWrite: 0.7125 / 1e6,
  dynamoRead: 0.1425 / 1e6,
  dynamoGbMonth: 0.285,
  dynamoPitrGbMonth: 0.228,
  s3Put: 0.0055 / 1000,
  s3Get: 0.00044 / 1000,
  s3GbMonth: 0.025,
  sqsRequest: 0.4 / 1e6,
  snsPublish: 0.5 / 1e6,
  lambdaRequest: 0.2 / 1e6,
  lambdaArmGbSecond: 0.0000133334,
  apiRequest: 1.29 / 1e6,
  sesEmail: 0.1 / 1000,
  logsIngestedGb: 0.57,
  logsStoredGbMonth: 0.03,
  kmsKeyMonth: 1,
  kmsRequest: 0.03 / 10_000,
  alarmMetricMonth: 0.1,
  dashboardMonth: 3,
  customMetricMonth: 0.3,
  secretMonth: 0.4,
};

const rounded = (rows: CostRow[]) => rows.map((row) => ({ ...row, dollars: Math.round(row.dollars * 100) / 100 }));
const number = (n: number) => Math.round(n).toLocaleString('en');

/**
 * Per 100,000 emails of 20 KB. Derived counts (stated in each row): SQS requests are a send, a
 * receive and a delete per message (each SendMessage/ReceiveMessage/DeleteMessage request counted
 * alone, though batches carry up to 10: an upper bound); SNS publishes are the SES events of an
 * email (send, delivery: 2), each also an SQS message on two feedback queues; Lambda invocations
 * are one per API request and one per queue message (an upper bound: batches carry up to 10), at
 * 256 MB for 150 ms each (the route has 512 MB since issue 18 and takes about half as long:
 * the same GB-seconds, bench/function-memory.ts), priced on arm64; storage is a month of the
 * 30-day retention. Issue 39's rows: the log bytes measured, the metric lines and Lambda's own
 * lines for each of those invocations, ingested and kept a month (the retention is 30 days;
 * priced on their uncompressed bytes, an upper bound: CloudWatch stores them compressed); KMS
 * requests our code made; point-in-time recovery on the table's storage.
 */
function costTable(r: LifecycleRow): CostRow[] {
  const n = 100_000;
  const sesEvents = 2;
  const sqsMessages = r.sqsMessagesPerEmail + sesEvents * 2; // our sends + the feedback queues' messages
  const lambdaInvocations = 1 + sqsMessages; // the API call, then one per message
  const tableGb = (n * 1) / 1024 / 1024;
  const logGb = ((r.logBytesPerEmail + r.metricBytesPerEmail + lambdaInvocations * PLATFORM_LOG_BYTES) * n) / GB;
  const logCount = `${logGb.toFixed(3)} GB (${number(r.logBytesPerEmail)} B logged, ${number(r.metricBytesPerEmail)} B of metrics, ${number(lambdaInvocations * PLATFORM_LOG_BYTES)} B of Lambda's lines per email)`;
  return rounded([
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
      count: `${tableGb.toFixed(2)} GB (items ~1 KB)`,
      price: '$0.285 / GB-month',
      dollars: tableGb * PRICES.dynamoGbMonth,
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
      item: 'Lambda duration (arm64)',
      count: `${(lambdaInvocations * n * 0.25 * 0.15).toLocaleString('en')} GB-s`,
      price: '$0.0000133334 / GB-s',
      dollars: lambdaInvocations * n * 0.25 * 0.15 * PRICES.lambdaArmGbSecond,
    },
    {
      item: 'API Gateway',
      count: `${n.toLocaleString('en')}`,
      price: '$1.29 / million',
      dollars: n * PRICES.apiRequest,
    },
    {
      item: 'CloudWatch Logs ingestion',
      count: logCount,
      price: '$0.57 / GB',
      dollars: logGb * PRICES.logsIngestedGb,
      added: true,
    },
    {
      item: 'CloudWatch Logs storage (a month of the 30-day retention)',
      count: `${logGb.toFixed(3)} GB (uncompressed: an upper bound)`,
      price: '$0.03 / GB-month',
      dollars: logGb * PRICES.logsStoredGbMonth,
      added: true,
    },
    {
      item: 'KMS requests (our code: the secrets key)',
      count: `${number(r.kmsPerEmail * n)} (one per cold start or hour, not per email)`,
      price: '$0.03 / 10,000',
      dollars: r.kmsPerEmail * n * PRICES.kmsRequest,
      added: true,
    },
    {
      item: 'DynamoDB point-in-time recovery (a month)',
      count: `${tableGb.toFixed(2)} GB`,
      price: '$0.228 / GB-month',
      dollars: tableGb * PRICES.dynamoPitrGbMonth,
      added: true,
    },
    { item: 'SES sending', count: `${n.toLocaleString('en')}`, price: '$0.10 / 1,000', dollars: n * PRICES.sesEmail },
  ]);
}

/**
 * What one deployment costs a month before it sends an email: the stack's own resources
 * (bench/deployment-inventory.ts) at the prices above, and the scheduled workers' runs with
 * nothing to do (256 MB for 150 ms each, as the per-email table assumes, and the reads measured).
 * KMS requests AWS makes for us, as AWS documents them: DynamoDB decrypts the table key once per
 * connection and again after 5 minutes unused (here: 12 an hour for each warm environment, the
 * most); SNS asks for a data key every 5 minutes per topic and publisher (2 requests each time).
 * Empty receives: each poller waits 20 s a receive, 3 a minute. Free tiers are not subtracted.
 */
function fixedCosts(inv: DeploymentInventory, idle: IdleRuns): CostRow[] {
  const keys = inv.kmsKeys.length;
  const rotating = inv.kmsKeys.filter((k) => k.rotation).length;
  const freeDashboards = inv.dashboardMetrics.filter((metrics) => metrics <= 50).slice(0, 3).length;
  const emptyReceives = inv.polledQueues * POLLERS_PER_QUEUE * 3 * (MONTH_SECONDS / 60);
  const tableKeyRequests = WARM_ENVIRONMENTS * 12 * 24 * 30;
  const topicKeyRequests = PUBLISHED_TOPICS * (MONTH_SECONDS / 300) * 2;
  const runs = inv.scheduledInvocationsPerMonth;
  const runLogGb = (runs * (PLATFORM_LOG_BYTES + idle.logBytesPerRun)) / GB;
  return rounded([
    {
      item: 'CloudWatch alarms',
      count: `${inv.alarms} alarms, ${inv.alarmMetrics} alarm metrics (a metric-math alarm: one per metric)`,
      price: '$0.10 / alarm metric',
      dollars: inv.alarmMetrics * PRICES.alarmMetricMonth,
    },
    {
      item: 'CloudWatch dashboards',
      count: `${inv.dashboardMetrics.length} (graphing ${inv.dashboardMetrics.join(', ')} metrics; the free tier's 3 hold up to 50)`,
      price: '$3.00 / dashboard',
      dollars: (inv.dashboardMetrics.length - freeDashboards) * PRICES.dashboardMonth,
    },
    {
      item: 'CloudWatch custom metrics (Embedded Metric Format)',
      count: `${CUSTOM_METRICS.length} (${CUSTOM_METRICS.filter((m) => !m.includes('/')).join(', ')}, WebhookDeliveries by ${CUSTOM_METRICS.filter((m) => m.includes('/')).length} outcomes; billed in a month they get data)`,
      price: '$0.30 / metric',
      dollars: CUSTOM_METRICS.length * PRICES.customMetricMonth,
    },
    {
      item: 'KMS customer managed keys',
      count: `${keys} (${inv.kmsKeys
        .map((k) =>
          k.description
            .replace(/^Email service:? ?/, '')
            .replace(/ \(.*$/, '')
            .toLowerCase(),
        )
        .join(
          ', ',
        )}); ${rotating} rotate yearly: +$${rotating} a month after the first rotation, +$${2 * rotating} after the second`,
      price: '$1.00 / key',
      dollars: keys * PRICES.kmsKeyMonth,
    },
    {
      item: 'KMS requests DynamoDB makes for the table key',
      count: `${number(tableKeyRequests)} at most (${WARM_ENVIRONMENTS} warm environments, 12 an hour each)`,
      price: '$0.03 / 10,000',
      dollars: tableKeyRequests * PRICES.kmsRequest,
    },
    {
      item: 'KMS requests SNS makes for its encrypted topics',
      count: `${number(topicKeyRequests)} (${PUBLISHED_TOPICS} topics published to all month, 2 every 5 minutes each)`,
      price: '$0.03 / 10,000',
      dollars: topicKeyRequests * PRICES.kmsRequest,
    },
    {
      item: "SQS empty receives by Lambda's pollers",
      count: `${number(emptyReceives)} (${inv.polledQueues} queues, ${POLLERS_PER_QUEUE} pollers each, a receive every 20 s)`,
      price: '$0.40 / million',
      dollars: emptyReceives * PRICES.sqsRequest,
    },
    {
      item: `Scheduled workers (${inv.scheduledRules}, every minute): Lambda`,
      count: `${number(runs)} runs, ${number(runs * 0.25 * 0.15)} GB-s, ${(runLogGb * 1024).toFixed(0)} MB of log`,
      price: '$0.20 / million, $0.0000133334 / GB-s, $0.57 + $0.03 / GB',
      dollars:
        runs * PRICES.lambdaRequest +
        runs * 0.25 * 0.15 * PRICES.lambdaArmGbSecond +
        runLogGb * (PRICES.logsIngestedGb + PRICES.logsStoredGbMonth),
    },
    {
      item: 'Scheduled workers: DynamoDB',
      count: `${number(runs * idle.readUnitsPerRun)} RRU, ${number(runs * idle.writeUnitsPerRun)} WRU (${idle.readUnitsPerRun.toFixed(2)} and ${idle.writeUnitsPerRun.toFixed(2)} a run, measured idle; an empty Query at 0.5)`,
      price: '$0.1425 / million RRU, $0.7125 / million WRU',
      dollars: runs * (idle.readUnitsPerRun * PRICES.dynamoRead + idle.writeUnitsPerRun * PRICES.dynamoWrite),
    },
    {
      item: 'EventBridge scheduled rules',
      count: `${inv.scheduledRules}`,
      price: 'free',
      dollars: 0,
    },
    {
      item: 'DynamoDB Streams read by Lambda',
      count: `${inv.streamMappings} event source mappings`,
      price: 'free',
      dollars: 0,
    },
    {
      item: 'Secrets Manager secrets',
      count: `${inv.secrets} (webhook signing secrets are sealed with the secrets key in the table)`,
      price: '$0.40 / secret',
      dollars: inv.secrets * PRICES.secretMonth,
    },
    {
      item: 'Encryption with AWS-owned keys',
      count: `SQS ${inv.encryption['SQS queues']}; S3 ${inv.encryption['S3 buckets']}`,
      price: 'free',
      dollars: 0,
    },
  ]);
}

export function formatSendPathCost(r: SendPathCostResult): string {
  const kinds = [...new Set(r.rows.flatMap((row) => Object.keys(row.writeByKind)))].sort();
  const twenty = r.rows.find((row) => row.kb === 20)!;
  const issue17 = r.costPer100k.filter((c) => !c.added && c.item !== 'SES sending');
  const added = r.costPer100k.filter((c) => c.added);
  const ses = r.costPer100k.filter((c) => c.item === 'SES sending');
  const costLine = (c: CostRow) => `| ${c.item} | ${c.count} | ${c.price} | $${c.dollars.toFixed(2)} |`;
  return [
    '### DynamoDB units and requests per email over its life (accepted, sent, delivered, one webhook delivery)',
    '',
    '| size | emails | write units | read units | S3 PUT | S3 GET | SQS messages sent | log bytes (lines) | KMS requests | goal (20 KB: at most 30 write units) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...r.rows.map(
      (row) =>
        `| ${row.kb} KB | ${row.emails} | ${row.writePerEmail.toFixed(1)} | ${row.readPerEmail.toFixed(1)} | ${row.s3PutsPerEmail.toFixed(2)} | ${row.s3GetsPerEmail.toFixed(2)} | ${row.sqsMessagesPerEmail.toFixed(2)} | ${row.logBytesPerEmail.toFixed(0)} (${row.logLinesPerEmail.toFixed(1)}) | ${row.kmsPerEmail.toFixed(2)} | ${row.kb === 20 ? (row.writePerEmail <= 30 ? 'MET' : 'OVER') : ''} |`,
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
    `Reads DynamoDB Local answered with 0 units (an empty Query, a missing item) per 20 KB email: ${twenty.emptyReadsPerEmail.toFixed(2)}; DynamoDB bills at least 0.5 read units each, which the read units above leave out.`,
    '',
    `What each function did per 20 KB email in the local runtime (invocations seen: those that called AWS or logged; the local pollers batch as they find messages, so AWS's count differs; the scheduled workers are in the fixed costs):`,
    '',
    '| function | invocations | log lines | log bytes |',
    '|---|---:|---:|---:|',
    ...Object.entries(twenty.byFunction)
      .sort((a, b) => b[1].logBytes - a[1].logBytes || b[1].invocations - a[1].invocations)
      .map(
        ([fn, f]) => `| ${fn} | ${f.invocations.toFixed(2)} | ${f.logLines.toFixed(2)} | ${f.logBytes.toFixed(0)} |`,
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
    '### Cost per 100,000 emails of 20 KB (ap-southeast-2 list prices as assumed on 2026-11-27; Lambda on arm64)',
    '',
    '| item | count | price | dollars |',
    '|---|---|---|---:|',
    ...issue17.map(costLine),
    `| **total besides SES: issue 17's rows** | | goal under $5 | **$${r.totalBesidesSes.toFixed(2)}** (${r.totalBesidesSes < 5 ? 'MET' : 'OVER'}) |`,
    ...added.map(costLine),
    `| **total besides SES, with logs, KMS and point-in-time recovery** | | | **$${r.totalWithOperations.toFixed(2)}** |`,
    ...ses.map(costLine),
    '',
    `### Fixed monthly costs of one deployment (the stack as \`cdk synth\` builds it with cdk.json's context; ${r.inventory.functions} functions, ${r.inventory.arm64Functions} on arm64; free tiers not subtracted)`,
    '',
    '| item | count | price (a month) | dollars a month |',
    '|---|---|---|---:|',
    ...r.fixedMonthly.map(costLine),
    `| **total a month** | | | **$${r.fixedMonthlyTotal.toFixed(2)}** |`,
    '',
    `Idle runtime, ${r.idle.seconds} s: ${r.idle.runs} scheduled runs (${r.idle.others} other invocations), ${r.idle.readUnitsPerRun.toFixed(2)} read units, ${r.idle.writeUnitsPerRun.toFixed(2)} write units and ${r.idle.logBytesPerRun.toFixed(0)} log bytes a run. At 100,000 emails a month the fixed costs add $${r.fixedMonthlyTotal.toFixed(2)} per 100,000 emails (at 1,000,000 a month, $${(r.fixedMonthlyTotal / 10).toFixed(2)}).`,
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
