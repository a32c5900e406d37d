/**
 * The automation engine: events start and resume runs (the matcher), and runs go step by step
 * through the step queue (./step-queue.ts).
 *
 * The matcher (`matchEvent`), for one event of one contact (a custom event from POST /events/send,
 * or a system event: ./events-forward.ts):
 * 1. resumes the runs waiting for this event of this contact: each waiter (a Query of the
 *    contact's and event's partition) whose `filter_rule` holds is claimed with a condition
 *    (`resumed_by` set once: the event or the wait's timeout, never both), then its step is
 *    queued with the event;
 * 2. then starts a run in each enabled automation this event triggers (a Query of the event
 *    name's trigger partition), on the automation's current version, and queues its trigger step.
 *    The run's id derives from automation and event, so a redelivered event starts none twice.
 *
 * A step (`runStep`) runs once: its outcome is written with a condition that it was not written
 * before (./runs.ts), then the step it leads to is queued. A message for a step already done only
 * sends on what it led to. What a step does before its outcome is written is safe to do again:
 * `send_email` accepts its email with the idempotency key `automation:<run id>:<step key>` through
 * the same path as POST /emails (suppressions, topics, quotas, the reputation guard, test mode);
 * contact changes set the same values again.
 *
 * - A `delay` and a `wait_for_event` are `waiting` until their time (./step-queue.ts
 *   `scheduleStep`) or their event.
 * - A contact that is unsubscribed, or gone, makes a `send_email` step `skipped` (as Resend does),
 *   and contact steps `skipped` when the contact is gone; the run goes on.
 * - A step the API would refuse (a template unpublished since, a send the quota refuses) is
 *   `failed` with the API's error, and so is its run. Anything else (a throttled table, SES) throws:
 *   the message comes back (5 receives, then the DLQ).
 * - A run whose automation was deleted ends `cancelled` at its next step; `stop` (disabled) lets
 *   runs in flight finish.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, isConditionFailed, put, queryPage, update, updateItem, type Item } from '../platform/db/table';
import { ApiError } from '../platform/errors';
import { now as clockNow, nowIso } from '../platform/clock';
import { logger } from '../platform/log';
import { parseDuration } from '../platform/duration';
import { addContactToSegment, deleteContact, findContact, updateContact } from '../audience/contacts';
import type { ContactItem } from '../audience/contacts';
import { acceptEmails } from '../emails/emails';
import { idempotencyRequest } from '../emails/idempotency';
import { sendEmailBody } from '../emails/model';
import { updateContactBody } from '../audience/model';
import type { AutomationConnection, AutomationStep, ConnectionType } from './model';
import { resolveVars, ruleHolds, type RuleContext, type RunContact } from './rules';
import {
  createRun,
  endRun,
  isStepRecorded,
  readRun,
  recordStep,
  RUN_EXISTS,
  runIdFor,
  type Counter,
  type RunItem,
  type StepState,
  type StepStatus,
} from './runs';
import { enqueueSteps, scheduleStep, type StepMessage } from './step-queue';

/** An event for the automations of one contact: what the matcher reads (./events-forward.ts builds it). */
export interface AutomationEvent {
  project_id: string;
  livemode: boolean;
  /** the platform event's id */
  id: string;
  /** a custom event's name, or a system event's (`resend:email.delivered`) */
  name: string;
  created_at: string;
  /** the contact: its id (custom events) or its address (system events; no contact with it: no run) */
  contact_id?: string;
  email?: string;
  payload: Record<string, unknown>;
}

interface Graph {
  steps: AutomationStep[];
  connections: AutomationConnection[];
}

/** Versions never change once written, so each is read once per function instance. */
const graphs = new Map<string, Promise<Graph | undefined>>();
function graphOf(projectId: string, automationId: string, version: number): Promise<Graph | undefined> {
  const id = `${projectId}/${automationId}/${version}`;
  let graph = graphs.get(id);
  if (!graph) {
    graph = getItem(keys.automationVersion(projectId, automationId, version)).then((item) =>
      item
        ? { steps: item.steps as AutomationStep[], connections: item.connections as AutomationConnection[] }
        : undefined,
    );
    graphs.set(id, graph);
    graph.catch(() => graphs.delete(id));
  }
  return graph;
}

