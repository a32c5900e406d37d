/**
 * The automations feature's model: custom events (Resend's `events.create/get/update/remove/send`),
 * the definitions a project sends by name to start and resume automations. Zod and the platform's
 * schemas only.
 */
import * as z from 'zod/mini';
import { contactEmail } from '../audience/model';
import { MAX_ADDRESS_LENGTH } from '../platform/mail/addresses';
import { id, timestamp } from '../platform/http/schemas';
import { UUID_PATTERN } from '../platform/ids';

/** What a custom event's payload value may be declared as (the SDK's `EventSchemaType`). */
export const EVENT_SCHEMA_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type EventSchemaType = (typeof EVENT_SCHEMA_TYPES)[number];

/** Names of system events (sent by the service itself, never by POST /events or /events/send). */
export const SYSTEM_EVENT_PREFIX = 'resend:';
export const MAX_EVENT_NAME_LENGTH = 100;
export const MAX_SCHEMA_KEYS = 50;
export const EVENT_SCHEMA_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** A sent event's payload, as JSON (it travels in the platform event and in every step that reads it). */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

/**
 * A custom event's name: 1-100 characters without control characters or `/`, not a UUID (paths take
 * an id or a name), not `send` (POST /events/send), not starting with `resend:` (system events).
 */
export const eventName = /* @__PURE__ */ (() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(MAX_EVENT_NAME_LENGTH),
    z.superRefine((name, ctx) => {
      const problem = eventNameProblem(name);
      if (problem) ctx.addIssue({ code: 'custom', message: problem, input: name });
    }),
  ))();

export function eventNameProblem(name: string): string | undefined {
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}/]/u.test(name)) return 'must not contain control characters or /';
  if (name.trim() !== name) return 'must not begin or end with white space';
  if (UUID_PATTERN.test(name)) return 'must not be a UUID (paths take an event id or its name)';
  if (name === 'send') return '"send" is the path of POST /events/send';
  if (name.startsWith(SYSTEM_EVENT_PREFIX))
    return `names beginning ${SYSTEM_EVENT_PREFIX} are the service's system events`;
  return undefined;
}

/** `{key: type}`, flat; null: no schema (any payload). */
export const eventSchemaMap = /* @__PURE__ */ (() =>
  z.nullable(
    z
      .record(
        z
          .string()
          .check(z.regex(EVENT_SCHEMA_KEY, 'schema keys are 1-64 letters, digits or _, not starting with a digit')),
        z.enum(EVENT_SCHEMA_TYPES),
      )
      .check(z.refine((s) => Object.keys(s).length <= MAX_SCHEMA_KEYS, `at most ${MAX_SCHEMA_KEYS} keys`)),
  ))();
export type EventSchemaMap = z.output<typeof eventSchemaMap>;

/** A custom event as GET /events/{id_or_name} shows it (the SDK's `Event`). */
export const customEvent = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('event'),
    id,
    name: z.string(),
    schema: eventSchemaMap,
    created_at: timestamp,
    updated_at: z.nullable(timestamp),
  }))();
export type CustomEvent = z.output<typeof customEvent>;

export const createCustomEventBody = /* @__PURE__ */ (() =>
  z.strictObject({ name: eventName, schema: z.optional(eventSchemaMap) }))();
export type CreateCustomEventInput = z.output<typeof createCustomEventBody>;
export const customEventCreated = /* @__PURE__ */ (() => z.object({ object: z.literal('event'), id }))();

export const updateCustomEventBody = /* @__PURE__ */ (() => z.strictObject({ schema: eventSchemaMap }))();
export type UpdateCustomEventInput = z.output<typeof updateCustomEventBody>;

/** What POST /events/send takes: the event's name, exactly one of `contact_id` and `email`, and a payload. */
export const sendEventBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      event: z.string().check(
        z.minLength(1),
        z.maxLength(MAX_EVENT_NAME_LENGTH),
        z.refine((name) => !name.startsWith(SYSTEM_EVENT_PREFIX), {
          message: `events beginning ${SYSTEM_EVENT_PREFIX} are sent by the service itself`,
        }),
      ),
      contact_id: z.optional(id),
      email: z.optional(contactEmail),
      payload: z.optional(z.record(z.string(), z.unknown())),
    })
    .check(
      z.refine((b) => (b.contact_id === undefined) !== (b.email === undefined), {
        message: 'give exactly one of contact_id and email',
        path: ['contact_id'],
      }),
    ))();
export type SendEventInput = z.output<typeof sendEventBody>;

/** What POST /events/send answers (202): the SDK's `{object, event}`, and the id of what was sent. */
export const eventSent = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('event'), event: z.string(), id, contact_id: id }))();

/** A sent event as the platform event `custom_event.sent` carries it (`data.object`). */
export interface SentEvent {
  object: 'custom_event';
  id: string;
  event: string;
  contact_id: string;
  email: string;
  payload: Record<string, unknown>;
}

