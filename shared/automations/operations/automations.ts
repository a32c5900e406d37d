import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  deleted,
  errorEnvelope,
  id,
  listOf,
  listQuery,
  notFoundResponse,
} from '../../platform/http/schemas';

const tooLarge = {
  description: 'The steps and connections are over 128 KB (`automation_too_large`)',
  schema: errorEnvelope,
} as const;
import {
  automation,
  automationMetrics,
  automationRun,
  automationRunSummary,
  AUTOMATION_STATUSES,
  automationRef,
  automationStopped,
  automationSummary,
  createAutomationBody,
  MAX_STEPS,
  runStatusFilter,
  SYSTEM_EVENTS,
  updateAutomationBody,
} from '../model';

const automationParams = /* @__PURE__ */ (() => z.strictObject({ automation_id: id }))();

const graphRules = /* @__PURE__ */ (() =>
  `An automation is a graph of at most ${MAX_STEPS} steps (\`key\` unique, 1-64 letters, digits, _ or -) joined by connections ` +
  '(`from`, `to`, `type`): exactly one `trigger` `{event_name}`, nothing connecting into it; a `condition` (a ConditionRule on ' +
  '`event.<key>` / `contact.<field>`) needs its `condition_met` and `condition_not_met` connections, a `wait_for_event` ' +
  '`{event_name, timeout?, filter_rule?}` its `event_received` (and `timeout` when it has a timeout); every other step gives ' +
  '`default` (the type when none is given); every step is reachable from the trigger and no path comes back (no cycle). ' +
  'Durations (`delay.duration`, a wait\'s `timeout`) are phrases such as "3 days" or "1 hour 30 minutes", above 0 and at most 30 days. ' +
  `Event names are custom names (as POST /events takes them) or a system event: ${SYSTEM_EVENTS.join(', ')}. ` +
  "A `send_email` step's template (an id or an alias) must exist and be published, and the email must have a `from` and a " +
  "`subject`, the step's own or else the published template's; its `topic_id` and an `add_to_segment` step's `segment_id` must " +
  'exist. Each problem is a 422 naming its place (`steps.<i>...`, `connections.<i>...`) and the step. The steps and connections ' +
  'are at most 128 KB of JSON (413 `automation_too_large`).')();

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createAutomation',
    summary: 'Create an automation',
    description: `\`status\` is \`disabled\` unless given \`enabled\` (as on Resend). ${graphRules}`,
    tags: ['Automations'],
    auth: 'api_key',
    body: createAutomationBody,
    responses: { 201: { description: 'The new automation', schema: automationRef }, ...commonErrors, 413: tooLarge },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listAutomations',
    summary: 'List automations, newest first',
    tags: ['Automations'],
    auth: 'api_key',
    query: z
      .strictObject({ ...listQuery.shape, status: z.optional(z.enum(AUTOMATION_STATUSES)) })
      .check(
        z.refine((q) => !(q.after && q.before), { message: 'use either after or before, not both', path: ['before'] }),
      ),
    responses: { 200: { description: 'A page of automations', schema: listOf(automationSummary) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getAutomation',
    summary: 'Retrieve an automation with its steps and connections',
    description:
      '`version` counts the changes of the graph: each PATCH with `steps` and `connections` makes the next one, and a run keeps the ' +
      'version it started on.',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    responses: { 200: { description: 'The automation', schema: automation }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateAutomation',
    summary: 'Update an automation',
    description:
      'At least one of `name`, `status`, or `steps` with `connections` (the graph is replaced whole, as a new version; runs already ' +
      `going keep theirs). A change made meanwhile by another request is 409 \`concurrent_update\`. ${graphRules}`,
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    body: updateAutomationBody,
    responses: {
      200: { description: 'The automation was changed', schema: automationRef },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
      413: tooLarge,
    },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteAutomation',
    summary: 'Delete an automation',
    description: 'No new runs start. A second delete is 404.',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    responses: {
      200: { description: 'It is gone', schema: deleted('automation') },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const duplicate = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'duplicateAutomation',
    summary: 'Duplicate an automation',
    description: 'A copy of the current steps and connections, named "<name> (copy)", `disabled`.',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    responses: { 201: { description: 'The copy', schema: automationRef }, ...commonErrors, 404: notFoundResponse },
  }))();

export const stop = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'stopAutomation',
    summary: 'Stop an automation',
    description:
      'Sets `status` to `disabled`: no new runs start; runs already going finish. Stopping a disabled automation changes nothing.',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    responses: {
      200: { description: 'The automation is disabled', schema: automationStopped },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

const runParams = /* @__PURE__ */ (() => z.strictObject({ automation_id: id, run_id: id }))();

export const listRuns = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listAutomationRuns',
    summary: "List an automation's runs, newest first",
    description:
      'A run is one contact going through the automation, started by one event (an event delivered twice starts one run). ' +
      '`status` filters by one status or several, comma-separated (`running,failed`).',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    query: z
      .strictObject({ ...listQuery.shape, status: z.optional(runStatusFilter) })
      .check(
        z.refine((q) => !(q.after && q.before), { message: 'use either after or before, not both', path: ['before'] }),
      ),
    responses: {
      200: { description: 'A page of runs', schema: listOf(automationRunSummary) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const getRun = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getAutomationRun',
    summary: 'Retrieve a run with its steps',
    description:
      'The steps the run reached, in order, each with its `status` (`waiting` for a delay or a wait not over yet; `skipped` for a ' +
      "`send_email` to a contact unsubscribed or deleted), `output` (a send's `email_id`, a condition's `met`, the event a wait " +
      'received), `error` (the API error that failed it) and times. `version` is the graph the run follows.',
    tags: ['Automations'],
    auth: 'api_key',
    params: runParams,
    responses: { 200: { description: 'The run', schema: automationRun }, ...commonErrors, 404: notFoundResponse },
  }))();

export const metrics = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getAutomationMetrics',
    summary: "An automation's metrics",
    description:
      'Runs started, running, completed, failed and cancelled, emails sent, and per step how many times it ended in each status: ' +
      'counters kept as the runs go (no scan), over every run since the automation was created.',
    tags: ['Automations'],
    auth: 'api_key',
    params: automationParams,
    responses: {
      200: { description: 'The metrics', schema: automationMetrics },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
