/**
 * Automation runs: one per automation and triggering event, for the event's contact, on the
 * version of the graph that was current when it started.
 *
 * The run item (shared/platform/db/keys.ts `automationRun`) holds the run's status, its trigger
 * event and each step it reached under `steps.<key>`: `{type, status, output, error, started_at,
 * completed_at, created_at, next}` (`next`: the step it led to, so a redelivered message can send
 * on what an earlier run of it recorded), and `path`, the keys in the order they were reached.
 * Every change is one write with a condition, in a transaction with the automation's counters
 * (`automationMetrics`, 8 items picked by run): no step is recorded twice, no count is counted
 * twice.
 *
 * The run's id derives from the automation's and the event's (a UUIDv7 with the event's time), so
 * an event delivered twice finds its run there and starts no second one.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, isConditionFailed, put, queryPage, transact, update } from '../platform/db/table';
import type { Item, PageRequest, WriteAction } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { now as clockNow, nowIso } from '../platform/clock';
import type { RUN_STATUSES, StepType } from './model';

export type RunStatus = (typeof RUN_STATUSES)[number];
export type StepStatus = 'pending' | 'running' | 'completed' | 'failed' | 'skipped' | 'waiting';
/** Runs are kept 90 days after they start (DynamoDB TTL on `expires_at`). */
export const RUN_RETENTION_SECONDS = 90 * 24 * 60 * 60;

export interface StepState {
  type: StepType;
  status: StepStatus;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  /** the step this one led to (null: the run ended here); absent while waiting */
  next?: string | null;
  /** a waiting delay's or wait's due time (ISO) */
  resume_at?: string;
}

export interface TriggerEvent {
  id: string;
  name: string;
  payload: Record<string, unknown>;
}

export interface RunItem {
  type: 'automation_run';
  project_id: string;
  automation_id: string;
  id: string;
  livemode: boolean;
  version: number;
  status: RunStatus;
  contact_id: string;
  email: string;
  event: TriggerEvent;
  steps: Record<string, StepState>;
  path: string[];
  created_at: string;
  started_at: string;
  completed_at: string | null;
  expires_at: number;
}

