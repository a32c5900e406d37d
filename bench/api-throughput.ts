/**
 * API throughput of the local runtime: POST /contacts over real HTTP (the gateway, the handler's
 * middleware, validation, one TransactWriteItems of the contact, its address claim, its event and a
 * contact counter), beside the raw rate of the same DynamoDB Local in the same run, each with the
 * same number of requests in flight: PutItem of contact-shaped items; a two-item transaction (the
 * contact and its claim); the four-item transaction a create writes (issue 39's yardstick); and
 * every DynamoDB call a POST /contacts makes, in its order, without the service's Node work (the
 * API key's GetItem beside the rate window's UpdateItem, the property schema's GetItem beside the 8
 * contact counters' BatchGet, the transaction, the request log's PutItem).
 *
 * Run alone: `npx tsx bench/api-throughput.ts` (BENCH_REQUESTS, BENCH_CONCURRENCY).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../local/runtime';
import { readSettings } from '../local/settings';

export interface ApiThroughputResult {
  requests: number;
  concurrency: number;
  apiPerSecond: number;
  apiP50Ms: number;
  apiP99Ms: number;
  rawPutsPerSecond: number;
  rawTransactionsPerSecond: number;
  /** the transaction POST /contacts writes (4 items), raw */
  rawCreateTransactionsPerSecond: number;
  /** every DynamoDB call a POST /contacts makes, raw, one request's worth at a time */
  rawRequestCallsPerSecond: number;
  failures: number;
}

const KEY = `es_live_${'T'.repeat(32)}`;

