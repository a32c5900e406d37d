/**
 * The latency a feature adds, measured as the rate limiter's and the request log's benchmarks do:
 * each operation warmed, then alternating blocks of requests with the feature off and on (an
 * environment variable the running handlers read per request), so both see the same machine.
 */
export interface OnOffRow {
  operation: string;
  requests: number;
  withoutP50: number;
  withoutP99: number;
  withP50: number;
  withP99: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
};

export async function measureOnOff(
  variable: string,
  operations: { operation: string; call: () => Promise<unknown> }[],
  blocks: number,
  perBlock: number,
): Promise<OnOffRow[]> {
  const rows: OnOffRow[] = [];
  for (const op of operations) {
    const times = { on: [] as number[], off: [] as number[] };
    for (let i = 0; i < 20; i++) await op.call(); // warm: the function, its clients, the key's project known
    for (let block = 0; block < blocks * 2; block++) {
      const mode = block % 2 === 0 ? 'off' : 'on';
      process.env[variable] = mode;
      for (let i = 0; i < perBlock; i++) {
        const started = process.hrtime.bigint();
        await op.call();
        times[mode].push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    delete process.env[variable];
    rows.push({
      operation: op.operation,
      requests: times.on.length,
      withoutP50: percentile(times.off, 50),
      withoutP99: percentile(times.off, 99),
      withP50: percentile(times.on, 50),
      withP99: percentile(times.on, 99),
    });
  }
  return rows;
}

/** The rows as RESULTS.md shows them: each operation's p50 and p99 without and with the feature, and what it adds. */
export function formatOnOffRows(rows: OnOffRow[]): string[] {
  return [
    '| operation | requests each way | without: p50 / p99 (ms) | with: p50 / p99 (ms) | added at p50 / p99 (ms) |',
    '|---|---:|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.operation} | ${r.requests} | ${r.withoutP50.toFixed(2)} / ${r.withoutP99.toFixed(2)} | ${r.withP50.toFixed(2)} / ${r.withP99.toFixed(2)} | ${(r.withP50 - r.withoutP50).toFixed(2)} / ${(r.withP99 - r.withoutP99).toFixed(2)} |`,
    ),
  ];
}