/** The run an event starts in an automation: a UUIDv7 with the event's time and bits of the two ids' hash. */
export function runIdFor(automationId: string, eventId: string): string {
  const hash = createHash('sha256').update(`${automationId}:${eventId}`).digest('hex');
  const time = eventId.replace(/-/g, '').slice(0, 12);
  const variant = ((parseInt(hash[3], 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${hash.slice(0, 3)}-${variant}${hash.slice(4, 7)}-${hash.slice(7, 19)}`;
}

// Counters: runs by outcome, emails sent, and per step `step:<key>:<status>`.
export type Counter = 'runs_started' | 'runs_completed' | 'runs_failed' | 'runs_cancelled' | 'emails_sent';
export const stepCounter = (stepKey: string, status: StepStatus) => `step:${stepKey}:${status}`;

function countWrite(run: Pick<RunItem, 'project_id' | 'automation_id' | 'id'>, counters: string[]): WriteAction {
  return update(keys.automationMetrics(run.project_id, run.automation_id, keys.automationMetricShard(run.id)), {
    set: { type: 'automation_metrics', project_id: run.project_id, automation_id: run.automation_id },
    add: Object.fromEntries(counters.map((c) => [c, 1])),
  });
}

/** The tag of a run's put when the run exists: the event was handled before. */
export const RUN_EXISTS = 'run exists';

/** Creates the run (with `runs_started` counted); ConditionFailed RUN_EXISTS, with the run, when the event started it before. */
export async function createRun(run: Omit<RunItem, 'type' | 'expires_at' | 'steps' | 'path'>): Promise<RunItem> {
  const item: RunItem = {
    type: 'automation_run',
    ...run,
    steps: {},
    path: [],
    expires_at: Math.floor(clockNow() / 1000) + RUN_RETENTION_SECONDS,
  };
  await transact([
    put(
      { ...keys.automationRun(run.project_id, run.automation_id, run.id), ...item },
      { ifAbsent: { tag: RUN_EXISTS, withItem: true } },
    ),
    countWrite(item, ['runs_started']),
  ]);
  return item;
}

export const readRun = (projectId: string, automationId: string, runId: string) =>
  getItem<RunItem & Item>(keys.automationRun(projectId, automationId, runId));

/** The tag of a step's write when the step was recorded meanwhile (a duplicate message got there first). */
export const STEP_RECORDED = 'step recorded';

/**
 * Records a step's state; when it is done (completed, skipped, failed) also the run's end if it
 * ends there (`runEnd`). The condition: the step is not done yet (and, for a state that moves a
 * waiting step on, that it is waiting). Counts the step's status, and the run's end.
 */
export async function recordStep(
  run: RunItem,
  stepKey: string,
  state: StepState,
  options: { runEnd?: 'completed' | 'failed' | 'cancelled'; counters?: Counter[]; extra?: WriteAction[] } = {},
): Promise<void> {
  const previous = run.steps[stepKey];
  const now = nowIso();
  const names: Record<string, string> = { '#steps': 'steps', '#k': stepKey, ...(previous ? { '#st': 'status' } : {}) };
  const expression = previous
    ? '#steps.#k.#st = :waiting AND #run_status = :running'
    : 'attribute_not_exists(#steps.#k) AND #run_status = :running';
  // by hand, not table.ts's `update`: it sets top-level attributes only, and this sets one step of the map and appends to `path`
  const updateAction: WriteAction = {
    kind: 'Update',
    params: {
      Key: keys.automationRun(run.project_id, run.automation_id, run.id),
      UpdateExpression: [
        'SET #steps.#k = :state',
        ...(previous ? [] : ['#path = list_append(#path, :key)']),
        ...(options.runEnd ? ['#run_status = :end', '#completed_at = :now'] : []),
      ].join(', '),
      ConditionExpression: expression,
      ExpressionAttributeNames: {
        ...names,
        '#run_status': 'status',
        ...(previous ? {} : { '#path': 'path' }),
        ...(options.runEnd ? { '#completed_at': 'completed_at' } : {}),
      },
      ExpressionAttributeValues: {
        ':state': state,
        ':running': 'running',
        ...(previous ? { ':waiting': 'waiting' } : { ':key': [stepKey] }),
        ...(options.runEnd ? { ':end': options.runEnd, ':now': now } : {}),
      },
    },
    onConditionFailed: { tag: STEP_RECORDED },
  };
  const counters: string[] = [stepCounter(stepKey, state.status), ...(options.counters ?? [])];
  if (options.runEnd) counters.push(`runs_${options.runEnd}`);
  await transact([updateAction, countWrite(run, counters), ...(options.extra ?? [])]);
  run.steps[stepKey] = state;
  if (!previous) run.path.push(stepKey);
  if (options.runEnd) {
    run.status = options.runEnd;
    run.completed_at = now;
  }
}

/** Whether the error is a step's write finding the step recorded (or the run ended) meanwhile. */
export const isStepRecorded = (error: unknown) => isConditionFailed(error, STEP_RECORDED);

/** Ends a running run without a step (its automation was deleted, its graph lost). */
export async function endRun(run: RunItem, status: 'cancelled' | 'failed'): Promise<void> {
  try {
    await transact([
      update(
        keys.automationRun(run.project_id, run.automation_id, run.id),
        {
          set: { status, completed_at: nowIso() },
          condition: { expression: '#s = :running', names: { '#s': 'status' }, values: { ':running': 'running' } },
        },
        { tag: STEP_RECORDED },
      ),
      countWrite(run, [`runs_${status}`]),
    ]);
  } catch (error) {
    if (!isStepRecorded(error)) throw error;
  }
}

// The API's view

/** A step as a run shows it: its state without what the engine keeps for itself. */
export type RunStep = Omit<StepState, 'next' | 'resume_at'> & { key: string };

const toSummary = (run: RunItem) => ({
  object: 'automation_run' as const,
  id: run.id,
  status: run.status,
  started_at: run.started_at,
  completed_at: run.completed_at ?? null,
  created_at: run.created_at,
});

/** A run as GET /automations/{id}/runs/{run_id} shows it: the SDK's AutomationRun, with what is ours beside it. */
export function toRun(run: RunItem) {
  return {
    ...toSummary(run),
    automation_id: run.automation_id,
    version: run.version,
    contact_id: run.contact_id,
    email: run.email,
    event: { id: run.event.id, name: run.event.name },
    steps: run.path.map(
      (key): RunStep => ({
        key,
        type: run.steps[key].type,
        status: run.steps[key].status,
        output: run.steps[key].output ?? null,
        error: run.steps[key].error ?? null,
        started_at: run.steps[key].started_at ?? null,
        completed_at: run.steps[key].completed_at ?? null,
        created_at: run.steps[key].created_at,
      }),
    ),
  };
}

/** 404 unless the automation is the caller's (a deleted automation's runs are not listed: they end `cancelled`). */
async function ownAutomation(caller: Caller, automationId: string): Promise<void> {
  if (!(await getItem(keys.automation(caller.projectId, automationId)))) throw notFound('Automation', 'automation_id');
}

export async function getRun(caller: Caller, automationId: string, runId: string) {
  await ownAutomation(caller, automationId);
  const run = await readRun(caller.projectId, automationId, runId);
  if (!run) throw notFound('Automation run', 'run_id');
  return toRun(run);
}

export async function listRuns(caller: Caller, automationId: string, page: PageRequest & { statuses?: RunStatus[] }) {
  await ownAutomation(caller, automationId);
  const statuses = page.statuses ?? [];
  const filter = statuses.length
    ? {
        expression: `#status IN (${statuses.map((_, i) => `:s${i}`).join(', ')})`,
        names: { '#status': 'status' },
        values: Object.fromEntries(statuses.map((s, i) => [`:s${i}`, s])),
      }
    : undefined;
  const { items, hasMore } = await queryPage<RunItem & Item>(
    keys.automationRuns(caller.projectId, automationId),
    page,
    filter,
  );
  return { records: items.map(toSummary), hasMore };
}

/** GET /automations/{id}/metrics: the 8 counters summed. */
export async function automationMetrics(caller: Caller, automationId: string) {
  await ownAutomation(caller, automationId);
  const shards = await batchGet(
    Array.from({ length: keys.AUTOMATION_METRIC_SHARDS }, (_, shard) =>
      keys.automationMetrics(caller.projectId, automationId, shard),
    ),
  );
  const sum = (name: string) => shards.reduce((n, item) => n + Number(item[name] ?? 0), 0);
  const steps: Record<string, Record<string, number>> = {};
  for (const item of shards)
    for (const [name, value] of Object.entries(item)) {
      const match = /^step:(.+):([a-z]+)$/.exec(name);
      if (!match) continue;
      const [, key, status] = match;
      steps[key] ??= {};
      steps[key][status] = (steps[key][status] ?? 0) + Number(value);
    }
  return {
    object: 'automation_metrics' as const,
    automation_id: automationId,
    runs: {
      started: sum('runs_started'),
      running: Math.max(0, sum('runs_started') - sum('runs_completed') - sum('runs_failed') - sum('runs_cancelled')),
      completed: sum('runs_completed'),
      failed: sum('runs_failed'),
      cancelled: sum('runs_cancelled'),
    },
    emails_sent: sum('emails_sent'),
    steps: Object.entries(steps).map(([key, counts]) => ({
      key,
      waiting: counts.waiting ?? 0,
      completed: counts.completed ?? 0,
      skipped: counts.skipped ?? 0,
      failed: counts.failed ?? 0,
    })),
  };
}
