/**
 * What the request log (shared/logs/request-log.ts) costs a request: the same requests through the
 * local runtime with the log's PutItem and without it (`API_REQUEST_LOG=off`, read per request), in
 * alternating blocks of the same run so both see the same machine, p50 and p99 of each; and the
 * write units an entry costs (its DynamoDB item size, rounded up to whole KB: one standard PutItem).
 *
 * The write starts once the answer is known and is awaited beside the key's `last_used_at` before
 * the function returns (on Lambda the client gets the answer only then), so what it adds is about
 * one PutItem round trip minus the little the pipeline still does after starting it (shaping the
 * answer, the access log line). Sequential requests: the latency, not the throughput.
 *
 * Run alone: `npx tsx bench/request-log.ts` (or BENCH_ONLY=requestlog npm run bench).
 */
import { startBenchApi } from './local-api';
import { formatOnOffRows, measureOnOff, type OnOffRow } from './on-off';

const KEY = `es_live_${'L'.repeat(32)}`;

export type RequestLogRow = OnOffRow;

export interface RequestLogResult {
  rows: RequestLogRow[];
  /** entries measured, their mean and largest DynamoDB item size (bytes), and write units per request */
  entries: number;
  meanBytes: number;
  maxBytes: number;
  writeUnits: number;
}

/** DynamoDB's item size: attribute names and values (strings in UTF-8, numbers about one byte per two digits, maps and lists 3 bytes plus their elements). */
function itemBytes(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'number') return Math.ceil(String(Math.abs(value)).replace(/[.-]/g, '').length / 2) + 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, v) => sum + 1 + itemBytes(v), 0);
  return (
    3 + Object.entries(value as object).reduce((sum, [name, v]) => sum + 1 + Buffer.byteLength(name) + itemBytes(v), 0)
  );
}
/** The whole item is the top-level map without its own overhead. */
const topLevelBytes = (item: Record<string, unknown>) =>
  Object.entries(item).reduce((sum, [name, v]) => sum + Buffer.byteLength(name) + itemBytes(v), 0);

export async function benchRequestLog(
  blocks = Number(process.env.BENCH_BLOCKS ?? 10),
  perBlock = Number(process.env.BENCH_BLOCK_REQUESTS ?? 100),
): Promise<RequestLogResult> {
  const api = await startBenchApi('requestlog', KEY);
  const call = async (method: string, path: string, body?: unknown) =>
    fetch(api.runtime.apiUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        'user-agent': 'resend-node:6.38.0',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((res) => res.text());
  try {
    const contact = await api.call('POST', '/contacts', { email: 'latency@example.com' });
    let n = 0;
    const operations = [
      { operation: 'GET /api-keys (200)', call: () => call('GET', '/api-keys') },
      { operation: 'GET /contacts/{id} (200)', call: () => call('GET', `/contacts/${contact.id}`) },
      { operation: 'POST /contacts (201)', call: () => call('POST', '/contacts', { email: `c${n++}@example.com` }) },
      { operation: 'POST /contacts (422)', call: () => call('POST', '/contacts', { email: 'not an address' }) },
    ];
    const rows = await measureOnOff('API_REQUEST_LOG', operations, blocks, perBlock);
    // the entries just written (successes and 422s), as DynamoDB stores them
    const keys = await import('../shared/platform/db/keys');
    const { queryPage } = await import('../shared/platform/db/table');
    const { items } = await queryPage(keys.requestLogs(api.runtime.projectId), { limit: 1000 });
    const sizes = items.map(topLevelBytes);
    const maxBytes = Math.max(...sizes);
    return {
      rows,
      entries: items.length,
      meanBytes: sizes.reduce((a, b) => a + b, 0) / sizes.length,
      maxBytes,
      writeUnits: Math.ceil(maxBytes / 1024),
    };
  } finally {
    delete process.env.API_REQUEST_LOG;
    await api.stop();
  }
}

export function formatRequestLog(result: RequestLogResult): string {
  return [
    "Sequential requests through the local runtime, with the request log's PutItem and without it (`API_REQUEST_LOG=off`), in alternating blocks of one run. " +
      'The write starts once the answer is known and is awaited beside the rest of the pipeline before the function returns: what it adds is about one PutItem round trip to DynamoDB Local, less the shaping it overlaps. ' +
      `Its cost: ${result.writeUnits} write unit per request (a standard PutItem of up to 1 KB; the newest ${result.entries} entries measured ${result.meanBytes.toFixed(0)} bytes on average, ${result.maxBytes} at most; an error's body is bounded to 2 KB, so the largest possible entry is 3 write units).`,
    '',
    ...formatOnOffRows(result.rows),
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  void benchRequestLog().then((result) => {
    console.log(formatRequestLog(result));
    process.exit(0);
  });
}
