/**
 * CPU per request, warm (issue 39): the CPU time a warm invocation uses, beside the DynamoDB calls
 * it makes, for POST /emails, POST /emails/batch (per email), GET /emails/{id}, POST /contacts, the
 * sender (per email), the email-status worker (per SES event) and the webhook dispatcher (per
 * delivery). CPU is what Lambda bills and what a 512 MB function has a third of a core for.
 *
 * How it is measured: the local runtime runs in this process, and every function it runs (an API
 * route through the HTTP gateway, a queue or stream worker through its poller, a schedule) goes
 * through one call, `invoke` (local/lambda/invocation.ts). Before the runtime loads, that export is
 * replaced in the module cache by a wrapper that
 * - lets one invocation run at a time in the whole process (the others wait for their turn before
 *   their invocation starts), so no other function's CPU lands in an invocation's figure;
 * - reads `process.cpuUsage()` (the process's CPU, all its threads: V8's collector too; waiting
 *   for I/O uses none, so DynamoDB Local, a Java process of its own, is outside it, as DynamoDB is
 *   on AWS) around the invocation: the whole window;
 * - splits that window with an async hook: the CPU of every callback that runs in an invocation's
 *   async context (the handler and its SDK clients: one invocation runs at a time, and a keep-alive
 *   socket an earlier one opened calls back in that one's context) is the function's, the figure
 *   reported and budgeted; the CPU of the stand-ins' servers, which serve the invocation's own
 *   calls to SQS, SES, S3 and KMS in this process (marked when they start listening), is shown
 *   apart; the rest (the idle queue and stream pollers, the drain, the gateway) is left out. The
 *   hook costs 3-10% of the window (compared with windows without it while this was written), part
 *   of which lands in the function's figure;
 * - counts the invocation's AWS calls at the call guard every client passes
 *   (shared/platform/aws/call-guard.ts): DynamoDB's, and the others'.
 * Each operation is warmed up first (module init, JIT, keep-alive connections), then sampled one
 * request at a time, each followed by a drain of the pipeline (`POST /_local/drain`), so the
 * workers' invocations a request causes are sampled too, one at a time. Emails carry 20 KB of HTML
 * (the cost section's email) to the mailbox simulator (`success@`); the webhook receiver is a
 * process of its own. Budgets are per item (a request, an email, an event, a delivery): CPU_BUDGET_MS.
 *
 * Run alone: `npx tsx bench/cpu-per-request.ts` (BENCH_CPU_SAMPLES: requests per API operation,
 * default 200; BENCH_CPU_BATCHES: POST /emails/batch requests of BATCH_SIZE emails, default 30), or
 * `BENCH_ONLY=cpu npm run bench`.
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { Server as NetServer } from 'node:net';
import type * as Invocation from '../local/lambda/invocation';
import type { AwsCall } from '../shared/platform/aws/call-guard';

const KEY = `es_live_${'U'.repeat(32)}`;
/** Emails per POST /emails/batch request. */
export const BATCH_SIZE = 50;
/** Requests before sampling an API operation (module init, JIT, keep-alive connections); the workers warm up meanwhile. */
const WARM_UP = 100;
/** Batches before sampling POST /emails/batch (the workers are warm by then). */
const BATCH_WARM_UP = 5;

/**
 * Budgets: the function's CPU ms per item (a request; an email for the batch and the sender; an SES
 * event; a webhook delivery), median. Set at about 1.5x the medians of the first run (2026-11-27 at
 * d1c4984, 2 x AMD EPYC, Node 20, an otherwise quiet machine: 6.47, 0.82, 4.28, 5.11, 5.45, 4.30,
 * 0.90 and 2.62 ms in this order), rounded: a change that makes an operation clearly dearer shows as
 * OVER. Most of each is 0.6-0.9 ms per AWS call, the SDK's (a CPU profile of this benchmark has
 * its serialising, signing, retry and endpoint middleware on top, and no function of ours above
 * 0.2% of the process's CPU), so a call saved is the largest saving there is.
 */
