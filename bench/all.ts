/**
 * `npm run bench`: every benchmark in turn, each printing a markdown table, then one summary
 * table of every budget of DESIGN.md, written with all the tables to bench/RESULTS.md by the run
 * itself. Benchmarks print figures; they never fail the build (a budget not met says OVER).
 * BENCH_ONLY=bundles|calls|api|send|due|sendscale|suppression|broadcast|webhooks|automations|automationcost|inboxes|cost|cpu|compliance|latency|memory|inbound|sender|ratelimit|requestlog|imports|dashboard runs one of them
 * (RESULTS.md is then not rewritten, so it always holds a whole run; except `cost` and `latency`,
 * the send path's figures of issue 17, and `calls`, `due`, `sendscale`, `cpu`, `compliance`, `memory`, `inbound`, `sender`, `ratelimit`, `requestlog`, `dashboard`, `automations`, `automationcost` and `inboxes`, whose own sections are replaced in it between their markers).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_BUDGET_BYTES, INIT_BUDGET_MS } from '../lib/bundling';
import { type benchApiThroughput, formatApiThroughput } from './api-throughput';
import {
  BROADCAST_HEAP_GOAL_MB,
  BROADCAST_RATE_GOAL,
  type benchBroadcastFanOut,
  formatBroadcastFanOut,
} from './broadcast-fanout';
import { type ContactImportsResult, formatContactImports } from './contact-imports';
import { type benchBundles, coldStartSummary, formatBundles, machineSpeed } from './bundles';
import { type benchDynamoDbCalls, formatDynamoDbCalls } from './dynamodb-calls';
import { type benchSendPipeline, formatSendPipeline, sendPipelineMet } from './send-pipeline';
import { type benchDueBacklog, dueBacklogMet, formatDueBacklog } from './due-backlog';
import { type benchSendPathScale, eventsAnswerMet, formatSendPathScale, scaleBroadcastMet } from './send-path-scale';
import { type benchSuppressionWriter, formatSuppressionWriter } from './suppression-writer';
import { RESULT_MARK } from './run-one';
import { type benchWebhooks, formatWebhooks } from './webhooks';
import { type benchAutomations, formatAutomations } from './automations';
import { type benchAutomationCost, formatAutomationCost } from './automation-cost';
import { type benchInboxes, formatInboxes, INBOX_GOALS } from './inboxes';
import { type benchSendPathCost, formatSendPathCost } from './send-path-cost';
import { type benchCpuPerRequest, formatCpuPerRequest } from './cpu-per-request';
import { type benchCompliance, COMPLIANCE_GOAL_MS, formatCompliance } from './compliance';
import {
  type benchTransactionalLatency,
  formatTransactionalLatency,
  transactionalLatencyMet,
} from './transactional-latency';
import { type benchFunctionMemory, formatFunctionMemory } from './function-memory';
import { type benchInboundMemory, formatInboundMemory } from './inbound-memory';
import { formatSenderMemory, type SenderMemoryResult } from './sender-memory';
import { type benchRateLimit, formatRateLimit, RATE_LIMIT_P50_GOAL_MS } from './rate-limit';
import { type benchRequestLog, formatRequestLog } from './request-log';
import { benchDashboard, DASHBOARD_JS_BUDGET_BYTES, formatDashboard } from './dashboard';
import { INBOUND_WORKER_MEMORY_MB } from '../functions/workers';
import { ROUTE_MEMORY_MB } from '../functions/needs';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** SES's default sending quota of a new production account (emails per second): what "faster than sending" is measured against. */
const SES_DEFAULT_RATE = 14;

/**
 * One benchmark in a child process (bench/run-one.ts): each starts its own DynamoDB Local or
 * runtime, and module-level clients would keep pointing at the first one. Its output goes through.
 */
function isolated<T>(name: string): T {
  const child = spawnSync(
    process.execPath,
    [join(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(__dirname, 'run-one.ts'), name],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      maxBuffer: 256 * 1024 * 1024,
      env: process.env,
    },
  );
  const out = child.stdout.toString('utf8');
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (child.status !== 0 || !line)
    throw new Error(`benchmark ${name} failed (exit ${child.status}):\n${out.slice(-2000)}`);
  return JSON.parse(line.slice(RESULT_MARK.length)) as T;
}