const callerOf = (run: Pick<RunItem, 'project_id' | 'livemode'>): Caller => ({
  projectId: run.project_id,
  livemode: run.livemode,
  permission: 'full_access',
});

const runContact = (item: ContactItem): RunContact => ({
  id: item.id,
  email: item.email,
  first_name: item.first_name ?? null,
  last_name: item.last_name ?? null,
  unsubscribed: Boolean(item.unsubscribed),
  properties: (item.properties as Record<string, unknown> | undefined) ?? {},
});

async function allItems(collection: { PK: string; prefix: string }): Promise<Item[]> {
  const all: Item[] = [];
  let after: string | undefined;
  do {
    const page = await queryPage(collection, { limit: 100, after });
    all.push(...page.items);
    after = page.hasMore ? String(page.items[page.items.length - 1].SK).slice(collection.prefix.length) : undefined;
  } while (after);
  return all;
}

// The matcher

/** Resumes the event's waiting runs, then starts the runs it triggers; throws when something must be tried again. */
export async function matchEvent(event: AutomationEvent): Promise<void> {
  const contactItem = await findContact(event.project_id, event.contact_id ?? event.email ?? '');
  if (!contactItem) return; // a system event of an address that is no contact: nothing to run for
  const contact = runContact(contactItem);
  const messages = [...(await resumeWaiters(event, contact)), ...(await startRuns(event, contact))];
  await enqueueSteps(messages);
}

/**
 * Claims a waiter for `by` (an event's id, or `timeout`): `resumed_by` is set once, so the event and
 * the timeout never both win; claiming again for the same one holds (a redelivered message).
 * False when another got there first, or the waiter is gone.
 */
async function claimWaiter(key: { PK: string; SK: string }, by: string): Promise<boolean> {
  try {
    await updateItem(
      update(
        key,
        {
          set: { resumed_by: by },
          condition: {
            expression: 'attribute_exists(PK) AND (attribute_not_exists(#by) OR #by = :by)',
            names: { '#by': 'resumed_by' },
            values: { ':by': by },
          },
        },
        { tag: 'waiter claimed' },
      ),
    );
    return true;
  } catch (error) {
    if (isConditionFailed(error, 'waiter claimed')) return false;
    throw error;
  }
}

async function resumeWaiters(event: AutomationEvent, contact: RunContact): Promise<StepMessage[]> {
  const waiters = await allItems(keys.automationWaiters(event.project_id, contact.id, event.name));
  const messages: StepMessage[] = [];
  for (const waiter of waiters) {
    if (waiter.created_at > event.created_at) continue; // the wait began after this event
    if (waiter.filter_rule && !ruleHolds(waiter.filter_rule, { event: event.payload, contact })) continue;
    // false: its timeout, or another event, came first
    if (!(await claimWaiter({ PK: waiter.PK, SK: waiter.SK }, event.id))) continue;
    messages.push({
      project_id: event.project_id,
      automation_id: waiter.automation_id,
      run_id: waiter.run_id,
      step: waiter.step,
      resume: { kind: 'event', event: { id: event.id, name: event.name, payload: event.payload } },
    });
  }
  return messages;
}