// Automations (Resend's `automations.*`): a trigger, then steps joined by connections.

export const AUTOMATION_STATUSES = ['enabled', 'disabled'] as const;
export const STEP_TYPES = [
  'trigger',
  'delay',
  'send_email',
  'wait_for_event',
  'condition',
  'contact_update',
  'contact_delete',
  'add_to_segment',
] as const;
export type StepType = (typeof STEP_TYPES)[number];
export const CONNECTION_TYPES = ['default', 'condition_met', 'condition_not_met', 'timeout', 'event_received'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];

/** The system events a trigger or a wait may name (fed from the platform events the service writes, for the contact whose address it is). */
export const SYSTEM_EVENTS = [
  'resend:email.delivered',
  'resend:email.opened',
  'resend:email.clicked',
  'resend:email.bounced',
  'resend:contact.created',
  'resend:email.received',
] as const;

export const MAX_STEPS = 100;
export const STEP_KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** The longest delay or wait: 30 days. */
export const MAX_WAIT_MS = 30 * 24 * 60 * 60 * 1000;
/** A step's `{var: "event.x"}` / `{var: "contact.y"}`: a value of the run's event payload or of its contact. */
export const VAR_REFERENCE = /^(event|contact)\.[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const varRef = /* @__PURE__ */ (() =>
  z.strictObject({
    var: z.string().check(z.regex(VAR_REFERENCE, 'must be event.<key> or contact.<field>')),
  }))();
const scalar = /* @__PURE__ */ (() => z.union([z.string().check(z.maxLength(2000)), z.number(), z.boolean()]))();
/** A template variable's value in a step (the SDK's `TemplateVariableValue`). */
const variableValue = /* @__PURE__ */ (() =>
  z.union([
    scalar,
    varRef,
    z.record(z.string(), scalar),
    z.array(z.union([scalar, z.record(z.string(), scalar)])).check(z.maxLength(100)),
  ]))();
const stepEventName = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(MAX_EVENT_NAME_LENGTH)))();

/** A condition (a step's `config`, a wait's `filter_rule`): checked by shared/automations/graph.ts `ruleProblems`, which names the place. */
const conditionRule = /* @__PURE__ */ (() =>
  z.record(z.string(), z.unknown()).check(
    z.meta({
      description:
        'A ConditionRule: `{type: "rule", field, operator, value?}` or `{type: "and" | "or", rules: [...]}` (at most 5 levels, 50 rules)',
    }),
  ))();

const stepConfigs = /* @__PURE__ */ (() =>
  ({
    trigger: z.strictObject({ event_name: stepEventName }),
    delay: z.strictObject({ duration: z.string().check(z.minLength(1), z.maxLength(100)) }),
    send_email: z.strictObject({
      template: z.strictObject({
        id: z.string().check(z.minLength(1), z.maxLength(64)),
        variables: z.optional(z.record(z.string().check(z.maxLength(64)), variableValue)),
      }),
      subject: z.optional(z.nullable(z.string().check(z.maxLength(998)))),
      from: z.optional(z.nullable(z.string().check(z.maxLength(MAX_ADDRESS_LENGTH * 2)))),
      reply_to: z.optional(z.nullable(z.union([z.string(), z.array(z.string()).check(z.maxLength(50))]))),
      topic_id: z.optional(z.nullable(id)),
    }),
    wait_for_event: z.strictObject({
      event_name: stepEventName,
      timeout: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(100)))),
      filter_rule: z.optional(z.nullable(conditionRule)),
    }),
    condition: conditionRule,
    contact_update: z.strictObject({
      first_name: z.optional(z.union([z.nullable(z.string().check(z.maxLength(256))), varRef])),
      last_name: z.optional(z.union([z.nullable(z.string().check(z.maxLength(256))), varRef])),
      unsubscribed: z.optional(z.union([z.boolean(), varRef])),
      properties: z.optional(
        z.record(
          z.string(),
          z.union([z.nullable(z.union([z.string().check(z.maxLength(2000)), z.number(), z.boolean()])), varRef]),
        ),
      ),
    }),
    contact_delete: z.strictObject({}),
    add_to_segment: z.strictObject({ segment_id: id }),
  }) as const)();

const stepOf = <T extends StepType>(type: T) =>
  z.strictObject({
    key: z.string().check(z.regex(STEP_KEY, 'step keys are 1-64 letters, digits, _ or -')),
    type: z.literal(type),
    config: stepConfigs[type],
  });

export const automationStep = /* @__PURE__ */ (() =>
  z.discriminatedUnion('type', [
    stepOf('trigger'),
    stepOf('delay'),
    stepOf('send_email'),
    stepOf('wait_for_event'),
    stepOf('condition'),
    stepOf('contact_update'),
    stepOf('contact_delete'),
    stepOf('add_to_segment'),
  ]))();
