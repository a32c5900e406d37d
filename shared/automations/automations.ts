/**
 * Automations (Resend's `automations.*`): a graph of steps from one trigger, stored in versions so
 * that editing an automation never changes a run already going (a run keeps the version it started
 * on).
 *
 * Storage (shared/platform/db/keys.ts): the automation item (name, status, current `version`, the
 * trigger's event name), one item per version of the graph (steps and connections), and, while it
 * is enabled, an entry under its trigger's event name, which is how a sent event finds the
 * automations it starts (a Query of that name's partition). Every change is one transaction: the
 * automation item with a condition on the version and status it was read at (409 `concurrent_update`
 * otherwise), the new version when the graph changes, and the trigger entry put, moved or deleted.
 *
 * Rules (beside the graph's, ./graph.ts), checked at create and update (422 naming the step):
 * - `send_email`: its template (`template.id`, an id or an alias) exists and is published, and the
 *   email has a From and a subject, the step's own or else the published template's (Resend's rule,
 *   DESIGN.md); its `topic_id` is a topic of the project.
 * - `add_to_segment`: the segment exists.
 * - The steps and connections are at most MAX_GRAPH_BYTES of JSON (413 `automation_too_large`).
 * - New automations are `disabled` unless created `enabled` (as on Resend). `stop` disables: no new
 *   runs start.
 *
 * The project's set of system events in use (keys.ts `automationSystemEvents`) gains the ones a
 * written version names, so the outbox forwards those events to the automations.
 *
 * Deleting an automation removes it and its trigger entry; its versions stay for the runs that
 * read them (they are small, and a run in flight must still find its graph).
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, put, queryPage, transact, update, type Item, type PageRequest } from '../platform/db/table';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { findTemplate } from '../templates/templates';
import { graphProblems, withTypes } from './graph';
import type {
  Automation,
  AutomationConnection,
  AutomationStep,
  AutomationSummary,
  CreateAutomationInput,
  UpdateAutomationInput,
} from './model';
import { SYSTEM_EVENT_PREFIX } from './model';

interface AutomationItem {
  type: 'automation';
  project_id: string;
  id: string;
  name: string;
  status: 'enabled' | 'disabled';
  version: number;
  trigger_event: string;
  created_at: string;
  updated_at: string | null;
}

interface VersionItem {
  steps: AutomationStep[];
  connections: AutomationConnection[];
}

const missing = () => notFound('Automation', 'id');
const changedMeanwhile = () =>
  conflict('concurrent_update', 'The automation was changed by another request meanwhile; try again');

const toSummary = (item: AutomationItem): AutomationSummary => ({
  object: 'automation',
  id: item.id,
  name: item.name,
  status: item.status,
  created_at: item.created_at,
  updated_at: item.updated_at ?? null,
});

const triggerOf = (steps: AutomationStep[]): string =>
  (steps.find((s) => s.type === 'trigger') as Extract<AutomationStep, { type: 'trigger' }>).config.event_name;

/** What the graph needs of the table: published templates with a From and a subject, topics and segments that exist. */
async function referenceProblems(projectId: string, steps: AutomationStep[]): Promise<ErrorDetail[]> {
  const checks = steps.map(async (step, i): Promise<ErrorDetail[]> => {
    const at = `steps.${i}.config`;
    const invalid = (code: string, path: string, message: string) => [
      { code, path, message: `${step.key}: ${message}` },
    ];
    if (step.type === 'add_to_segment') {
      const segment = await getItem(keys.segment(projectId, step.config.segment_id));
      return segment ? [] : invalid('unknown_segment', `${at}.segment_id`, 'no segment with this id in this project');
    }
    if (step.type !== 'send_email') return [];
    const found: ErrorDetail[] = [];
    if (step.config.topic_id && !(await getItem(keys.topic(projectId, step.config.topic_id))))
      found.push(...invalid('unknown_topic', `${at}.topic_id`, 'no topic with this id in this project'));
    const template = await findTemplate(projectId, step.config.template.id);
    if (!template)
      return [...found, ...invalid('unknown_template', `${at}.template.id`, 'no template with this id or alias')];
    const published = template.published;
    if (!published)
      return [
        ...found,
        ...invalid('template_not_published', `${at}.template.id`, 'the template is not published (publish it first)'),
      ];
    if (!step.config.from && !published.from)
      found.push(...invalid('missing_from', `${at}.from`, 'neither the step nor its published template has a from'));
    if (!step.config.subject && !published.subject)
      found.push(
        ...invalid('missing_subject', `${at}.subject`, 'neither the step nor its published template has a subject'),
      );
    return found;
  });
  return (await Promise.all(checks)).flat();
}

