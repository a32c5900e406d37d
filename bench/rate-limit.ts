/**
 * What the per-project rate limit (shared/access/rate-limit.ts) adds to a request: the same
 * requests through the local runtime with the count and without it (`API_RATE_LIMITING=off`, read
 * per request), in alternating blocks of the same run so both see the same machine, p50 and p99 of
 * each. The count runs beside the key's lookup, so it should add well under a round trip (goal:
 * under 2 ms at p50). Sequential requests: the latency, not the throughput.
 *
 * Run alone: `npx tsx bench/rate-limit.ts` (or BENCH_ONLY=ratelimit npm run bench).
 */
import { startBenchApi } from './local-api';
import { formatOnOffRows, measureOnOff, type OnOffRow } from './on-off';

const KEY = `es_live_${'R'.repeat(32)}`;

export type RateLimitRow = OnOffRow;

export async function benchRateLimit(
  blocks = Number(process.env.BENCH_BLOCKS ?? 10),
  perBlock = Number(process.env.BENCH_BLOCK_REQUESTS ?? 100),
): Promise<RateLimitRow[]> {
  const api = await startBenchApi('ratelimit', KEY);
  try {
    const contact = await api.call('POST', '/contacts', { email: 'latency@example.com' });
    let n = 0;
    const operations = [
      { operation: 'GET /api-keys', call: () => api.call('GET', '/api-keys') },
      { operation: 'GET /contacts/{id}', call: () => api.call('GET', `/contacts/${contact.id}`) },
      { operation: 'POST /contacts', call: () => api.call('POST', '/contacts', { email: `c${n++}@example.com` }) },
    ];
    const rows = await measureOnOff('API_RATE_LIMITING', operations, blocks, perBlock);
    return rows;
  } finally {
    delete process.env.API_RATE_LIMITING;
    await api.stop();
  }
}

/** The goal of issue 19: the count adds under 2 ms at p50. */
export const RATE_LIMIT_P50_GOAL_MS = 2;

export function formatRateLimit(rows: RateLimitRow[]): string {
  return [
    `Sequential requests through the local runtime, counted and not, in alternating blocks of one run (goal: under ${RATE_LIMIT_P50_GOAL_MS} ms added at p50).`,
    '',
    ...formatOnOffRows(rows),
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  void benchRateLimit().then((rows) => {
    console.log(formatRateLimit(rows));
    process.exit(0);
  });
}