export const CPU_BUDGET_MS: Record<string, number> = {
  'POST /emails': 10,
  'POST /emails/batch': 1.25,
  'GET /emails/{id}': 6.5,
  'POST /contacts': 7.5,
  'sender, 1 email an invocation': 8,
  'sender, batches': 6.5,
  'email-status': 1.4,
  'webhook dispatcher': 4,
};

export interface Stat {
  median: number;
  p90: number;
}

export interface CpuRow {
  operation: string;
  /** what one item is: request, email, event, delivery */
  item: string;
  invocations: number;
  itemsPerInvocation: number;
  /** the function's CPU (its async context), per invocation and per item */
  cpuMs: Stat;
  perItemMs: Stat;
  /** the whole window's CPU and the stand-ins' part of it, per invocation (medians) */
  windowMs: number;
  standInsMs: number;
  wallMs: number;
  /** DynamoDB calls per invocation (mean), by operation */
  dynamoCalls: number;
  dynamoByOperation: Record<string, number>;
  /** other AWS calls per invocation (mean), by service and operation: their stand-ins run in this process */
  otherCalls: Record<string, number>;
  budgetMs: number;
  met: boolean;
}

export interface CpuResult {
  rows: CpuRow[];
  samples: number;
  batches: number;
  seconds: number;
}

interface Sample {
  pass: string;
  fn: string;
  items: number;
  windowUs: number;
  ownUs: number;
  standInUs: number;
  wallMs: number;
  dynamo: Record<string, number>;
  other: Record<string, number>;
}

const cpuUs = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

const stat = (values: number[]): Stat => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
  return { median: at(50), p90: at(90) };
};

/** The servers opened while the runtime starts (the stand-ins, the gateway), each marking the code it runs. */
const server = new AsyncLocalStorage<NetServer>();
function markServers(): { unmark: () => void; opened: NetServer[] } {
  const listen = NetServer.prototype.listen;
  const opened: NetServer[] = [];
  NetServer.prototype.listen = function (this: NetServer, ...args: unknown[]) {
    opened.push(this);
    return server.run(this, () => (listen as (...a: unknown[]) => NetServer).apply(this, args));
  } as typeof NetServer.prototype.listen;
  return {
    opened,
    unmark: () => {
      NetServer.prototype.listen = listen;
    },
  };
}

/**
 * Replaces `invoke` in the module cache, before anything that imports it loads, with the measuring,
 * one-at-a-time wrapper the module comment describes. Samples are taken while a pass is named.
 */