/** A version's steps and connections, as JSON: one item holds them (400 KB), with room to spare. */
export const MAX_GRAPH_BYTES = 128 * 1024;

async function checkGraph(projectId: string, steps: AutomationStep[], connections: AutomationConnection[]) {
  if (Buffer.byteLength(JSON.stringify({ steps, connections })) > MAX_GRAPH_BYTES) {
    const message = `An automation's steps and connections may be at most ${MAX_GRAPH_BYTES / 1024} KB of JSON`;
    throw new ApiError(413, 'validation_error', message, [{ code: 'automation_too_large', message, path: 'steps' }]);
  }
  const problems = graphProblems(steps, connections);
  if (problems.length) throw unprocessable(problems);
  const references = await referenceProblems(projectId, steps);
  if (references.length) throw unprocessable(references);
}

const versionWrite = (projectId: string, automationId: string, version: number, graph: VersionItem) =>
  put(
    {
      ...keys.automationVersion(projectId, automationId, version),
      type: 'automation_version',
      project_id: projectId,
      automation_id: automationId,
      version,
      steps: graph.steps,
      connections: graph.connections,
    },
    { ifAbsent: changedMeanwhile },
  );

/** The system events a graph names (its trigger's, its waits'). */
const systemEventsOf = (steps: AutomationStep[]): string[] => [
  ...new Set(
    steps.flatMap((s) =>
      (s.type === 'trigger' || s.type === 'wait_for_event') && s.config.event_name.startsWith(SYSTEM_EVENT_PREFIX)
        ? [s.config.event_name]
        : [],
    ),
  ),
];

/** Adds the graph's system events to the project's set (shared/automations/events-forward.ts reads it); none: no write. */
const systemEventsWrite = (projectId: string, steps: AutomationStep[]) => {
  const names = systemEventsOf(steps);
  return names.length
    ? [
        update(keys.automationSystemEvents(projectId), {
          set: { type: 'automation_system_events', project_id: projectId },
          add: { names: new Set(names) },
        }),
      ]
    : [];
};

const triggerWrite = (item: AutomationItem) =>
  put({
    ...keys.automationTrigger(item.project_id, item.trigger_event, item.id),
    type: 'automation_trigger',
    project_id: item.project_id,
    automation_id: item.id,
    version: item.version,
  });

export async function createAutomation(caller: Caller, input: CreateAutomationInput): Promise<AutomationSummary> {
  const connections = withTypes(input.connections);
  await checkGraph(caller.projectId, input.steps, connections);
  const item: AutomationItem = {
    type: 'automation',
    project_id: caller.projectId,
    id: newId(),
    name: input.name,
    status: input.status ?? 'disabled',
    version: 1,
    trigger_event: triggerOf(input.steps),
    created_at: nowIso(),
    updated_at: null,
  };
  await transact([
    put({ ...keys.automation(caller.projectId, item.id), ...item }),
    versionWrite(caller.projectId, item.id, 1, { steps: input.steps, connections }),
    ...systemEventsWrite(caller.projectId, input.steps),
    ...(item.status === 'enabled' ? [triggerWrite(item)] : []),
  ]);
  return toSummary(item);
}

async function readAutomation(projectId: string, automationId: string): Promise<AutomationItem> {
  const item = await getItem<AutomationItem & Item>(keys.automation(projectId, automationId));
  if (!item) throw missing();
  return item;
}

async function readVersion(projectId: string, automationId: string, version: number): Promise<VersionItem> {
  const item = await getItem(keys.automationVersion(projectId, automationId, version));
  if (!item) throw missing(); // deleted between the two reads
  return { steps: item.steps as AutomationStep[], connections: item.connections as AutomationConnection[] };
}

