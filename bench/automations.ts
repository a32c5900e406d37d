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
import { conditionalPutsPerSecond } from './raw-write';

export interface LatencyFigures {
  p50Ms: number;
  p99Ms: number;
}

export interface AutomationRunFigures {
  name: string;
  runs: number;
  /** first commit to the last run completed, over both of its events */
  runsPerSecond: number;
  eventToRun: LatencyFigures;
  stepToStep: LatencyFigures;
  eventToResume: LatencyFigures;
  started: number;
  completed: number;
  duplicated: number;
}

export interface AutomationBenchResult {
  rawPutsPerSecond: number;
  burst: AutomationRunFigures;
  paced: AutomationRunFigures;
}

/** The paced run: below the pipeline's capacity, so its latencies are the pipeline's, not a backlog's. */
const PACED_RUNS = 300;
const PACED_PER_SECOND = 10;

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
    const { transact, queryPage } = await import('../shared/platform/db/table');
    const { eventWrite } = await import('../shared/events/events');
    const { newId } = await import('../shared/platform/ids');
    const keys = await import('../shared/platform/db/keys');

    const rawPutsPerSecond = await conditionalPutsPerSecond();

    const segment = await call('POST', '/segments', { name: 'Bench' });
    /** The automation: trigger `<prefix>.signup` -> condition (met) -> wait for `<prefix>.activated` -> add_to_segment. */
    const newAutomation = (prefix: string) =>
      call('POST', '/automations', {
        name: prefix,
        status: 'enabled',
        steps: [
          { key: 'start', type: 'trigger', config: { event_name: `${prefix}.signup` } },
          {
            key: 'check',
            type: 'condition',
            config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
          },
          { key: 'wait', type: 'wait_for_event', config: { event_name: `${prefix}.activated` } },
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

    /** An event per contact: as fast as the table takes them (25 a transaction, 8 at once), or `perSecond`. */
    const commitEvents = async (
      event: string,
      payload: Record<string, unknown>,
      to: typeof contacts,
      perSecond?: number,
    ) => {
      const size = perSecond ? 1 : 25;
      const batches = Array.from({ length: Math.ceil(to.length / size) }, (_, b) =>
        to.slice(b * size, b * size + size),
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
      if (perSecond)
        for (const batch of batches) {
          const tick = Date.now();
          await commit(batch);
          await sleep(Math.max(0, 1000 / perSecond - (Date.now() - tick)));
        }
      else for (let i = 0; i < batches.length; i += 8) await Promise.all(batches.slice(i, i + 8).map(commit));
    };

    /** Every run of the automation, whole (the shards merged). */
    const allRuns = async (automationId: string) => {
      const runs: Record<string, any>[] = [];
      let after: string | undefined;
      do {
        const page = await queryPage(keys.automationRuns(runtime.projectId, automationId), {
          limit: 1000,
          after,
        });
        runs.push(...page.items);
        after = page.hasMore ? page.items[page.items.length - 1].id : undefined;
      } while (after);
      return runs;
    };
    const until = async (automationId: string, done: (runs: Record<string, any>[]) => boolean) => {
      const deadline = Date.now() + 30 * 60_000;
      let runs = await allRuns(automationId);
      while (!done(runs) && Date.now() < deadline) {
        await sleep(1000);
        runs = await allRuns(automationId);
      }
      return runs;
    };
    /** An event's commit time: its id is a UUIDv7 minted as it was written (`eventWrite`). */
    const idTime = (id: string) => Number.parseInt(id.replace(/-/g, '').slice(0, 12), 16);

    /** One automation's runs for `to`, started by a burst (or paced) and resumed the same way; the three latencies. */
    const measure = async (prefix: string, to: typeof contacts, perSecond?: number) => {
      const automation = await newAutomation(prefix);
      const started = Date.now();
      await commitEvents(`${prefix}.signup`, { plan: 'pro' }, to, perSecond);
      let runs = await until(
        automation.id,
        (r) => r.length >= to.length && r.every((run) => run.steps.wait?.status === 'waiting'),
      );
      const eventToRun = figures(runs.map((run) => Date.parse(run.created_at) - idTime(run.event.id)));
      const stepToStep = figures(
        runs.map((run) => Date.parse(run.steps.check.completed_at) - Date.parse(run.steps.start.completed_at)),
      );
      await commitEvents(`${prefix}.activated`, {}, to, perSecond);
      runs = await until(automation.id, (r) => r.every((run) => run.status !== 'running'));
      const finished = Date.now();
      const eventToResume = figures(
        runs.map((run) => Date.parse(run.steps.wait.completed_at) - idTime(String(run.steps.wait.output?.event?.id))),
      );
      const metrics = await call('GET', `/automations/${automation.id}/metrics`);
      return {
        runs: to.length,
        runsPerSecond: to.length / ((finished - started) / 1000),
        eventToRun,
        stepToStep,
        eventToResume,
        started: metrics.runs.started,
        completed: runs.filter((run) => run.status === 'completed').length,
        duplicated: Math.max(0, metrics.runs.started - to.length),
      };
    };

    const burst = await measure('burst', contacts);
    const paced = await measure('paced', contacts.slice(0, PACED_RUNS), PACED_PER_SECOND);
    return {
      rawPutsPerSecond,
      burst: { name: `burst of ${count}`, ...burst },
      paced: { name: `${PACED_RUNS} at ${PACED_PER_SECOND}/s`, ...paced },
    };
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatAutomations(r: AutomationBenchResult): string {
  return [
    `DynamoDB Local, same run: ${r.rawPutsPerSecond.toFixed(0)} conditional puts/s (50 in flight); a run of this automation makes 6 transactions and about 20 other table calls.\n`,
    '| run | runs/s (first commit to last run completed) | event -> run created p50 / p99 | step -> next step p50 / p99 | event -> wait resumed p50 / p99 | started | completed | started twice |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...[r.burst, r.paced].map(
      (x) =>
        `| ${x.name} | ${x.runsPerSecond.toFixed(1)} | ${x.eventToRun.p50Ms} / ${x.eventToRun.p99Ms} ms | ${x.stepToStep.p50Ms} / ${x.stepToStep.p99Ms} ms | ${x.eventToResume.p50Ms} / ${x.eventToResume.p99Ms} ms | ${x.started} | ${x.completed} | ${x.duplicated} |`,
    ),
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
