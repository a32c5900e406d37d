/**
 * Automation runs end to end: a burst of custom events committed to the table (each with
 * `eventWrite`, the write POST /events/send makes, 25 per transaction), through the stream, the
 * outbox consumer, the automation events queue, the matcher, the step queue and the step worker.
 * The automation: trigger -> condition (met) -> wait_for_event -> add_to_segment, so each run has
 * a step that follows another without delay, and a wait that a second event resumes.
 *
 * - runs: events committed at once, one per contact (BENCH_AUTOMATION_RUNS, default 10,000);
 *   from each event's `created_at` to its run's `created_at` (event accepted -> run created),
 *   and from the trigger's `completed_at` to the condition's (step to next step, no delay);
 * - resumes: then a second burst, an event per waiting run; from each event's `created_at` to its
 *   wait's `completed_at` (a wait resumes after its event);
 * - exactly once: the runs started (metrics) equal the contacts, every run `completed`, every
 *   contact in the segment once.
 * For scale, the run first measures DynamoDB Local's own rate of conditional puts, as the webhook
 * benchmark does: a run costs about 30 table calls over its life, and everything but DynamoDB
 * Local's Java process shares one Node process.
 *
 * Run alone: `npx tsx bench/automations.ts` (BENCH_AUTOMATION_RUNS to change the burst).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../local/runtime';
import { readSettings } from '../local/settings';

export interface LatencyFigures {
  p50Ms: number;
  p99Ms: number;
}

export interface AutomationBenchResult {
  runs: number;
  rawPutsPerSecond: number;
  /** first commit to the last run completed, of the whole run's life (both bursts) */
  runsPerSecond: number;
  eventToRun: LatencyFigures;
  stepToStep: LatencyFigures;
  eventToResume: LatencyFigures;
  started: number;
  completed: number;
  duplicated: number;
}

