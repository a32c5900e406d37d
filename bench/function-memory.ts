/**
 * Memory for the API functions, chosen by measurement and Lambda's CPU model: a function gets CPU in
 * proportion to its memory, one full vCPU at 1,769 MB (AWS Lambda documentation), so 256 MB is
 * about a seventh of one. Measured here on a full core of this machine:
 * - cold: the CPU a fresh process spends importing the function's bundle as deployed (lib/bundling.ts
 *   `bundleOptions`), median of BENCH_RUNS processes;
 * - warm: a few operations through the local runtime started in this process, sequentially: the wall
 *   time per request, and the CPU this process spends per request (the handler, the HTTP stack, the
 *   SDK; DynamoDB Local is a process of its own, so its time is waiting, as DynamoDB's is on AWS),
 *   less what the runtime's idle pollers spend meanwhile (measured over a quiet second before each
 *   operation). POST /emails also counts the sender's work on the emails it accepted (another
 *   function on AWS): its CPU figure is an overestimate.
 * The model at M MB: share = min(1, M / 1769); cold = cpu / share; warm = (wall - cpu) + cpu / share;
 * cost per million warm requests = $0.20 + M / 1024 x warm seconds x 1e6 x $0.0000133334 (arm64 list
 * prices). Local waits (DynamoDB Local, the local S3) are slower than AWS's, so the absolute warm
 * figures are pessimistic; the CPU part and its scaling are what the choice rests on.
 *
 * Run alone: `npx tsx bench/function-memory.ts` (or BENCH_ONLY=memory npm run bench).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from '../lib/bundling';
import { startBenchApi } from './local-api';

const root = join(__dirname, '..');
const KEY = `es_live_${'M'.repeat(32)}`;
export const MEMORY_SIZES = [256, 512, 1024];
const FULL_VCPU_MB = 1769;
const GB_SECOND_USD = 0.0000133334;
const REQUEST_USD = 0.2 / 1e6;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface MemoryRow {
  operation: string;
  handler: string;
  coldCpuMs: number;
  warmWallMs: number;
  warmCpuMs: number;
  /** per memory size: modeled cold start (module part) and warm latency in ms, cost per million warm requests in USD */
  model: { memoryMb: number; coldMs: number; warmMs: number; usdPerMillion: number }[];
}

const share = (memoryMb: number) => Math.min(1, memoryMb / FULL_VCPU_MB);

function modelFor(coldCpuMs: number, warmWallMs: number, warmCpuMs: number) {
  return MEMORY_SIZES.map((memoryMb) => {
    const warmMs = warmWallMs - warmCpuMs + warmCpuMs / share(memoryMb);
    return {
      memoryMb,
      coldMs: coldCpuMs / share(memoryMb),
      warmMs,
      usdPerMillion: (REQUEST_USD + (memoryMb / 1024) * (Math.ceil(warmMs) / 1000) * GB_SECOND_USD) * 1e6,
    };
  });
}

/** CPU ms a fresh process spends importing `functions/<handler>.ts` bundled as deployed. */
async function coldCpuMs(handler: string, dir: string, runs: number): Promise<number> {
  const outfile = join(dir, `${handler.replace(/\//g, '-')}.mjs`);
  await build({ ...bundleOptions(root, join(root, 'functions', `${handler}.ts`)), outfile });
  const loader =
    'const c=process.cpuUsage();import(process.argv[1]).then(()=>{const u=process.cpuUsage(c);process.stdout.write(String((u.user+u.system)/1000))})';
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', loader, outfile], {
      env: {
        ...process.env,
        AWS_REGION: 'ap-southeast-2',
        TABLE_NAME: 'bench',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      encoding: 'utf8',
    });
    if (out.status !== 0) throw new Error(`${handler} failed to load: ${out.stderr}`);
    times.push(Number(out.stdout));
  }
  return median(times);
}