function hookInvocations() {
  const path = require.resolve('../local/lambda/invocation');
  const original = require('../local/lambda/invocation') as typeof Invocation;
  const samples: Sample[] = [];
  let pass: string | undefined;
  let turn: Promise<unknown> = Promise.resolve();

  // the window being measured: which kind of code has run since `at`
  type Kind = 'own' | 'standIn' | 'rest';
  let window: { kind: Kind; at: number; own: number; standIn: number } | undefined;
  /** the HTTP gateway's server: its code (the drain between samples) is the rest, not a stand-in's */
  let gateway: NetServer | undefined;
  const switchTo = (kind: Kind) => {
    if (!window || window.kind === kind) return;
    const now = cpuUs();
    if (window.kind !== 'rest') window[window.kind] += now - window.at;
    window.at = now;
    window.kind = kind;
  };
  const hook = createHook({
    before() {
      if (!window) return;
      // any invocation's code is the function's: one runs at a time, and a keep-alive socket an
      // earlier invocation opened runs its callbacks in that one's context
      const from = server.getStore();
      switchTo(original.currentInvocation() ? 'own' : from && from !== gateway ? 'standIn' : 'rest');
    },
  });

  let calls: { dynamo: Record<string, number>; other: Record<string, number> } | undefined;
  const countCall = (call: AwsCall) => {
    if (!calls || !original.currentInvocation()) return;
    const op = call.operation.replace(/Command$/, '');
    if (call.service === 'dynamodb') calls.dynamo[op] = (calls.dynamo[op] ?? 0) + 1;
    else {
      const name = `${call.service.toUpperCase()} ${op}`;
      calls.other[name] = (calls.other[name] ?? 0) + 1;
    }
  };

  const run = async (...[fn, handler, event, requestId]: Parameters<typeof original.invoke>) => {
    const measuring = pass;
    if (!measuring) return original.invoke(fn, handler, event, requestId);
    const records = (event as { Records?: unknown[] } | undefined)?.Records;
    const counted = (calls = { dynamo: {}, other: {} });
    const w = { kind: 'rest' as Kind, at: cpuUs(), own: 0, standIn: 0 };
    window = w;
    hook.enable();
    // the handler's synchronous start runs within invoke's call, before any callback: marked here
    const marked: typeof handler = (e, context) => {
      switchTo('own');
      try {
        return handler(e, context);
      } finally {
        switchTo('rest');
      }
    };
    const startedAt = performance.now();
    const start = cpuUs();
    try {
      return await original.invoke(fn, marked, event, requestId);
    } finally {
      const end = cpuUs();
      const wallMs = performance.now() - startedAt;
      switchTo('rest');
      hook.disable();
      window = undefined;
      calls = undefined;
      samples.push({
        pass: measuring,
        fn: fn.name,
        items: Array.isArray(records) ? records.length : 1,
        windowUs: end - start,
        ownUs: w.own,
        standInUs: w.standIn,
        wallMs,
        dynamo: counted.dynamo,
        other: counted.other,
      });
    }
  };
  const invoke: typeof original.invoke = (...args) => {
    const mine = turn.then(() => run(...args));
    turn = mine.catch(() => undefined);
    return mine;
  };
  require.cache[path]!.exports = { ...original, invoke };

  return {
    samples,
    measure(next: string | undefined) {
      pass = next;
    },
    /** the servers the runtime opened, and its API's URL: which of them is the gateway */
    servers(opened: NetServer[], apiUrl: string) {
      const port = Number(new URL(apiUrl).port);
      gateway = opened.find((s) => (s.address() as { port?: number } | null)?.port === port);
      if (!gateway) throw new Error('the HTTP gateway is not among the servers the runtime opened');
    },
    /** counts each invocation's calls at the call guard (once the runtime installed its checker) */
    countCalls() {
      const checker = globalThis.__awsCallChecker;
      globalThis.__awsCallChecker = (call: AwsCall) => {
        checker?.(call);
        countCall(call);
      };
    },
  };
}