interface SummaryRow {
  benchmark: string;
  figure: string;
  budget: string;
  met: boolean | null;
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  const sections: string[] = [];
  const summary: SummaryRow[] = [];
  const section = (title: string, table: string, marker?: string) => {
    const text = `## ${title}\n\n${table}\n`;
    console.log(text);
    sections.push(marker ? `<!-- bench:${marker} -->\n${text}<!-- /bench:${marker} -->\n` : text);
    // run alone, a marked section replaces its earlier self in RESULTS.md (the rest stays a whole run's)
    const results = join(__dirname, 'RESULTS.md');
    if (only && marker && existsSync(results)) {
      const old = readFileSync(results, 'utf8');
      const pattern = new RegExp(`<!-- bench:${marker} -->[\\s\\S]*?<!-- /bench:${marker} -->\\n`);
      const marked = `<!-- bench:${marker} -->\n${text}<!-- /bench:${marker} -->\n`;
      writeFileSync(results, pattern.test(old) ? old.replace(pattern, marked) : `${old.trimEnd()}\n\n${marked}`);
      console.log(`Section "${marker}" written to bench/RESULTS.md`);
    }
  };
  const header = `Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString()}`;
  console.log(`# Benchmarks\n\n${header}\n`);

  if (!only || only === 'bundles') {
    const results = isolated<Awaited<ReturnType<typeof benchBundles>>>('bundles');
    const { rows, reference } = results;
    section(
      `Bundle size and module initialisation per function (median of ${process.env.BENCH_RUNS ?? 7} fresh processes)`,
      formatBundles(results),
    );
    const biggest = rows.reduce((a, b) => (b.bytes > a.bytes ? b : a));
    const slowest = rows.reduce((a, b) => (b.initMs.median > a.initMs.median ? b : a));
    summary.push(
      {
        benchmark: `bundle size, ${rows.length} functions`,
        figure: `largest ${(biggest.bytes / 1024).toFixed(1)} KB (${biggest.name}); ${rows.filter((r) => r.bytes > BUNDLE_BUDGET_BYTES).length} over`,
        budget: `<= ${BUNDLE_BUDGET_BYTES / 1024} KB each`,
        met: biggest.bytes <= BUNDLE_BUDGET_BYTES,
      },
      {
        benchmark: 'module initialisation (cold start, module part)',
        figure: `slowest median ${slowest.initMs.median.toFixed(1)} ms (${slowest.name}); ${rows.filter((r) => r.initMs.median > INIT_BUDGET_MS).length} over; reference ${reference.initMs.median.toFixed(1)} ms (${machineSpeed(reference)})`,
        budget: `<= ${INIT_BUDGET_MS} ms each`,
        met: slowest.initMs.median <= INIT_BUDGET_MS,
      },
      coldStartSummary(results),
    );
  }
  if (!only || only === 'calls') {
    const rows = isolated<Awaited<ReturnType<typeof benchDynamoDbCalls>>>('calls');
    section('DynamoDB calls per API operation (counted by an SDK middleware)', formatDynamoDbCalls(rows), 'calls');
    const writing = rows.filter((r) => r.met !== null);
    const over = writing.filter((r) => !r.met);
    summary.push({
      benchmark: `DynamoDB calls per writing API operation, ${writing.length} operations`,
      figure: `${writing.length - over.length} within${over.length ? `; over: ${over.map((r) => r.operation.split(' (')[0]).join(', ')}` : ''}`,
      budget: '<= 1 read round trip before the write; the write one call',
      met: over.length === 0,
    });
  }
  if (!only || only === 'api') {
    const r = isolated<Awaited<ReturnType<typeof benchApiThroughput>>>('api');
    section(
      'API throughput: POST /contacts through the local runtime beside raw DynamoDB Local writes',
      formatApiThroughput(r),
    );
    summary.push({
      benchmark: 'API throughput, POST /contacts (local runtime)',
      figure: `${r.apiPerSecond.toFixed(0)}/s, p50 ${r.apiP50Ms.toFixed(0)} ms, p99 ${r.apiP99Ms.toFixed(0)} ms (raw PutItem ${r.rawPutsPerSecond.toFixed(0)}/s, raw 2-item transaction ${r.rawTransactionsPerSecond.toFixed(0)}/s); ${r.failures} failed`,
      budget: 'none in DESIGN.md (the write is one transaction: see the calls row)',
      met: null,
    });
  }
  if (!only || only === 'send') {
    const r = isolated<Awaited<ReturnType<typeof benchSendPipeline>>>('send');
    section(
      `Send pipeline: ${r.emails.toLocaleString('en')} emails at a configured ${r.rateLimit}/s (counted where SES receives them)`,
      formatSendPipeline(r),
    );
    summary.push({
      benchmark: 'send pipeline at the account rate',
      figure: `${r.achievedRate.toFixed(1)}/s of ${r.rateLimit}/s; busiest second ${r.busiestSecond}; ${r.throttled} throttled and retried; ${r.lost} lost, ${r.duplicated} twice`,
      budget: 'never above the SES rate; throttling backed off from; nothing lost or duplicated',
      met: sendPipelineMet(r),
    });
  }
  if (!only || only === 'due') {
    const r = isolated<Awaited<ReturnType<typeof benchDueBacklog>>>('due');
    section(
      `The due-email dispatcher under a backlog: ${r.emails.toLocaleString('en')} emails due at once (BENCH_ONLY=due; bench/due-backlog.ts)`,
      formatDueBacklog(r),
      'due',
    );
    summary.push({
      benchmark: `due-email dispatcher, ${r.emails.toLocaleString('en')} emails due at once`,
      figure: `${r.enqueuedPerSecond.toFixed(0)} emails enqueued/s (raw BatchWrite ${r.rawItemsPerSecond.toFixed(0)} items/s) over ${r.runs} runs, ${r.stoppedEarly} stopped at their bound; ${r.duplicates} twice, ${r.lost} lost`,
      budget: 'none in DESIGN.md; every email once, whatever the backlog (issue 17)',
      met: dueBacklogMet(r),
    });
  }
  if (!only || only === 'sendscale') {
    const r = isolated<Awaited<ReturnType<typeof benchSendPathScale>>>('sendscale');
    section(
      `The send path at scale: GET /events after ${r.events.emails} emails of ${r.events.emailKb} KB, a broadcast of ${r.broadcast.htmlKb} KB to ${r.broadcast.contacts} contacts (BENCH_ONLY=sendscale; bench/send-path-scale.ts)`,
      formatSendPathScale(r),
      'sendscale',
    );
    summary.push(
      {
        benchmark: `GET /events after ${r.events.emails} emails of ${r.events.emailKb} KB`,
        figure: `the newest ${r.events.answered.toLocaleString('en')} in ${(r.events.answerBytes / 1024).toFixed(0)} KB (largest event ${r.events.largestEventBytes} bytes, ${r.events.withBody} with a body)`,
        budget: "under Lambda's 6 MB response; no body in an event (issue 17)",
        met: eventsAnswerMet(r),
      },
      {
        benchmark: `broadcast of ${r.broadcast.htmlKb} KB to ${r.broadcast.contacts} contacts (test mode)`,
        figure: `${r.broadcast.recipientsPerSecond.toFixed(1)} recipients/s fanned out; every email delivered ${r.broadcast.deliveredSeconds.toFixed(0)} s after the send; ${r.broadcast.distinctRecipients} of ${r.broadcast.contacts} recipients, ${r.broadcast.delivered} delivered`,
        budget: 'every contact once (issue 17)',
        met: scaleBroadcastMet(r),
      },
    );
  }
  if (!only || only === 'suppression') {
    const r = isolated<Awaited<ReturnType<typeof benchSuppressionWriter>>>('suppression');
    section(
      `Suppression writer: ${r.notifications.toLocaleString('en')} bounce notifications beside the raw DynamoDB Local write rate`,
      formatSuppressionWriter(r),
    );
    summary.push({
      benchmark: 'suppression writer',
      figure: `${r.entriesPerSecond.toFixed(0)} entries/s (raw PutItem ${r.rawPutsPerSecond.toFixed(0)}/s, raw 2-item transaction ${r.rawTransactionsPerSecond.toFixed(0)}/s)`,
      budget: `not the bottleneck before SES's send rate (${SES_DEFAULT_RATE}/s)`,
      met: r.entriesPerSecond > SES_DEFAULT_RATE && r.entriesFound === r.notifications,
    });
  }
  if (!only || only === 'broadcast') {
    const r = isolated<Awaited<ReturnType<typeof benchBroadcastFanOut>>>('broadcast');
    section(
      `Broadcast fan-out: ${r.contacts.toLocaleString('en')} contacts beside the raw DynamoDB Local write rate`,
      formatBroadcastFanOut(r),
    );
    summary.push(
      {
        benchmark: `broadcast fan-out, ${r.contacts.toLocaleString('en')} contacts`,
        figure: `${r.recipientsPerSecond.toFixed(0)} recipients/s (${r.fanOutItemsPerSecond.toFixed(0)} items/s; raw BatchWrite ${r.rawItemsPerSecond.toFixed(0)} items/s); peak heap +${r.peakHeapGrowthMb.toFixed(0)} MB`,
        budget: `not the bottleneck before SES's send rate (${SES_DEFAULT_RATE}/s); every recipient once`,
        met: r.recipientsPerSecond > SES_DEFAULT_RATE && r.status === 'sent' && r.counters.recipients === r.contacts,
      },
      {
        benchmark: `broadcast fan-out, ${r.contacts.toLocaleString('en')} contacts (issue 39)`,
        figure: `${((r.fanOutItemsPerSecond / r.rawItemsPerSecond) * 100).toFixed(0)}% of the raw BatchWrite item rate (${r.transactionItemsPerSecond.toFixed(0)} transaction actions/s); heap +${r.peakHeapGrowthMb.toFixed(0)} MB held in a ${r.functionMemoryMb} MB function`,
        budget: `>= ${BROADCAST_RATE_GOAL * 100}% of the raw BatchWrite item rate; heap growth <= ${BROADCAST_HEAP_GOAL_MB} MB`,
        met:
          r.fanOutItemsPerSecond / r.rawItemsPerSecond >= BROADCAST_RATE_GOAL &&
          r.peakHeapGrowthMb <= BROADCAST_HEAP_GOAL_MB,
      },
    );
  }
  if (!only || only === 'imports') {
    const r = isolated<ContactImportsResult>('imports');
    section(
      `Contact imports: ${r.rows.toLocaleString('en')} CSV rows beside the raw DynamoDB Local write rate`,
      formatContactImports(r),
      'imports',
    );
    summary.push({
      benchmark: `contact import, ${r.rows.toLocaleString('en')} rows`,
      figure: `${r.rowsPerSecond.toFixed(0)} rows/s (raw BatchWrite ${r.rawContactsPerSecond.toFixed(0)} contacts/s; bare transactions of the pages' items ${r.transactionContactsPerSecond.toFixed(0)} contacts/s, the ceiling on DynamoDB Local)`,
      budget: 'at least half the raw write rate; every row once',
      met: r.rowsPerSecond >= r.rawContactsPerSecond / 2 && r.status === 'completed' && r.created === r.rows,
    });
  }
  if (!only || only === 'webhooks') {
    const r = isolated<Awaited<ReturnType<typeof benchWebhooks>>>('webhooks');
    section(
      'Webhook delivery: a burst of events, then events at a steady rate, to a local receiver (stream, fan-out, queue, dispatcher)',
      formatWebhooks(r),
    );
    for (const run of r.runs) {
      summary.push({
        benchmark: `webhook delivery, ${run.name}`,
        figure: `${run.deliveriesPerSecond.toFixed(0)} deliveries/s; commit to receipt p50 ${run.p50Ms.toFixed(0)} ms, p99 ${run.p99Ms.toFixed(0)} ms; ${run.lost} lost, ${run.duplicated} twice`,
        budget: 'none in DESIGN.md; every event exactly once',
        met: run.lost === 0 && run.duplicated === 0,
      });
    }
  }