export async function benchFunctionMemory(
  runs = Number(process.env.BENCH_RUNS ?? 7),
  requests = Number(process.env.BENCH_REQUESTS ?? 200),
): Promise<MemoryRow[]> {
  const api = await startBenchApi('memory', KEY);
  const dir = mkdtempSync(join(tmpdir(), 'email-service-bench-memory-'));
  try {
    const domain = await api.call('POST', '/domains', { name: 'memory-bench.example.com' });
    for (let i = 0; i < 50 && (await api.call('POST', `/domains/${domain.id}/verify`)).status !== 'verified'; i++)
      await new Promise((r) => setTimeout(r, 100));
    const contact = await api.call('POST', '/contacts', { email: 'first@example.com' });
    const email = await api.call('POST', '/emails', {
      from: 'bench@memory-bench.example.com',
      to: 'reader@example.com',
      subject: 'Hello',
      html: `<p>${'x'.repeat(20_000)}</p>`,
    });
    let n = 0;
    const operations: { operation: string; handler: string; call: () => Promise<unknown> }[] = [
      { operation: 'GET /emails/{id}', handler: 'emails/get', call: () => api.call('GET', `/emails/${email.id}`) },
      {
        operation: 'POST /emails (20 KB html)',
        handler: 'emails/send',
        call: () =>
          api.call('POST', '/emails', {
            from: 'bench@memory-bench.example.com',
            to: `reader${n++}@example.com`,
            subject: 'Hello',
            html: `<p>${'x'.repeat(20_000)}</p>`,
          }),
      },
      {
        operation: 'POST /contacts',
        handler: 'contacts/create',
        call: () => api.call('POST', '/contacts', { email: `contact${n++}@example.com` }),
      },
      {
        operation: 'GET /contacts/{id}',
        handler: 'contacts/get',
        call: () => api.call('GET', `/contacts/${contact.id}`),
      },
      {
        operation: 'GET /emails (a page of 20)',
        handler: 'emails/list',
        call: () => api.call('GET', '/emails?limit=20'),
      },
    ];
    const rows: MemoryRow[] = [];
    const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
    for (const op of operations) {
      for (let i = 0; i < 10; i++) await op.call(); // warm the function and its clients
      await new Promise((r) => setTimeout(r, 2000)); // the warm-up's background work (sends) done
      const quiet = process.cpuUsage();
      const quietStarted = Date.now();
      await new Promise((r) => setTimeout(r, 1000));
      const idleCpuPerMs = cpuMs(process.cpuUsage(quiet)) / (Date.now() - quietStarted);
      const walls: number[] = [];
      const before = process.cpuUsage();
      const started = Date.now();
      for (let i = 0; i < requests; i++) {
        const t = process.hrtime.bigint();
        await op.call();
        walls.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
      const warmCpuMs = Math.max(0, cpuMs(process.cpuUsage(before)) - idleCpuPerMs * (Date.now() - started)) / requests;
      const warmWallMs = median(walls);
      const cold = await coldCpuMs(op.handler, dir, runs);
      rows.push({
        operation: op.operation,
        handler: op.handler,
        coldCpuMs: cold,
        warmWallMs,
        warmCpuMs,
        model: modelFor(cold, warmWallMs, Math.min(warmCpuMs, warmWallMs)),
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await api.stop();
  }
}

export function formatFunctionMemory(rows: MemoryRow[]): string {
  const header = `| operation | measured: cold CPU / warm wall / warm CPU (ms) | ${MEMORY_SIZES.map((m) => `${m} MB: cold / warm ms, $ per 1M`).join(' | ')} |`;
  const lines = rows.map(
    (r) =>
      `| ${r.operation} | ${r.coldCpuMs.toFixed(0)} / ${r.warmWallMs.toFixed(1)} / ${r.warmCpuMs.toFixed(1)} | ${r.model
        .map((m) => `${m.coldMs.toFixed(0)} / ${m.warmMs.toFixed(0)}, $${m.usdPerMillion.toFixed(2)}`)
        .join(' | ')} |`,
  );
  return [
    `Lambda's CPU share is memory / ${FULL_VCPU_MB} MB; the model scales the measured CPU by it (the module comment says how).`,
    '',
    header,
    `|---|---|${MEMORY_SIZES.map(() => '---').join('|')}|`,
    ...lines,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchFunctionMemory().then(
    (rows) => {
      console.log('## API function memory: measured CPU, modeled at 256 / 512 / 1024 MB\n');
      console.log(formatFunctionMemory(rows));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
