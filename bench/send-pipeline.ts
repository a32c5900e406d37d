/**
 * The send pipeline under a configured rate: 2,000 emails through POST /emails/batch, the send
 * queue, the sender workers and the local SES, with the account rate set to 50/s
 * (SEND_RATE_PER_SECOND) and the local SES allowing far more, so only our limiter holds the
 * rate. Prints the achieved rate, the busiest second seen by SES, and emails lost or sent twice
 * (counted from the mail store, one unique subject per email).
 *
 * Run alone: `npx tsx bench/send-pipeline.ts` (BENCH_EMAILS, BENCH_RATE to change the figures).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../lib/local/ports';
import { startLocalRuntime } from '../lib/local/runtime';
import { readSettings } from '../lib/local/settings';

export interface SendPipelineResult {
  emails: number;
  rateLimit: number;
  achievedRate: number;
  busiestSecond: number;
  lost: number;
  duplicated: number;
  seconds: number;
}

const KEY = `es_live_${'B'.repeat(32)}`;

export async function benchSendPipeline(emails = Number(process.env.BENCH_EMAILS ?? 2000), rate = Number(process.env.BENCH_RATE ?? 50)): Promise<SendPipelineResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-send-'));
  process.env.SEND_RATE_PER_SECOND = String(rate);
  process.env.LOG_LEVEL = 'ERROR';
  const runtime = await startLocalRuntime(
    {
      ...readSettings({
        PORT: '0',
        DATA_DIR: dataDir,
        DYNAMODB_IN_MEMORY: 'true',
        LOCAL_API_KEY: KEY,
        LOCAL_SES_PORT: String(await freePort()),
        LOCAL_SES_MAX_SEND_RATE: String(rate * 20),
        LOCAL_SES_VERIFY_DELAY_MS: '0',
        LOCAL_SCHEDULE_INTERVAL_SECONDS: '5',
      }),
    },
    () => undefined,
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(runtime.apiUrl + path, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<any>;
  };
  try {
    const domain = await call('POST', '/domains', { name: 'bench.example.com' });
    await call('POST', `/domains/${domain.id}/verify`);
    const started = Date.now();
    for (let i = 0; i < emails; i += 100) {
      const batch = Array.from({ length: Math.min(100, emails - i) }, (_, j) => ({
        from: 'bench@bench.example.com',
        to: `r${i + j}@example.com`,
        subject: `bench-${i + j}`,
        text: 'x',
      }));
      await call('POST', '/emails/batch', batch);
    }
    type Stored = { subject: string };
    let stored: Stored[] = [];
    const deadline = started + (emails / rate) * 1000 * 3 + 60_000;
    while (Date.now() < deadline) {
      stored = ((await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as { emails: Stored[] }).emails.filter((e) => e.subject.startsWith('bench-'));
      if (new Set(stored.map((e) => e.subject)).size >= emails) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 2000)); // late duplicates would show up here
    stored = ((await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as { emails: Stored[] }).emails.filter((e) => e.subject.startsWith('bench-'));
    const unique = new Set(stored.map((e) => e.subject)).size;
    // Counted where SES receives the calls (the local SES front), by second of arrival.
    const { perSecond } = (await fetch(`${runtime.sesEndpoint}/_local/send-stats`).then((r) => r.json())) as { perSecond: Record<string, number> };
    const seconds = Object.keys(perSecond).map(Number).sort((a, b) => a - b);
    const span = seconds[seconds.length - 1] - seconds[0] + 1;
    return {
      emails,
      rateLimit: rate,
      achievedRate: stored.length / Math.max(span, 1),
      busiestSecond: Math.max(...Object.values(perSecond)),
      lost: emails - unique,
      duplicated: stored.length - unique,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatSendPipeline(r: SendPipelineResult): string {
  const ok = r.busiestSecond <= r.rateLimit && r.lost === 0 && r.duplicated === 0;
  return [
    '| emails | rate limit | achieved rate | busiest second (SES) | lost | sent twice | wall time | budget |',
    '|---:|---:|---:|---:|---:|---:|---:|---|',
    `| ${r.emails} | ${r.rateLimit}/s | ${r.achievedRate.toFixed(1)}/s | ${r.busiestSecond} | ${r.lost} | ${r.duplicated} | ${r.seconds.toFixed(1)} s | ${ok ? 'MET' : 'NOT MET'} |`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchSendPipeline().then(
    (result) => {
      console.log('## Send pipeline at a configured rate\n');
      console.log(formatSendPipeline(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