async function startRuns(event: AutomationEvent, contact: RunContact): Promise<StepMessage[]> {
  const triggers = await allItems(keys.automationTriggers(event.project_id, event.name));
  const started = await Promise.all(
    triggers.map(async (trigger): Promise<StepMessage | undefined> => {
      const automationId = trigger.automation_id as string;
      const graph = await graphOf(event.project_id, automationId, trigger.version);
      const first = graph?.steps.find((s) => s.type === 'trigger');
      if (!first) return undefined; // the automation was deleted meanwhile
      const runId = runIdFor(automationId, event.id);
      const message = { project_id: event.project_id, automation_id: automationId, run_id: runId, step: first.key };
      try {
        await createRun({
          project_id: event.project_id,
          automation_id: automationId,
          id: runId,
          livemode: event.livemode,
          version: trigger.version,
          status: 'running',
          contact_id: contact.id,
          email: contact.email,
          event: { id: event.id, name: event.name, payload: event.payload },
          created_at: nowIso(),
          started_at: nowIso(),
          completed_at: null,
        });
        return message;
      } catch (error) {
        if (!isConditionFailed(error, RUN_EXISTS)) throw error;
        // started before; its first message may not have gone out (the run has no step yet)
        return (error.item as RunItem | undefined)?.path.length === 0 ? message : undefined;
      }
    }),
  );
  return started.filter((m): m is StepMessage => m !== undefined);
}

// The steps

const DONE: readonly StepStatus[] = ['completed', 'skipped', 'failed'];

interface Outcome {
  status: 'completed' | 'skipped' | 'failed';
  output?: Record<string, unknown> | null;
  error?: Record<string, unknown> | null;
  /** the connection taken (default: `default`) */
  edge?: ConnectionType;
  counters?: Counter[];
  /** writes that go with the outcome (a waiter's delete) */
  extra?: ReturnType<typeof del>[];
}

/** Runs one step of one run (see the module comment); throws when the message is to come back. */
export async function runStep(message: StepMessage): Promise<void> {
  const run = await readRun(message.project_id, message.automation_id, message.run_id);
  if (!run || run.status !== 'running') return; // ended (or expired): nothing to do
  const state = run.steps[message.step];
  if (state && DONE.includes(state.status)) return sendOn(run, state.next ?? null);
  const [graph, automation] = await Promise.all([
    graphOf(run.project_id, run.automation_id, run.version),
    getItem(keys.automation(run.project_id, run.automation_id)),
  ]);
  if (!automation || !graph) return endRun(run, 'cancelled'); // the automation was deleted
  const step = graph.steps.find((s) => s.key === message.step);
  if (!step) return logger.error('automation step not in its version', { run_id: run.id, step: message.step });

  const outcome = await perform(run, step, state, message);
  if (!outcome) return; // waiting
  const next =
    outcome.status === 'failed'
      ? null
      : (graph.connections.find((c) => c.from === step.key && c.type === (outcome.edge ?? 'default'))?.to ?? null);
  const now = nowIso();
  const done: StepState = {
    type: step.type,
    status: outcome.status,
    output: outcome.output ?? null,
    error: outcome.error ?? null,
    started_at: state?.started_at ?? now,
    completed_at: now,
    created_at: state?.created_at ?? now,
    next,
  };
  try {
    await recordStep(run, step.key, done, {
      runEnd: next ? undefined : outcome.status === 'failed' ? 'failed' : 'completed',
      counters: outcome.counters,
      extra: outcome.extra,
    });
  } catch (error) {
    if (!isStepRecorded(error)) throw error;
    // a duplicate message recorded it first: send on what it recorded
    const again = await readRun(run.project_id, run.automation_id, run.id);
    const recorded = again?.steps[step.key];
    if (again?.status === 'running' && recorded && DONE.includes(recorded.status))
      return sendOn(again, recorded.next ?? null);
    return;
  }
  return sendOn(run, next);
}

async function sendOn(run: RunItem, next: string | null): Promise<void> {
  if (!next) return;
  await enqueueSteps([{ project_id: run.project_id, automation_id: run.automation_id, run_id: run.id, step: next }]);
}

/** A step's `waiting` state, written once (a duplicate finds it written and only schedules again). */
async function wait(run: RunItem, step: AutomationStep, resumeAt: number, extra: ReturnType<typeof put>[] = []) {
  const now = nowIso();
  const state: StepState = {
    type: step.type,
    status: 'waiting',
    output: null,
    error: null,
    started_at: now,
    completed_at: null,
    created_at: now,
    resume_at: new Date(resumeAt).toISOString(),
  };
  try {
    await recordStep(run, step.key, state, { extra });
    return true;
  } catch (error) {
    if (!isStepRecorded(error)) throw error;
    return false;
  }
}