  if (!only || only === 'automations') {
    const r = isolated<Awaited<ReturnType<typeof benchAutomations>>>('automations');
    section(
      `Automation runs: a burst of ${r.burst.runs.toLocaleString('en')} events, then a burst that resumes their waits; the same at a steady rate (outbox, matcher, step queue)`,
      formatAutomations(r),
      'automations',
    );
    for (const x of [r.burst, r.paced])
      summary.push({
        benchmark: `automation runs, ${x.name}`,
        figure: `event -> run created p99 ${x.eventToRun.p99Ms} ms; step -> next step p99 ${x.stepToStep.p99Ms} ms; event -> wait resumed p99 ${x.eventToResume.p99Ms} ms; ${x.completed} of ${x.runs} completed, ${x.duplicated} started twice`,
        budget: 'p99 <= 1 s, <= 2 s, <= 2 s (issue 36); every run once',
        met:
          x.eventToRun.p99Ms <= 1000 &&
          x.stepToStep.p99Ms <= 2000 &&
          x.eventToResume.p99Ms <= 2000 &&
          x.completed === x.runs &&
          x.duplicated === 0,
      });
  }

  if (!only || only === 'automationcost') {
    const r = isolated<Awaited<ReturnType<typeof benchAutomationCost>>>('automationcost');
    section(
      'What an automation run costs: a 5-step automation with a 1-day delay, per million runs',
      formatAutomationCost(r),
      'automationcost',
    );
    summary.push({
      benchmark: 'automation run cost, 5 steps with a 1-day delay',
      figure: `$${r.total.toFixed(0)} per million runs, its email and API request included (Step Functions: $${r.stepFunctionsTransitions.toFixed(0)} in transitions alone)`,
      budget: 'none (issue 36 asks for the figure)',
      met: true,
    });
  }