async function timed(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

export async function benchApiThroughput(
  requests = Number(process.env.BENCH_REQUESTS ?? 3000),
  concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16),
): Promise<ApiThroughputResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-api-'));
  process.env.LOG_LEVEL = 'ERROR';
  process.env.API_RATE_LIMIT_PER_SECOND = '1000000'; // counted, never refused (bench/rate-limit.ts measures the count)
  const runtime = await startLocalRuntime(
    readSettings({ PORT: '0', DATA_DIR: dataDir, DYNAMODB_IN_MEMORY: 'true', LOCAL_API_KEY: KEY, LOCAL_SES_PORT: '0' }),
    () => undefined,
  );
  try {
    const { put, putItem, transact } = await import('../shared/platform/db/table');
    const keys = await import('../shared/platform/db/keys');
    const { newId, nowIso } = await import('../shared/platform/ids');
    const contactItem = (projectId: string, i: number, prefix: string) => {
      const id = newId();
      const at = nowIso();
      return {
        ...keys.contact(projectId, id),
        type: 'contact',
        project_id: projectId,
        id,
        email: `${prefix}${i}@bench.example.com`,
        first_name: 'Bench',
        last_name: null,
        unsubscribed: false,
        properties: { plan: 'pro' },
        segment_ids: [],
        topics: {},
        created_at: at,
        updated_at: at,
      };
    };
    // warm-up: the JVM's compiler and the handler modules, not counted
    const warm = newId();
    await timed(500, concurrency, (i) => putItem(put(contactItem(warm, i, 'warm'))));
    const post = (i: number, prefix: string) =>
      fetch(`${runtime.apiUrl}/contacts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `${prefix}${i}@bench.example.com`,
          first_name: 'Bench',
          properties: { plan: 'pro' },
        }),
      });
    await timed(200, concurrency, async (i) => void (await (await post(i, 'warm')).text()));

    const latencies: number[] = [];
    let failures = 0;
    const apiSeconds = await timed(requests, concurrency, async (i) => {
      const started = process.hrtime.bigint();
      const res = await post(i, 'api');
      await res.text();
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (res.status !== 201) failures++;
    });
    const raw = newId();
    const putSeconds = await timed(requests, concurrency, (i) => putItem(put(contactItem(raw, i, 'raw'))));
    const txSeconds = await timed(requests, concurrency, async (i) => {
      const item = contactItem(raw, i, 'tx');
      await transact([
        put(item, { ifAbsent: () => new Error('exists') }),
        put(
          { ...keys.contactEmail(raw, item.email), type: 'contact_email', project_id: raw, contact_id: item.id },
          { ifAbsent: () => new Error('taken') },
        ),
      ]);
    });
    // the transaction POST /contacts writes (no segments or topics): the contact, its address claim, contact.created, a counter
    const { eventWrite } = await import('../shared/events/events');
    const { contactCountWrite, contactCount } = await import('../shared/project/contact-count');
    const { getItem, updateItem, update } = await import('../shared/platform/db/table');
    const caller = { projectId: raw, livemode: true };
    const createWrites = (i: number, prefix: string) => {
      const item = contactItem(raw, i, prefix);
      return [
        put(item, { ifAbsent: () => new Error('exists') }),
        put(
          { ...keys.contactEmail(raw, item.email), type: 'contact_email', project_id: raw, contact_id: item.id },
          { ifAbsent: () => new Error('taken') },
        ),
        eventWrite(caller, 'contact.created', { object: 'contact', id: item.id, email: item.email }),
        contactCountWrite(raw, 1),
      ];
    };
    const createTxSeconds = await timed(requests, concurrency, (i) => transact(createWrites(i, 'ctx')));
    // every DynamoDB call of a POST /contacts, as the request makes them, without the service's Node work: the key
    // lookup and the rate window (together), the property schema and the contact counters (together), the
    // transaction, the request log
    const allCallsSeconds = await timed(requests, concurrency, async (i) => {
      const second = Math.floor(Date.now() / 1000);
      await Promise.all([
        getItem(keys.apiKeyHash('0'.repeat(64)), false),
        updateItem(update(keys.rateWindow(raw, second), { add: { count: 1 }, set: { expires_at: second + 120 } })),
      ]);
      await Promise.all([getItem(keys.contactProperties(raw)), contactCount(raw)]);
      await transact(createWrites(i, 'all'));
      await putItem(
        put({ ...keys.requestLog(raw, newId()), type: 'request_log', endpoint: '/contacts', method: 'POST' }),
      );
    });
    latencies.sort((a, b) => a - b);
    return {
      rawCreateTransactionsPerSecond: requests / createTxSeconds,
      rawRequestCallsPerSecond: requests / allCallsSeconds,
      requests,
      concurrency,
      apiPerSecond: requests / apiSeconds,
      apiP50Ms: percentile(latencies, 50),
      apiP99Ms: percentile(latencies, 99),
      rawPutsPerSecond: requests / putSeconds,
      rawTransactionsPerSecond: requests / txSeconds,
      failures,
    };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatApiThroughput(r: ApiThroughputResult): string {
  const share = (rate: number) => `${((rate / r.rawPutsPerSecond) * 100).toFixed(0)}%`;
  return [
    `${r.requests.toLocaleString('en')} requests per row, ${r.concurrency} in flight; the runtime and DynamoDB Local on the same machine.\n`,
    '| run | rate | vs raw PutItem | latency p50 / p99 |',
    '|---|---:|---:|---:|',
    `| raw DynamoDB Local PutItem (a contact item) | ${r.rawPutsPerSecond.toFixed(0)}/s | 100% | |`,
    `| raw DynamoDB Local TransactWriteItems (contact + address claim, as a create writes) | ${r.rawTransactionsPerSecond.toFixed(0)}/s | ${share(r.rawTransactionsPerSecond)} | |`,
    `| raw DynamoDB Local TransactWriteItems of what POST /contacts writes (contact, claim, contact.created, a contact counter) | ${r.rawCreateTransactionsPerSecond.toFixed(0)}/s | ${share(r.rawCreateTransactionsPerSecond)} | |`,
    `| raw DynamoDB Local: every call of a POST /contacts (key GetItem + rate window UpdateItem; property schema GetItem + 8 counters BatchGet; the transaction; the request log PutItem) | ${r.rawRequestCallsPerSecond.toFixed(0)}/s | ${share(r.rawRequestCallsPerSecond)} | |`,
    `| POST /contacts through the local runtime (HTTP, auth, validation, the transaction) | ${r.apiPerSecond.toFixed(0)}/s | ${share(r.apiPerSecond)} | ${r.apiP50Ms.toFixed(1)} / ${r.apiP99Ms.toFixed(1)} ms |`,
    '',
    `POST /contacts against the transaction it writes: ${((r.apiPerSecond / r.rawCreateTransactionsPerSecond) * 100).toFixed(0)}% (issue 39's goal: >= 90%); against every call it makes, raw: ${((r.apiPerSecond / r.rawRequestCallsPerSecond) * 100).toFixed(0)}%.`,
    '',
    `Failures (not 201): ${r.failures}.`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchApiThroughput().then(
    (result) => {
      console.log('## API throughput: POST /contacts beside raw DynamoDB Local writes\n');
      console.log(formatApiThroughput(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