/** `event.*` in a step: the payload of the last event a wait received, else the trigger's. */
function latestEvent(run: RunItem): Record<string, unknown> {
  for (const key of [...run.path].reverse()) {
    const received = run.steps[key].output?.event as { payload?: Record<string, unknown> } | undefined;
    if (run.steps[key].type === 'wait_for_event' && received?.payload) return received.payload;
  }
  return run.event.payload;
}

const stepMessage = (run: RunItem, step: AutomationStep): StepMessage => ({
  project_id: run.project_id,
  automation_id: run.automation_id,
  run_id: run.id,
  step: step.key,
});

async function perform(
  run: RunItem,
  step: AutomationStep,
  state: StepState | undefined,
  message: StepMessage,
): Promise<Outcome | undefined> {
  const context: RuleContext = { event: latestEvent(run) };
  const contact = async () => {
    const item = await findContact(run.project_id, run.contact_id);
    context.contact = item ? runContact(item) : undefined;
    return context.contact;
  };
  switch (step.type) {
    case 'trigger':
      return { status: 'completed', output: { event: { id: run.event.id, name: run.event.name } } };

    case 'delay': {
      if (!state) {
        const at = clockNow() + (parseDuration(step.config.duration) ?? 0);
        await wait(run, step, at);
        await scheduleStep({ ...stepMessage(run, step), resume: { kind: 'delay' } }, at);
        return undefined;
      }
      const due = Date.parse(state.resume_at ?? '');
      if (clockNow() < due) {
        await scheduleStep({ ...stepMessage(run, step), resume: { kind: 'delay' } }, due); // early: the rest of it
        return undefined;
      }
      return { status: 'completed', output: { waited_until: state.resume_at } };
    }

    case 'wait_for_event': {
      const config = step.config;
      const timeoutMs = config.timeout ? (parseDuration(config.timeout) ?? 0) : undefined;
      const waiterKey = keys.automationWaiter(run.project_id, run.contact_id, config.event_name, run.id, step.key);
      if (!state) {
        const at = timeoutMs === undefined ? clockNow() + 366 * 24 * 3600_000 : clockNow() + timeoutMs;
        const waiter = put({
          ...waiterKey,
          type: 'automation_waiter',
          project_id: run.project_id,
          automation_id: run.automation_id,
          run_id: run.id,
          step: step.key,
          filter_rule: config.filter_rule ?? null,
          created_at: nowIso(),
          expires_at: Math.floor(at / 1000) + 24 * 3600,
        });
        await wait(run, step, at, [waiter]);
        if (timeoutMs !== undefined) await scheduleStep({ ...stepMessage(run, step), resume: { kind: 'timeout' } }, at);
        return undefined;
      }
      const resume = message.resume;
      if (resume?.kind === 'event')
        return {
          status: 'completed',
          output: { event: resume.event },
          edge: 'event_received',
          extra: [del(waiterKey)],
        };
      if (timeoutMs === undefined) return undefined; // a duplicate of the first message: still waiting
      const due = Date.parse(state.resume_at ?? '');
      if (clockNow() < due) {
        await scheduleStep({ ...stepMessage(run, step), resume: { kind: 'timeout' } }, due);
        return undefined;
      }
      if (!(await claimWaiter(waiterKey, 'timeout'))) return undefined; // the event came first: its message moves the run
      return { status: 'completed', output: { timed_out: true }, edge: 'timeout', extra: [del(waiterKey)] };
    }

    case 'condition': {
      if (JSON.stringify(step.config).includes('"contact.')) await contact();
      const met = ruleHolds(step.config, context);
      return { status: 'completed', output: { met }, edge: met ? 'condition_met' : 'condition_not_met' };
    }

    case 'send_email': {
      const recipient = await contact();
      if (!recipient) return { status: 'skipped', output: { reason: 'contact_deleted' } };
      if (recipient.unsubscribed) return { status: 'skipped', output: { reason: 'unsubscribed' } };
      return sendEmailStep(run, step, context, recipient);
    }

    case 'contact_update': {
      const current = await contact();
      if (!current) return { status: 'skipped', output: { reason: 'contact_deleted' } };
      // as PATCH /contacts/{id} takes it (its address, which it requires, unchanged), checked by the same schema
      const change = updateContactBody.safeParse({
        ...(resolveVars(step.config, context) as object),
        email: current.email,
      });
      if (!change.success) return refused(change.error.issues[0]);
      return apiStep(async () => {
        await updateContact(callerOf(run), run.contact_id, change.data);
        return { contact_id: run.contact_id };
      });
    }

    case 'contact_delete': {
      if (!(await contact())) return { status: 'completed', output: { contact_id: run.contact_id } }; // deleted before (or by a first try)
      return apiStep(async () => {
        await deleteContact(callerOf(run), run.contact_id);
        return { contact_id: run.contact_id };
      });
    }

    case 'add_to_segment': {
      if (!(await contact())) return { status: 'skipped', output: { reason: 'contact_deleted' } };
      return apiStep(async () => {
        await addContactToSegment(callerOf(run), run.contact_id, step.config.segment_id);
        return { contact_id: run.contact_id, segment_id: step.config.segment_id };
      });
    }
  }
}