  if (!only || only === 'inboxes') {
    const r = isolated<Awaited<ReturnType<typeof benchInboxes>>>('inboxes');
    section(
      `Inboxes: mail in over SMTP to threads and search, the thread list and a thread's emails, search over ${r.seed.threads.toLocaleString('en')} threads (issue 37)`,
      formatInboxes(r),
      'inboxes',
    );
    const g = INBOX_GOALS;
    summary.push(
      {
        benchmark: `inboxes: SMTP accepted -> thread listed, ${r.arrival.name}`,
        figure: `p50 ${r.arrival.listed.p50Ms} ms, p95 ${r.arrival.listed.p95Ms} ms; ${r.arrival.notListed} never listed`,
        budget: `p95 <= ${g.arrivalP95Ms / 1000} s (issue 37)`,
        met: r.arrival.listed.p95Ms <= g.arrivalP95Ms && r.arrival.notListed === 0,
      },
      {
        benchmark: `inboxes: thread list (limit 20), ${r.listBig.threads.toLocaleString('en')} threads`,
        figure: `p50 ${r.listBig.p50Ms} ms, p95 ${r.listBig.p95Ms} ms`,
        budget: `p95 <= ${g.listP95Ms} ms (issue 37)`,
        met: r.listBig.p95Ms <= g.listP95Ms,
      },
      {
        benchmark: `inboxes: a ${r.threadEmails.emailCount}-message thread's emails (limit 50)`,
        figure: `p50 ${r.threadEmails.p50Ms} ms, p95 ${r.threadEmails.p95Ms} ms`,
        budget: `p95 <= ${g.threadEmailsP95Ms} ms (issue 37)`,
        met: r.threadEmails.p95Ms <= g.threadEmailsP95Ms,
      },
      ...[r.arrival, r.bigArrival].map((a) => ({
        benchmark: `inboxes: SMTP accepted -> found by a word of its body, ${a.name}`,
        figure: `p50 ${a.found.p50Ms} ms, p95 ${a.found.p95Ms} ms; ${a.foundByOwnWord} of ${a.sent} found by their own word`,
        budget: `p95 <= ${g.freshnessP95Ms / 1000} s (issue 37)`,
        met: a.found.p95Ms <= g.freshnessP95Ms && a.foundByOwnWord === a.sent,
      })),
      {
        benchmark: `inboxes: search over ${r.seed.threads.toLocaleString('en')} threads (${r.seed.messages.toLocaleString('en')} messages), warm`,
        figure: `p50 ${r.search.all.p50Ms} ms, p95 ${r.search.all.p95Ms} ms (${r.search.queries.map((q) => `${q.name} ${q.p95Ms} ms`).join(', ')}); index ${(r.index.gzipBytes / 2 ** 20).toFixed(1)} MB gzipped`,
        budget: `p95 <= ${g.searchP95Ms} ms (issue 37)`,
        met: r.search.all.p95Ms <= g.searchP95Ms,
      },
    );
  }