export type AutomationStep = z.output<typeof automationStep>;

export const automationConnection = /* @__PURE__ */ (() =>
  z.strictObject({
    from: z.string().check(z.minLength(1), z.maxLength(64)),
    to: z.string().check(z.minLength(1), z.maxLength(64)),
    type: z.optional(z.enum(CONNECTION_TYPES)),
  }))();
export type AutomationConnectionInput = z.output<typeof automationConnection>;
export interface AutomationConnection {
  from: string;
  to: string;
  type: ConnectionType;
}

const automationName = /* @__PURE__ */ (() => z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))();
const steps = /* @__PURE__ */ (() => z.array(automationStep).check(z.minLength(1), z.maxLength(MAX_STEPS)))();
const connections = /* @__PURE__ */ (() => z.array(automationConnection).check(z.maxLength(MAX_STEPS * 2)))();

export const createAutomationBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: automationName,
    status: z.optional(z.enum(AUTOMATION_STATUSES)),
    steps,
    connections,
  }))();
export type CreateAutomationInput = z.output<typeof createAutomationBody>;

/** At least one of `name`, `status`, or `steps` with `connections` (the graph is replaced whole). */
export const updateAutomationBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      name: z.optional(automationName),
      status: z.optional(z.enum(AUTOMATION_STATUSES)),
      steps: z.optional(steps),
      connections: z.optional(connections),
    })
    .check(
      z.refine((b) => (b.steps === undefined) === (b.connections === undefined), {
        message: 'steps and connections are replaced together: give both',
        path: ['steps'],
      }),
      z.refine((b) => Object.values(b).some((v) => v !== undefined), {
        message: 'give at least one of name, status, or steps with connections',
        path: [],
      }),
    ))();
export type UpdateAutomationInput = z.output<typeof updateAutomationBody>;

export const automationSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('automation'),
    id,
    name: z.string(),
    status: z.enum(AUTOMATION_STATUSES),
    created_at: timestamp,
    updated_at: z.nullable(timestamp),
  }))();
export type AutomationSummary = z.output<typeof automationSummary>;

export const automation = /* @__PURE__ */ (() =>
  z.object({
    ...automationSummary.shape,
    /** the graph's version: each change of steps or connections makes a new one; a run keeps the one it started on */
    version: z.number(),
    steps: z.array(z.object({ key: z.string(), type: z.enum(STEP_TYPES), config: z.record(z.string(), z.unknown()) })),
    connections: z.array(z.object({ from: z.string(), to: z.string(), type: z.enum(CONNECTION_TYPES) })),
  }))();
export type Automation = z.output<typeof automation>;

export const automationRef = /* @__PURE__ */ (() => z.object({ object: z.literal('automation'), id }))();
export const automationStopped = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('automation'), id, status: z.literal('disabled') }))();

// Runs (Resend's `automations.runs.*`) and metrics (ours)

export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export const RUN_STEP_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'waiting'] as const;

export const automationRunSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('automation_run'),
    id,
    status: z.enum(RUN_STATUSES),
    started_at: z.nullable(timestamp),
    completed_at: z.nullable(timestamp),
    created_at: timestamp,
  }))();

export const automationRun = /* @__PURE__ */ (() =>
  z.object({
    ...automationRunSummary.shape,
    automation_id: id,
    /** the version of the graph the run follows (the one current when it started) */
    version: z.number(),
    contact_id: id,
    email: z.string(),
    /** the event that started it */
    event: z.object({ id, name: z.string() }),
    /** the steps reached, in order */
    steps: z.array(
      z.object({
        key: z.string(),
        type: z.enum(STEP_TYPES),
        status: z.enum(RUN_STEP_STATUSES),
        output: z.nullable(z.record(z.string(), z.unknown())),
        error: z.nullable(z.record(z.string(), z.unknown())),
        started_at: z.nullable(timestamp),
        completed_at: z.nullable(timestamp),
        created_at: timestamp,
      }),
    ),
  }))();

/** `status`: one status or several, comma-separated (as the SDK sends a list). */
export const runStatusFilter = /* @__PURE__ */ (() =>
  z.string().check(
    z.refine((value) => value.split(',').every((s) => (RUN_STATUSES as readonly string[]).includes(s)), {
      message: `one or more of ${RUN_STATUSES.join(', ')}, comma-separated`,
    }),
  ))();

export const automationMetrics = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('automation_metrics'),
    automation_id: id,
    runs: z.object({
      started: z.number(),
      running: z.number(),
      completed: z.number(),
      failed: z.number(),
      cancelled: z.number(),
    }),
    emails_sent: z.number(),
    /** per step that ran: how many times it was `waiting` (a delay or a wait begun) and how many it ended in each status */
    steps: z.array(
      z.object({
        key: z.string(),
        waiting: z.number(),
        completed: z.number(),
        skipped: z.number(),
        failed: z.number(),
      }),
    ),
  }))();