/** A step done through the API's own operation: its refusal (4xx) fails the step with the API's error. */
async function apiStep(work: () => Promise<Record<string, unknown>>, counters?: Counter[]): Promise<Outcome> {
  try {
    return { status: 'completed', output: await work(), counters };
  } catch (error) {
    if (!(error instanceof ApiError) || error.statusCode >= 500) throw error;
    return {
      status: 'failed',
      error: { name: error.errorName, status_code: error.statusCode, message: error.message },
    };
  }
}

/** A step whose request the API's schema refuses (a `{var}` that resolved to a value the field does not take): failed, with a 422 as the API would answer. */
function refused(issue: { message: string; path: PropertyKey[] } | undefined): Outcome {
  const path = issue?.path.map(String).join('.');
  return {
    status: 'failed',
    error: {
      name: 'validation_error',
      status_code: 422,
      message: `${path ? `${path}: ` : ''}${issue?.message ?? 'invalid'}`,
    },
  };
}

/** A template variable's value for the send: strings and numbers as they are, anything else as text (absent: left out). */
function variableValue(value: unknown): string | number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

async function sendEmailStep(
  run: RunItem,
  step: Extract<AutomationStep, { type: 'send_email' }>,
  context: RuleContext,
  recipient: RunContact,
): Promise<Outcome> {
  const config = step.config;
  const variables = Object.fromEntries(
    Object.entries(config.template.variables ?? {})
      .map(([name, value]) => [name, variableValue(resolveVars(value, context))] as const)
      .filter(([, value]) => value !== undefined),
  );
  const input = {
    to: [recipient.email],
    template: { id: config.template.id, ...(Object.keys(variables).length ? { variables } : {}) },
    ...(config.from ? { from: config.from } : {}),
    ...(config.subject ? { subject: config.subject } : {}),
    ...(config.reply_to ? { reply_to: config.reply_to } : {}),
    ...(config.topic_id ? { topic_id: config.topic_id } : {}),
    tags: [{ name: 'automation_id', value: run.automation_id }],
  };
  const parsed = sendEmailBody.safeParse(input);
  if (!parsed.success) return refused(parsed.error.issues[0]);
  const caller = callerOf(run);
  const idempotency = idempotencyRequest(run.project_id, `automation:${run.id}:${step.key}`, parsed.data);
  return apiStep(async () => {
    const { ids } = await acceptEmails(caller, [parsed.data], { batch: false, idempotency });
    return { email_id: ids[0] };
  }, ['emails_sent']);
}