  if (!only || only === 'cost') {
    const r = isolated<Awaited<ReturnType<typeof benchSendPathCost>>>('cost');
    section(
      'The send path: DynamoDB units per email, the hottest partitions, and the cost per 100,000 emails (bench/send-path-cost.ts says how they are measured)',
      formatSendPathCost(r),
      'cost',
    );
    const twenty = r.rows.find((row) => row.kb === 20)!;
    const hottest = r.hottest.keys[0];
    summary.push(
      {
        benchmark: 'DynamoDB write units per 20 KB email over its life',
        figure: `${twenty.writePerEmail.toFixed(1)} (5 KB ${r.rows[0].writePerEmail.toFixed(1)}, 60 KB ${r.rows[2].writePerEmail.toFixed(1)})`,
        budget: 'at most 30 (issue 17)',
        met: twenty.writePerEmail <= 30,
      },
      {
        benchmark: 'hottest partition key at 500 emails/s of one project',
        figure: `${hottest.at500PerSecond.toFixed(0)} WCU/s (${hottest.key})`,
        budget: 'under 1,000 (issue 17)',
        met: hottest.at500PerSecond < 1000,
      },
      {
        benchmark: 'cost per 100,000 emails besides SES',
        figure: `$${r.totalBesidesSes.toFixed(2)}`,
        budget: 'under $5 (issue 17)',
        met: r.totalBesidesSes < 5,
      },
    );
  }
  if (!only || only === 'cpu') {
    const r = isolated<Awaited<ReturnType<typeof benchCpuPerRequest>>>('cpu');
    section(
      'CPU per request, warm: the CPU a warm invocation uses beside its DynamoDB calls (BENCH_ONLY=cpu; bench/cpu-per-request.ts says how it is measured)',
      formatCpuPerRequest(r),
      'cpu',
    );
    const over = r.rows.filter((row) => !row.met);
    summary.push({
      benchmark: `CPU per request, warm, ${r.rows.length} operations (issue 39)`,
      figure: r.rows.map((row) => `${row.operation} ${row.perItemMs.median.toFixed(1)} ms per ${row.item}`).join('; '),
      budget: 'per operation, about 1.5x the first measured median (bench/cpu-per-request.ts CPU_BUDGET_MS)',
      met: over.length === 0,
    });
  }
  if (!only || only === 'compliance') {
    const r = isolated<Awaited<ReturnType<typeof benchCompliance>>>('compliance');
    section(
      "A domain's compliance check, warm (BENCH_ONLY=compliance; bench/compliance.ts)",
      formatCompliance(r),
      'compliance',
    );
    summary.push({
      benchmark: `compliance check, warm, ${r.calls} calls (issue 40)`,
      figure: `median ${r.medianMs.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms`,
      budget: `<= ${COMPLIANCE_GOAL_MS} ms`,
      met: r.p99Ms <= COMPLIANCE_GOAL_MS,
    });
  }
  if (!only || only === 'latency') {
    const r = isolated<Awaited<ReturnType<typeof benchTransactionalLatency>>>('latency');
    section(
      `Transactional latency under a ${r.contacts.toLocaleString('en')}-recipient broadcast backlog at ${r.rate}/s`,
      formatTransactionalLatency(r),
      'latency',
    );
    summary.push({
      benchmark: 'POST /emails to sent behind a bulk backlog',
      figure: `p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms (${r.samples} emails)`,
      budget: 'p99 under 2 s (issue 17)',
      met: transactionalLatencyMet(r),
    });
  }
  if (!only || only === 'memory') {
    const rows = isolated<Awaited<ReturnType<typeof benchFunctionMemory>>>('memory');
    section('API function memory: measured CPU, modeled at 256 / 512 / 1024 MB', formatFunctionMemory(rows), 'memory');
    const at = (mb: number) => rows.map((r) => r.model.find((m) => m.memoryMb === mb)!);
    const cost = (mb: number) => at(mb).reduce((sum, m) => sum + m.usdPerMillion, 0);
    summary.push({
      benchmark: `API function memory (${ROUTE_MEMORY_MB} MB chosen)`,
      figure: `slowest modeled cold module init ${Math.max(...at(ROUTE_MEMORY_MB).map((m) => m.coldMs)).toFixed(0)} ms at ${ROUTE_MEMORY_MB} MB (${Math.max(...at(256).map((m) => m.coldMs)).toFixed(0)} ms at 256 MB); warm cost ${((cost(ROUTE_MEMORY_MB) / cost(256) - 1) * 100).toFixed(0)}% above 256 MB's`,
      budget: 'none in DESIGN.md (issue 18: chosen by measurement)',
      met: null,
    });
  }
  if (!only || only === 'inbound') {
    const rows = isolated<Awaited<ReturnType<typeof benchInboundMemory>>>('inbound');
    section(
      "The inbound worker at SES's largest message (40 MB): peak memory and parse time",
      formatInboundMemory(rows),
      'inbound',
    );
    const peak = Math.max(...rows.map((r) => r.peakRssMb));
    summary.push({
      benchmark: `Inbound worker memory (${INBOUND_WORKER_MEMORY_MB} MB chosen)`,
      figure: `largest peak parsing a 40 MB message ${peak.toFixed(0)} MB (${((peak / INBOUND_WORKER_MEMORY_MB) * 100).toFixed(0)}% of the function's memory)`,
      budget: 'none in DESIGN.md (issue 18: sized for 40 MB messages)',
      met: null,
    });
  }
  if (!only || only === 'sender') {
    const r = isolated<SenderMemoryResult>('sender');
    section(
      "The sender's peak memory for a batch of 10 emails at the largest size (BENCH_ONLY=sender), as the local runtime's memory check measures it",
      formatSenderMemory(r),
      'sender',
    );
    summary.push({
      benchmark: `Sender memory, one event of ${r.sender.records} emails with ${(r.attachmentBytes / 2 ** 20).toFixed(0)} MiB of attachments each (${r.declaredMb} MB declared)`,
      figure: `estimated peak ${r.sender.estimatedPeakMb} MB (held growth ${r.sender.growthMb} MB + ${r.baselineMb} MB for Lambda's process)`,
      budget: `the declared ${r.declaredMb} MB (issue 32: an invocation over it fails the test run)`,
      met: !r.sender.over,
    });
  }
  if (!only || only === 'ratelimit') {
    const rows = isolated<Awaited<ReturnType<typeof benchRateLimit>>>('ratelimit');
    section('The API rate limit: latency with and without the count', formatRateLimit(rows), 'ratelimit');
    const worst = Math.max(...rows.map((r) => r.withP50 - r.withoutP50));
    summary.push({
      benchmark: 'API rate limit (the count beside the key lookup)',
      figure: `adds at most ${worst.toFixed(2)} ms at p50 (${rows.map((r) => r.operation).join(', ')})`,
      budget: `< ${RATE_LIMIT_P50_GOAL_MS} ms at p50 (issue 19)`,
      met: worst < RATE_LIMIT_P50_GOAL_MS,
    });
  }
  if (!only || only === 'requestlog') {
    const result = isolated<Awaited<ReturnType<typeof benchRequestLog>>>('requestlog');
    section(
      "The request log: each request's entry, its latency and write cost",
      formatRequestLog(result),
      'requestlog',
    );
    const added = result.rows.map((r) => r.withP50 - r.withoutP50);
    summary.push({
      benchmark: "The request log's write per request (GET /logs)",
      figure: `${result.writeUnits} write unit per request (entries ${result.meanBytes.toFixed(0)} bytes on average); adds ${Math.min(...added).toFixed(2)}-${Math.max(...added).toFixed(2)} ms at p50 (${result.rows.length} operations)`,
      budget:
        'none in DESIGN.md (issue 21: no serial round trip before the answer is decided; the write is awaited beside the rest)',
      met: null,
    });
  }
  if (!only || only === 'dashboard') {
    const result = await benchDashboard(); // in process: a build, no runtime
    section("The web console's first load (BENCH_ONLY=dashboard)", formatDashboard(result), 'dashboard');
    summary.push({
      benchmark: "The web console's first-load JavaScript",
      figure: `${(result.js.gzip / 1024).toFixed(1)} KB gzip (${(result.js.brotli / 1024).toFixed(1)} KB brotli, ${(result.js.raw / 1024).toFixed(1)} KB raw)`,
      budget: `under ${DASHBOARD_JS_BUDGET_BYTES / 1024} KB compressed (issue 24)`,
      met: result.js.gzip < DASHBOARD_JS_BUDGET_BYTES,
    });
  }

  const table = [
    '| benchmark | figure | budget (DESIGN.md) | met |',
    '|---|---|---|---|',
    ...summary.map(
      (s) => `| ${s.benchmark} | ${s.figure} | ${s.budget} | ${s.met === null ? '-' : s.met ? 'yes' : 'NO'} |`,
    ),
  ].join('\n');
  console.log(`## Summary\n\n${table}\n`);
  if (!only) {
    const results = [
      '# Benchmark results',
      '',
      `Written by \`npm run bench\` (bench/all.ts); ${header}. Each section says how to run it alone.`,
      '',
      '## Summary',
      '',
      table,
      '',
      ...sections,
    ].join('\n');
    writeFileSync(join(__dirname, 'RESULTS.md'), results);
    console.log('Written to bench/RESULTS.md');
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
