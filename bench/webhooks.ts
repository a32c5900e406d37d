/**
 * Webhook delivery end to end: events committed to the table (each with `eventWrite`, the
 * outbox write every change makes, 25 per transaction), through the stream, the fan-out worker,
 * the delivery queue and the dispatcher, to one receiver on 127.0.0.1 subscribed to them.
 *
 * - burst: 5,000 events committed as fast as the table takes them; deliveries per second (first
 *   commit to last receipt) and the p50/p99 time from commit (the event's `created_at`) to
 *   receipt, which here is mostly the backlog's queueing;
 * - paced: 500 events at 25/s, below capacity: the same times without a backlog.
 * Both count events lost or received twice (by `webhook-id`). For scale, the run first measures
 * DynamoDB Local's own rate of conditional puts (50 in flight): a delivery costs 3 writes (the
 * fan-out's put, the dispatcher's claim and result) and 3 reads, and everything here, DynamoDB
 * Local's Java process aside, shares one Node process, so the figures show the pipeline's shape
 * more than Lambda's speed.
 *
 * Run alone: `npx tsx bench/webhooks.ts` (BENCH_WEBHOOK_EVENTS to change the burst).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../local/runtime';
import { readSettings } from '../local/settings';
import { conditionalPutsPerSecond } from './raw-write';

export interface WebhookRun {
  name: string;
  events: number;
  commitSeconds: number;
  deliveriesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  lost: number;
  duplicated: number;
}

export interface WebhookBenchResult {
  rawPutsPerSecond: number;
  runs: WebhookRun[];
}

const KEY = `es_live_${'W'.repeat(32)}`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchWebhooks(
  burst = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 5000),
): Promise<WebhookBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-webhooks-'));
  process.env.LOG_LEVEL = 'ERROR';
  process.env.API_RATE_LIMIT_PER_SECOND = '1000000'; // counted, never refused (bench/rate-limit.ts measures the count)
  /** webhook-id -> receipt times, and the commit-to-receipt time of the first receipt */
  const receipts = new Map<string, { times: number[]; latencyMs: number }>();
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const id = String(req.headers['webhook-id']);
      const seen = receipts.get(id);
      if (seen) seen.times.push(at);
      else
        receipts.set(id, {
          times: [at],
          latencyMs: at - Date.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')).created_at),
        });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const runtime = await startLocalRuntime(
    readSettings({ PORT: '0', DATA_DIR: dataDir, DYNAMODB_IN_MEMORY: 'true', LOCAL_API_KEY: KEY, LOCAL_SES_PORT: '0' }),
    () => undefined,
  );
  try {
    // The runtime set TABLE_NAME and the endpoints in this process: write like any change does.
    const { transact } = await import('../shared/platform/db/table');
    const { eventWrite } = await import('../shared/events/events');

    const rawPutsPerSecond = await conditionalPutsPerSecond();

    const res = await fetch(`${runtime.apiUrl}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        events: ['email.delivered'],
      }),
    });
    if (res.status !== 201) throw new Error(`POST /webhooks: ${res.status} ${await res.text()}`);
    const caller = { projectId: runtime.projectId, livemode: true };
    const commit = (names: string[]) =>
      transact(names.map((id) => eventWrite(caller, 'email.delivered', { object: 'email', id })));

    const run = async (name: string, events: number, send: (names: string[]) => Promise<void>): Promise<WebhookRun> => {
      receipts.clear();
      const started = Date.now();
      await send(Array.from({ length: events }, (_, i) => `${name}-${i}`));
      const committed = Date.now();
      const deadline = committed + 300_000;
      while (receipts.size < events && Date.now() < deadline) await sleep(200);
      const last = Math.max(...[...receipts.values()].map((r) => r.times[0]));
      await sleep(2000); // late duplicates would show up here
      const latencies = [...receipts.values()].map((r) => r.latencyMs).sort((a, b) => a - b);
      const total = [...receipts.values()].reduce((n, r) => n + r.times.length, 0);
      return {
        name,
        events,
        commitSeconds: (committed - started) / 1000,
        deliveriesPerSecond: receipts.size / ((last - started) / 1000),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        lost: events - receipts.size,
        duplicated: total - receipts.size,
      };
    };

    const runs = [
      await run('burst', burst, async (names) => {
        const batches = Array.from({ length: Math.ceil(names.length / 25) }, (_, b) =>
          names.slice(b * 25, b * 25 + 25),
        );
        for (let i = 0; i < batches.length; i += 8) await Promise.all(batches.slice(i, i + 8).map(commit));
      }),
      await run('paced 25/s', 500, async (names) => {
        for (let i = 0; i < names.length; i += 5) {
          const tick = Date.now();
          await commit(names.slice(i, i + 5));
          await sleep(Math.max(0, 200 - (Date.now() - tick)));
        }
      }),
    ];
    return { rawPutsPerSecond, runs };
  } finally {
    await runtime.stop();
    await new Promise((resolve) => {
      receiver.close(resolve);
      receiver.closeAllConnections();
    });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatWebhooks(r: WebhookBenchResult): string {
  return [
    `DynamoDB Local, same run: ${r.rawPutsPerSecond.toFixed(0)} conditional puts/s (50 in flight); a delivery costs 3 writes and 3 reads.\n`,
    '| run | events | committed in | deliveries/s (first commit to last receipt) | commit to receipt p50 | p99 | lost | received twice |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...r.runs.map(
      (x) =>
        `| ${x.name} | ${x.events} | ${x.commitSeconds.toFixed(1)} s | ${x.deliveriesPerSecond.toFixed(0)}/s | ${x.p50Ms} ms | ${x.p99Ms} ms | ${x.lost} | ${x.duplicated} |`,
    ),
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchWebhooks().then(
    (result) => {
      console.log('## Webhook delivery to a local receiver\n');
      console.log(formatWebhooks(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