export async function getAutomation(caller: Caller, automationId: string): Promise<Automation> {
  const item = await readAutomation(caller.projectId, automationId);
  const graph = await readVersion(caller.projectId, item.id, item.version);
  return { ...toSummary(item), version: item.version, steps: graph.steps, connections: graph.connections };
}

export async function listAutomations(caller: Caller, page: PageRequest & { status?: 'enabled' | 'disabled' }) {
  const filter = page.status
    ? { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': page.status } }
    : undefined;
  const { items, hasMore } = await queryPage<AutomationItem & Item>(keys.automations(caller.projectId), page, filter);
  return { records: items.map(toSummary), hasMore };
}

/**
 * The one write of every change: the automation item as `next`, with a condition on the version it
 * was read at; the graph's new version when there is one; the trigger entry put, moved or deleted.
 */
async function writeChange(before: AutomationItem, next: AutomationItem, graph?: VersionItem): Promise<void> {
  const { project_id: projectId, id } = before;
  const triggerMoved = before.trigger_event !== next.trigger_event;
  const wasListed = before.status === 'enabled';
  const isListed = next.status === 'enabled';
  await transact([
    update(
      keys.automation(projectId, id),
      {
        set: {
          name: next.name,
          status: next.status,
          version: next.version,
          trigger_event: next.trigger_event,
          updated_at: next.updated_at,
        },
        // the version and status it was read at: the trigger entry written below follows from them
        condition: {
          expression: '#v = :v AND #st = :st',
          names: { '#v': 'version', '#st': 'status' },
          values: { ':v': before.version, ':st': before.status },
        },
      },
      changedMeanwhile,
    ),
    ...(graph ? [versionWrite(projectId, id, next.version, graph), ...systemEventsWrite(projectId, graph.steps)] : []),
    ...(wasListed && (!isListed || triggerMoved)
      ? [del(keys.automationTrigger(projectId, before.trigger_event, id))]
      : []),
    ...(isListed ? [triggerWrite(next)] : []),
  ]);
}

export async function updateAutomation(
  caller: Caller,
  automationId: string,
  input: UpdateAutomationInput,
): Promise<AutomationSummary> {
  const item = await readAutomation(caller.projectId, automationId);
  let graph: VersionItem | undefined;
  if (input.steps && input.connections) {
    graph = { steps: input.steps, connections: withTypes(input.connections) };
    await checkGraph(caller.projectId, graph.steps, graph.connections);
  }
  const next: AutomationItem = {
    ...item,
    name: input.name ?? item.name,
    status: input.status ?? item.status,
    version: graph ? item.version + 1 : item.version,
    trigger_event: graph ? triggerOf(graph.steps) : item.trigger_event,
    updated_at: nowIso(),
  };
  await writeChange(item, next, graph);
  return toSummary(next);
}

/** Disables the automation: no new runs start; runs going finish. Stopping a disabled one changes nothing. */
export async function stopAutomation(caller: Caller, automationId: string): Promise<AutomationSummary> {
  const item = await readAutomation(caller.projectId, automationId);
  if (item.status === 'disabled') return toSummary(item);
  const next: AutomationItem = { ...item, status: 'disabled', updated_at: nowIso() };
  await writeChange(item, next);
  return toSummary(next);
}

/** A copy of the current graph under the name "<name> (copy)", disabled. */
export async function duplicateAutomation(caller: Caller, automationId: string): Promise<AutomationSummary> {
  const source = await getAutomation(caller, automationId);
  return createAutomation(caller, {
    name: `${source.name} (copy)`.slice(0, 256),
    status: 'disabled',
    steps: source.steps as AutomationStep[],
    connections: source.connections,
  });
}

/** Deletes the automation and its trigger entry; its versions stay for the runs that read them. A second delete is 404. */
export async function deleteAutomation(caller: Caller, automationId: string): Promise<string> {
  const item = await readAutomation(caller.projectId, automationId);
  await transact([
    del(keys.automation(caller.projectId, item.id), {
      ifUnchanged: { expected: { version: item.version, status: item.status }, onChanged: changedMeanwhile },
    }),
    ...(item.status === 'enabled' ? [del(keys.automationTrigger(caller.projectId, item.trigger_event, item.id))] : []),
  ]);
  return item.id;
}