const KEY = `es_live_${'A'.repeat(32)}`;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
const figures = (values: number[]): LatencyFigures => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchAutomations(
  count = Number(process.env.BENCH_AUTOMATION_RUNS ?? 10_000),
): Promise<AutomationBenchResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-automations-'));
  process.env.LOG_LEVEL = 'ERROR';
  process.env.API_RATE_LIMIT_PER_SECOND = '1000000';
  const runtime = await startLocalRuntime(
    readSettings({ PORT: '0', DATA_DIR: dataDir, DYNAMODB_IN_MEMORY: 'true', LOCAL_API_KEY: KEY, LOCAL_SES_PORT: '0' }),
    () => undefined,
  );
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${runtime.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  try {
    const { put, putItem, transact, queryPage } = await import('../shared/platform/db/table');
    const { eventWrite } = await import('../shared/events/events');
    const { newId } = await import('../shared/platform/ids');
    const keys = await import('../shared/platform/db/keys');

    const rawPuts = async (label: string) => {
      let next = 0;
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < 2000)
            await putItem(
              put(
                { PK: `BENCH#${label}#${next++}`, SK: 'RAW', type: 'bench' },
                { ifAbsent: () => new Error('exists') },
              ),
            );
        }),
      );
      return 2000 / ((Date.now() - started) / 1000);
    };
    await rawPuts('warm-up');
    const rawPutsPerSecond = await rawPuts('measured');

    const segment = await call('POST', '/segments', { name: 'Bench' });
    const automation = await call('POST', '/automations', {
      name: 'Bench',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { event_name: 'bench.signup' } },
        {
          key: 'check',
          type: 'condition',
          config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
        },
        { key: 'wait', type: 'wait_for_event', config: { event_name: 'bench.activated' } },
        { key: 'tag', type: 'add_to_segment', config: { segment_id: segment.id } },
      ],
      connections: [
        { from: 'start', to: 'check' },
        { from: 'check', to: 'wait', type: 'condition_met' },
        { from: 'check', to: 'tag', type: 'condition_not_met' },
        { from: 'wait', to: 'tag', type: 'event_received' },
      ],
    });

    // the contacts, through the API's own code (50 at a time)
    const { createContact } = await import('../shared/audience/contacts');
    const caller = { projectId: runtime.projectId, livemode: true, permission: 'full_access' as const };
    const contacts: { id: string; email: string }[] = [];
    let made = 0;
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (made < count) {
          const i = made++;
          const contact = await createContact(caller, { email: `bench-${i}@example.com` });
          contacts.push({ id: contact.id, email: contact.email });
        }
      }),
    );

    const burst = async (event: string, payload: Record<string, unknown>) => {
      const batches = Array.from({ length: Math.ceil(contacts.length / 25) }, (_, b) =>
        contacts.slice(b * 25, b * 25 + 25),
      );
      const commit = (batch: typeof contacts) =>
        transact(
          batch.map((c) =>
            eventWrite(caller, 'custom_event.sent', {
              object: 'custom_event',
              id: newId(),
              event,
              contact_id: c.id,
              email: c.email,
              payload,
            }),
          ),
        );
      for (let i = 0; i < batches.length; i += 8) await Promise.all(batches.slice(i, i + 8).map(commit));
    };

    /** Every run of the automation, whole (the shards merged). */
    const allRuns = async () => {
      const runs: Record<string, any>[] = [];
      let after: string | undefined;
      do {
        const page = await queryPage(keys.automationRuns(runtime.projectId, automation.id), { limit: 1000, after });
        runs.push(...page.items);
        after = page.hasMore ? page.items[page.items.length - 1].id : undefined;
      } while (after);
      return runs;
    };
    const until = async (done: (runs: Record<string, any>[]) => boolean, deadlineMs: number) => {
      const deadline = Date.now() + deadlineMs;
      let runs = await allRuns();
      while (!done(runs) && Date.now() < deadline) {
        await sleep(1000);
        runs = await allRuns();
      }
      return runs;
    };

    const started = Date.now();
    await burst('bench.signup', { plan: 'pro' });
    let runs = await until(
      (r) => r.length >= count && r.every((run) => run.steps.wait?.status === 'waiting'),
      20 * 60_000,
    );
    /** An event's commit time: its id is a UUIDv7 minted as it was written (`eventWrite`). */
    const idTime = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    const eventToRun = figures(runs.map((run) => Date.parse(run.created_at) - idTime(run.event.id)));
    const stepToStep = figures(
      runs.map((run) => Date.parse(run.steps.check.completed_at) - Date.parse(run.steps.start.completed_at)),
    );

    await burst('bench.activated', {});
    runs = await until((r) => r.every((run) => run.status !== 'running'), 20 * 60_000);
    const finished = Date.now();
    const eventToResume = figures(
      runs.map((run) => Date.parse(run.steps.wait.completed_at) - idTime(String(run.steps.wait.output?.event?.id))),
    );
    const metrics = await call('GET', `/automations/${automation.id}/metrics`);
    return {
      runs: count,
      rawPutsPerSecond,
      runsPerSecond: count / ((finished - started) / 1000),
      eventToRun,
      stepToStep,
      eventToResume,
      started: metrics.runs.started,
      completed: runs.filter((run) => run.status === 'completed').length,
      duplicated: Math.max(0, metrics.runs.started - count),
    };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatAutomations(r: AutomationBenchResult): string {
  return [
    `DynamoDB Local, same run: ${r.rawPutsPerSecond.toFixed(0)} conditional puts/s (50 in flight); a run of this automation makes about 30 table calls.\n`,
    '| runs | runs/s (first commit to last run completed) | event -> run created p50 / p99 | step -> next step p50 / p99 | event -> wait resumed p50 / p99 | started | completed | started twice |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    `| ${r.runs} | ${r.runsPerSecond.toFixed(1)} | ${r.eventToRun.p50Ms} / ${r.eventToRun.p99Ms} ms | ${r.stepToStep.p50Ms} / ${r.stepToStep.p99Ms} ms | ${r.eventToResume.p50Ms} / ${r.eventToResume.p99Ms} ms | ${r.started} | ${r.completed} | ${r.duplicated} |`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchAutomations().then(
    (result) => {
      console.log('## Automation runs\n');
      console.log(formatAutomations(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
