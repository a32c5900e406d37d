/**
 * Transactional mail behind a bulk backlog (issue 17): a broadcast to 20,000 contacts goes out at
 * the local SES's 14 a second (its backlog would take about half an hour), and meanwhile a
 * transactional email is sent every half second for a minute; each is timed from its POST /emails
 * to `sent` (GET /emails/{id} polled every 50 ms). Goal: p99 under 2 s. The lanes
 * (shared/emails/send-queue.ts, send-rate.ts) are what make it: broadcast emails wait in the bulk
 * queue and may take only the rate less a fifth of each second.
 *
 * The contacts are written straight into the table (a BatchWrite of each contact and its segment
 * membership, as POST /contacts would leave them): creating 20,000 through the API would take the
 * benchmark's minutes for nothing it measures.
 *
 * Run alone: `npx tsx bench/transactional-latency.ts` (BENCH_BULK_CONTACTS, BENCH_LATENCY_SECONDS).
 */
import { startBenchApi } from './local-api';
import { signedFetch } from '../local/aws/sigv4';

const KEY = `es_live_${'D'.repeat(32)}`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export interface TransactionalLatencyResult {
  contacts: number;
  rate: number;
  samples: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** broadcast emails sent while the samples were taken, a second */
  bulkPerSecond: number;
  /** broadcast emails still to send when the samples ended */
  backlogAtEnd: number;
}

export async function benchTransactionalLatency(
  contacts = Number(process.env.BENCH_BULK_CONTACTS ?? 20_000),
  seconds = Number(process.env.BENCH_LATENCY_SECONDS ?? 60),
): Promise<TransactionalLatencyResult> {
  delete process.env.SEND_RATE_PER_SECOND; // the rate SES reports: 14
  const { runtime, call, stop } = await startBenchApi('latency', KEY, { LOCAL_SES_MAX_SEND_RATE: '14' });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    const keys = await import('../shared/platform/db/keys');
    const { documentClient, tableName } = await import('../shared/platform/db/client');
    const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
    const { newId } = await import('../shared/platform/ids');
    const domain = await call('POST', '/domains', { name: 'latency.example.com' });
    await call('POST', `/domains/${domain.id}/verify`);
    const segment = await call('POST', '/segments', { name: 'everyone' });
    const projectId = runtime.projectId;
    const at = new Date().toISOString();
    const items = Array.from({ length: contacts }, (_, i) => {
      const id = newId();
      const base = { project_id: projectId, created_at: at, updated_at: at };
      return [
        {
          ...keys.contact(projectId, id),
          ...base,
          type: 'contact',
          id,
          email: `reader${i}@example.com`,
          first_name: null,
          last_name: null,
          unsubscribed: false,
          segment_ids: [segment.id],
          topics: {},
          properties: {},
        },
        {
          ...keys.segmentMember(projectId, segment.id, id),
          ...base,
          type: 'segment_member',
          segment_id: segment.id,
          contact_id: id,
        },
      ];
    }).flat();
    for (let i = 0; i < items.length; i += 25 * 8) {
      await Promise.all(
        Array.from({ length: 8 }, async (_, j) => {
          let pending = items.slice(i + j * 25, i + (j + 1) * 25).map((Item) => ({ PutRequest: { Item } }));
          while (pending.length) {
            const out = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
            pending = (out.UnprocessedItems?.[tableName()] ?? []) as typeof pending;
          }
        }),
      );
    }
    const broadcast = await call('POST', '/broadcasts', {
      segment_id: segment.id,
      from: 'News <news@latency.example.com>',
      subject: 'Bulk',
      html: '<p>bulk</p>',
    });
    await call('POST', `/broadcasts/${broadcast.id}/send`, {});
    // a backlog first: the fan-out well ahead of what SES can take
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(1000))
      if ((await call('GET', `/broadcasts/${broadcast.id}`)).counters.sent >= 1000) break;

    /** Sends the local SES accepted so far. */
    const sesAccepted = async (): Promise<number> => {
      const stats = (await signedFetch(`${runtime.sesEndpoint}/_local/send-stats`, runtime.credentials, 'ses').then(
        (r) => r.json(),
      )) as { perSecond: Record<string, number> };
      return Object.values(stats.perSecond).reduce((a, b) => a + b, 0);
    };
    const sentBefore = await sesAccepted();
    const latencies: number[] = [];
    const waits: Promise<void>[] = [];
    const started = Date.now();
    for (let n = 0; Date.now() - started < seconds * 1000; n++) {
      const t0 = Date.now();
      const { id } = await call('POST', '/emails', {
        from: 'alerts@latency.example.com',
        to: 'success@simulator.amazonses.com',
        subject: `reset ${n}`,
        text: 'your code',
      });
      waits.push(
        (async () => {
          for (const deadline = t0 + 60_000; Date.now() < deadline; await sleep(50)) {
            if (['sent', 'delivered'].includes((await call('GET', `/emails/${id}`)).last_event)) {
              latencies.push(Date.now() - t0);
              return;
            }
          }
          latencies.push(60_000);
        })(),
      );
      await sleep(Math.max(0, t0 + 500 - Date.now()));
    }
    await Promise.all(waits);
    const elapsed = (Date.now() - started) / 1000;
    const sentAfter = await sesAccepted();
    const final = await call('GET', `/broadcasts/${broadcast.id}`);
    const sorted = [...latencies].sort((a, b) => a - b);
    return {
      contacts,
      rate: 14,
      samples: sorted.length,
      p50Ms: percentile(sorted, 50),
      p95Ms: percentile(sorted, 95),
      p99Ms: percentile(sorted, 99),
      maxMs: sorted[sorted.length - 1],
      bulkPerSecond: (sentAfter - sentBefore - sorted.length) / elapsed,
      backlogAtEnd: final.counters.recipients - (sentAfter - sorted.length), // SES's count since the start: the broadcast's and ours
    };
  } finally {
    await stop();
  }
}

export const transactionalLatencyMet = (r: TransactionalLatencyResult) => r.p99Ms <= 2000;

export function formatTransactionalLatency(r: TransactionalLatencyResult): string {
  return [
    '| broadcast | SES rate | transactional emails | POST to `sent` p50 | p95 | p99 | max | bulk sent meanwhile | bulk backlog at the end | goal (p99 under 2 s) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    `| ${r.contacts.toLocaleString('en')} contacts | ${r.rate}/s | ${r.samples} | ${r.p50Ms} ms | ${r.p95Ms} ms | ${r.p99Ms} ms | ${r.maxMs} ms | ${r.bulkPerSecond.toFixed(1)}/s | ${r.backlogAtEnd.toLocaleString('en')} | ${transactionalLatencyMet(r) ? 'MET' : 'NOT MET'} |`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchTransactionalLatency().then(
    (result) => {
      console.log('## Transactional latency under a bulk backlog\n');
      console.log(formatTransactionalLatency(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