/** A webhook receiver in a process of its own (its CPU is not the dispatcher's): answers 200 to anything. */
async function startReceiver(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "process.stdin.on('end',()=>process.exit()).resume();require('http').createServer((q,s)=>{q.resume();q.on('end',()=>s.end())}).listen(0,'127.0.0.1',function(){console.log(this.address().port)})",
    ],
    // it ends with this process (its stdin closes), however this one ends
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(d.toString().trim()));
    child.once('exit', (code) => reject(new Error(`the webhook receiver exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}/hook`, stop: () => child.kill() };
}

export async function benchCpuPerRequest(
  samples = Number(process.env.BENCH_CPU_SAMPLES ?? 200),
  batches = Number(process.env.BENCH_CPU_BATCHES ?? 30),
): Promise<CpuResult> {
  const began = Date.now();
  // as startBenchApi sets it, but before the hook loads the first shared module: the logger reads it once, at load
  process.env.LOG_LEVEL = 'ERROR';
  const hooks = hookInvocations();
  const receiver = await startReceiver();
  // after the hook: the runtime's modules import the wrapped `invoke`
  const { startBenchApi } = await import('./local-api');
  const servers = markServers();
  const api = await startBenchApi('cpu', KEY, {
    LOCAL_SES_MAX_SEND_RATE: '1000', // no sender waits for a send slot
    LOCAL_SCHEDULE_INTERVAL_SECONDS: '3600', // no scheduled worker runs meanwhile
  }).finally(servers.unmark);
  hooks.servers(servers.opened, api.runtime.apiUrl);
  hooks.countCalls();
  try {
    const { routeFunction, workerFunction } = await import('../local/lambda/invocation');
    const { routes } = await import('../functions/routes');
    const route = (method: string, path: string) => {
      const found = routes.find((r) => r.method === method && r.path === path);
      if (!found) throw new Error(`no route ${method} ${path}`);
      return routeFunction(found).name;
    };
    const drain = () => api.call('POST', '/_local/drain', { timeout_seconds: 120 });
    const domain = await api.call('POST', '/domains', { name: 'cpu-bench.example.com' });
    for (let i = 0; i < 50 && (await api.call('POST', `/domains/${domain.id}/verify`)).status !== 'verified'; i++)
      await new Promise((r) => setTimeout(r, 100));
    let n = 0;
    const email = () => ({
      from: 'bench@cpu-bench.example.com',
      to: 'success@simulator.amazonses.com',
      subject: `CPU ${n}`,
      html: `<p>Hello ${n++}</p><p>${'x'.repeat(20 * 1024)}</p>`,
    });
    const first = await api.call('POST', '/emails', email());
    await drain();

    /** warm-up requests, then `count` sampled ones, each followed by a drain */
    const pass = async (name: string, count: number, request: () => Promise<unknown>, warmUp = WARM_UP) => {
      for (let i = 0; i < warmUp; i++) await request();
      await drain();
      for (let i = 0; i < count; i++) {
        hooks.measure(name);
        await request();
        await drain();
        hooks.measure(undefined);
      }
    };
    await pass('get', samples, () => api.call('GET', `/emails/${first.id}`));
    await pass('contacts', samples, () =>
      api.call('POST', '/contacts', {
        email: `reader${n++}@cpu-bench.example.com`,
        first_name: 'Bench',
        properties: { plan: 'pro' },
      }),
    );
    const webhook = await api.call('POST', '/webhooks', {
      endpoint: receiver.url,
      events: ['email.sent', 'email.delivered'],
    });
    await pass('single', samples, () => api.call('POST', '/emails', email()));
    await api.call('DELETE', `/webhooks/${webhook.id}`);
    await pass(
      'batch',
      batches,
      () =>
        api.call(
          'POST',
          '/emails/batch',
          Array.from({ length: BATCH_SIZE }, () => email()),
        ),
      BATCH_WARM_UP,
    );

    const rowOf = (operation: string, item: string, passes: string[], fn: string, itemsPerRequest?: number): CpuRow => {
      const all = hooks.samples
        .filter((s) => passes.includes(s.pass) && s.fn === fn)
        .map((s) => (itemsPerRequest ? { ...s, items: itemsPerRequest } : s));
      if (all.length === 0) throw new Error(`no invocation of ${fn} in ${passes.join(', ')}`);
      const mean = (f: (s: Sample) => number) => all.reduce((sum, s) => sum + f(s), 0) / all.length;
      const meanOf = (pick: (s: Sample) => Record<string, number>) => {
        const total: Record<string, number> = {};
        for (const s of all) for (const [k, v] of Object.entries(pick(s))) total[k] = (total[k] ?? 0) + v;
        return Object.fromEntries(Object.entries(total).map(([k, v]) => [k, v / all.length]));
      };
      const perItemMs = stat(all.map((s) => s.ownUs / 1000 / s.items));
      const budgetMs = CPU_BUDGET_MS[operation];
      return {
        operation,
        item,
        invocations: all.length,
        itemsPerInvocation: mean((s) => s.items),
        cpuMs: stat(all.map((s) => s.ownUs / 1000)),
        perItemMs,
        windowMs: stat(all.map((s) => s.windowUs / 1000)).median,
        standInsMs: stat(all.map((s) => s.standInUs / 1000)).median,
        wallMs: stat(all.map((s) => s.wallMs)).median,
        dynamoCalls: mean((s) => Object.values(s.dynamo).reduce((a, b) => a + b, 0)),
        dynamoByOperation: meanOf((s) => s.dynamo),
        otherCalls: meanOf((s) => s.other),
        budgetMs,
        met: perItemMs.median <= budgetMs,
      };
    };
    const sender = workerFunction('sender').name;
    const rows = [
      rowOf('POST /emails', 'request', ['single'], route('POST', '/emails')),
      rowOf('POST /emails/batch', 'email', ['batch'], route('POST', '/emails/batch'), BATCH_SIZE),
      rowOf('GET /emails/{id}', 'request', ['get'], route('GET', '/emails/{email_id}')),
      rowOf('POST /contacts', 'request', ['contacts'], route('POST', '/contacts')),
      rowOf('sender, 1 email an invocation', 'email', ['single'], sender),
      rowOf('sender, batches', 'email', ['batch'], sender),
      rowOf('email-status', 'event', ['single', 'batch'], workerFunction('email-status').name),
      rowOf('webhook dispatcher', 'delivery', ['single'], workerFunction('webhook-dispatcher').name),
    ];
    return { rows, samples, batches, seconds: (Date.now() - began) / 1000 };
  } finally {
    hooks.measure(undefined);
    await api.stop();
    receiver.stop();
  }
}

const callList = (byOperation: Record<string, number>) =>
  Object.entries(byOperation)
    .sort((a, b) => b[1] - a[1])
    .map(([op, mean]) => `${op} ${mean < 0.05 ? '<0.1' : Number(mean.toFixed(1))}`)
    .join(', ') || '-';

export function formatCpuPerRequest(r: CpuResult): string {
  const ms = (v: number) => v.toFixed(2);
  const plural = (row: CpuRow) => `${row.item}${row.itemsPerInvocation === 1 ? '' : 's'}`;
  return [
    `Warm invocations, one at a time in the whole process, of the local runtime started in it: ${r.samples} requests per API operation (after ${WARM_UP} to warm up) and ${r.batches} batches of ${BATCH_SIZE}, each drained before the next, and the workers' invocations they caused; emails of 20 KB HTML to the mailbox simulator, webhook deliveries to a receiver in another process; log level ERROR, as in the other benchmarks. CPU: process.cpuUsage() (all threads, no I/O wait) over the callbacks that ran in the invocation's async context, the function's own; beside it the whole window around the invocation, and the part of it the in-process SQS, SES, S3 and KMS stand-ins spent serving its calls (Lambda does not pay that; the idle pollers' rest is left out). DynamoDB and other AWS calls: per invocation (mean), counted at the call guard. Budgets: the function's CPU per item, about 1.5x the first run's median (bench/cpu-per-request.ts). ${(r.seconds / 60).toFixed(1)} minutes.\n`,
    '| operation | invocations (items each) | CPU ms per invocation, median / p90 | CPU ms per item, median / p90 | whole window ms (stand-ins) / wall ms, median | DynamoDB calls per invocation (per item) | other AWS calls per invocation | budget per item | met |',
    '|---|---:|---:|---:|---:|---|---|---:|---|',
    ...r.rows.map(
      (row) =>
        `| ${row.operation} | ${row.invocations} (${Number(row.itemsPerInvocation.toFixed(1))} ${plural(row)}) | ${ms(row.cpuMs.median)} / ${ms(row.cpuMs.p90)} | ${ms(row.perItemMs.median)} / ${ms(row.perItemMs.p90)} | ${ms(row.windowMs)} (${ms(row.standInsMs)}) / ${row.wallMs.toFixed(1)} | ${Number(row.dynamoCalls.toFixed(1))} (${Number((row.dynamoCalls / row.itemsPerInvocation).toFixed(2))}): ${callList(row.dynamoByOperation)} | ${callList(row.otherCalls)} | ${row.budgetMs} ms | ${row.met ? 'met' : 'OVER'} |`,
    ),
    '',
    `${r.rows.filter((row) => row.met).length} of ${r.rows.length} operations within their budget.`,
  ].join('\n');
}

/** The benchmark in a child process of its own (the runtime's module-level clients must not be shared), as bench/run-one.ts runs the others: its result. */
if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchCpuPerRequest().then(
    (result) => {
      console.log('## CPU per request, warm\n');
      console.log(formatCpuPerRequest(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
