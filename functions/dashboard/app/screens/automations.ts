/**
 * Automations: the list, an automation's page and a run's page. Automations are made and edited
 * through the API (POST/PATCH /automations); the console shows them and does what needs no editor.
 *
 * - The list: GET /automations, filtered by status and paged by the API's cursors (see `Pager`).
 * - An automation: its metrics (GET …/metrics: runs by status, emails sent, each step's counts), its
 *   graph read-only, Stop (when enabled), Enable (when disabled), Duplicate (opens the copy), Delete
 *   (a second click confirms), and its runs (filtered by one status or several, paged).
 * - A run: its status, contact, event and version, and each step it reached with its status,
 *   output, error and times; polled while the run is running.
 *
 * The graph is a nested list walked from the trigger along the connections: a chain of `default`
 * connections stays one list; a step with other connections (a condition's `condition_met` /
 * `condition_not_met`, a wait's `event_received` / `timeout`) opens one sub-list per connection,
 * labelled with its type. A step two branches lead to is drawn once, where the walk meets it first,
 * and elsewhere named ("continues at <key>"), so the list is never longer than the graph.
 */
import { useState } from 'preact/hooks';
import { del, get, patch, post, qs, seg } from '../api';
import { navigate } from '../router';
import {
  Badge,
  type Cursor,
  Empty,
  ErrorBox,
  Field,
  html,
  Link,
  loaded,
  Page,
  Pager,
  Table,
  useAction,
  useData,
  usePoll,
  when,
} from '../ui';

/** Rows per page of the automations and runs lists. */
const PAGE_SIZE = 20;
const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'];

interface Step {
  key: string;
  type: string;
  config: Record<string, any>;
}
interface Connection {
  from: string;
  to: string;
  type: string;
}
interface Automation {
  id: string;
  name: string;
  status: string;
  version: number;
  created_at: string;
  updated_at: string | null;
  steps: Step[];
  connections: Connection[];
}

export function Automations() {
  const [status, setStatus] = useState('');
  const [cursor, setCursor] = useState<Cursor>({});
  const state = useData(
    () => get(`/automations${qs({ limit: PAGE_SIZE, status, ...cursor })}`),
    [status, cursor.after, cursor.before],
  );
  return html`<${Page} title="Automations" lead="A trigger event, then steps (delays, emails, waits, conditions, contact changes) for each contact it happens to. Created and edited through the API (POST /automations)." actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Status"><select value=${status} onChange=${(e: any) => (setStatus(e.currentTarget.value), setCursor({}))}><option value="">Any</option><option value="enabled">enabled</option><option value="disabled">disabled</option></select><//>
    </form>
    ${loaded(
      state,
      (page) => html`<${Table}
        label="Automations"
        columns=${['Name', 'Status', 'Created']}
        empty=${status ? html`<${Empty} title=${`No ${status} automations`} />` : html`<${Empty} title="No automations yet">Create one with <code>POST /automations</code>: a trigger on an event you send with <code>POST /events/send</code>, and the steps after it.<//>`}
        rows=${page.data.map(
          (a: any) =>
            html`<tr><td class="wrap"><${Link} to=${`/automations/${seg(a.id)}`}>${a.name}<//></td><td><${Badge} value=${a.status} /></td><td>${when(a.created_at)}</td></tr>`,
        )} />
      <${Pager} page=${page} cursor=${cursor} onMove=${setCursor} label="Pages of automations" />`,
    )}
  <//>`;
}

/** An automation: metrics, graph, actions and runs. */
export function AutomationDetail({ id }: { id: string }) {
  const state = useData(async () => {
    const [automation, metrics] = await Promise.all([
      get<Automation>(`/automations/${seg(id)}`),
      get(`/automations/${seg(id)}/metrics`),
    ]);
    return { automation, metrics };
  }, [id]);
  const [statuses, setStatuses] = useState<string[]>([]);
  const [cursor, setCursor] = useState<Cursor>({});
  const runs = useData(
    () => get(`/automations/${seg(id)}/runs${qs({ limit: PAGE_SIZE, status: statuses.join(','), ...cursor })}`),
    [id, statuses.join(','), cursor.after, cursor.before],
  );
  const action = useAction();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const refresh = () => (state.reload(), runs.reload());
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), refresh()));
  const automation = state.data?.automation;
  const actions = automation
    ? html`<button type="button" class="secondary" onClick=${refresh}>Refresh</button>
      ${
        automation.status === 'enabled'
          ? html`<button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => post(`/automations/${seg(id)}/stop`))}>Stop</button>`
          : html`<button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => patch(`/automations/${seg(id)}`, { status: 'enabled' }))}>Enable</button>`
      }
      <button type="button" class="secondary" disabled=${action.pending} onClick=${() => action.run(async () => navigate(`/automations/${seg((await post(`/automations/${seg(id)}/duplicate`)).id)}`))}>Duplicate</button>
      ${
        confirmingDelete
          ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => action.run(async () => (await del(`/automations/${seg(id)}`), navigate('/automations')))}>Confirm delete</button>`
          : html`<button type="button" class="danger" onClick=${() => setConfirmingDelete(true)}>Delete</button>`
      }`
    : null;
  const toggle = (status: string, on: boolean) => {
    setStatuses(RUN_STATUSES.filter((s) => (s === status ? on : statuses.includes(s))));
    setCursor({});
  };
  return html`<${Page} title=${automation?.name ?? 'Automation'} actions=${actions}>
    <${ErrorBox} error=${action.error} />
    ${loaded(state, ({ automation, metrics }) => {
      const trigger = automation.steps.find((s) => s.type === 'trigger');
      return html`
      <dl class="facts">
        <dt>Status</dt><dd><${Badge} value=${automation.status} />${automation.status === 'disabled' ? html` <span class="muted">no new runs start while disabled</span>` : null}</dd>
        <dt>Trigger</dt><dd>${trigger ? html`<code>${String(trigger.config.event_name)}</code>` : '—'}</dd>
        <dt>Version</dt><dd>${automation.version}</dd>
        <dt>Created</dt><dd>${when(automation.created_at)}</dd>
        <dt>Updated</dt><dd>${when(automation.updated_at)}</dd>
        <dt>Id</dt><dd><code>${automation.id}</code></dd>
      </dl>
      <h2>Metrics</h2>
      <div class="cards">
        ${[
          ['started', 'Runs started', metrics.runs.started],
          ['running', 'Running', metrics.runs.running],
          ['completed', 'Completed', metrics.runs.completed],
          ['failed', 'Failed', metrics.runs.failed],
          ['cancelled', 'Cancelled', metrics.runs.cancelled],
          ['emails-sent', 'Emails sent', metrics.emails_sent],
        ].map(
          ([testId, title, value]) =>
            html`<div class="card stat"><h3>${title}</h3><p class="big" data-testid=${`metric-${testId}`}>${Number(value)}</p></div>`,
        )}
      </div>
      <h3>Each step</h3>
      <${StepCounts} steps=${automation.steps} counts=${metrics.steps} />
      <h2>Steps</h2>
      <p class="muted">From the trigger along the connections; a branch is labelled with its connection's type.</p>
      <${FlowList} flow=${walk(automation)} />`;
    })}
    <h2>Runs</h2>
    <fieldset class="filters"><legend>Run status</legend>
      ${RUN_STATUSES.map((s) => html`<label class="check"><input type="checkbox" checked=${statuses.includes(s)} onChange=${(e: any) => toggle(s, e.currentTarget.checked)} /> ${s}</label>`)}
    </fieldset>
    ${loaded(
      runs,
      (page) => html`<${Table}
        label="Runs"
        columns=${['Run', 'Status', 'Started', 'Completed']}
        empty=${statuses.length ? html`<${Empty} title="No runs match these statuses" />` : html`<${Empty} title="No runs yet">A run starts for a contact each time the trigger's event is sent for them while the automation is enabled.<//>`}
        rows=${page.data.map(
          (r: any) =>
            html`<tr><td><${Link} to=${`/automations/${seg(id)}/runs/${seg(r.id)}`}><code class="nowrap">${r.id}</code><//></td><td><${Badge} value=${r.status} /></td><td>${when(r.started_at ?? r.created_at)}</td><td>${when(r.completed_at)}</td></tr>`,
        )} />
      <${Pager} page=${page} cursor=${cursor} onMove=${setCursor} label="Pages of runs" />`,
    )}
  <//>`;
}

/** Per step (in the order the automation defines them, then any step of an older version that still has counts): how many times it ended in each status. */
function StepCounts({ steps, counts }: { steps: Step[]; counts: any[] }) {
  const byKey = new Map(counts.map((c) => [c.key as string, c]));
  const rows = [
    ...steps.map((s) => ({ key: s.key, type: s.type, ...(byKey.get(s.key) ?? {}) })),
    ...counts.filter((c) => !steps.some((s) => s.key === c.key)).map((c) => ({ type: '(older version)', ...c })),
  ];
  return html`<${Table}
    label="Step counts"
    columns=${['Step', 'Type', 'Waiting', 'Completed', 'Skipped', 'Failed']}
    rows=${rows.map(
      (r) =>
        html`<tr><td><code class="nowrap">${r.key}</code></td><td>${r.type}</td>${(['waiting', 'completed', 'skipped', 'failed'] as const).map((n) => html`<td class="num">${Number(r[n] ?? 0)}</td>`)}</tr>`,
    )} />`;
}

type Flow = ({ step: Step; branches: { type: string; flow: Flow }[] } | { jump: string })[];

/** The graph as nested chains from the trigger (see the module comment). */
function walk(automation: Pick<Automation, 'steps' | 'connections'>): Flow {
  const byKey = new Map(automation.steps.map((s) => [s.key, s]));
  const seen = new Set<string>();
  // recursion at most as deep as the graph has steps (100)
  const chain = (key: string): Flow => {
    const step = byKey.get(key);
    if (!step || seen.has(key)) return [{ jump: key }];
    seen.add(key);
    const out = automation.connections.filter((c) => c.from === key);
    if (out.length === 1 && out[0].type === 'default') return [{ step, branches: [] }, ...chain(out[0].to)];
    return [{ step, branches: out.map((c) => ({ type: c.type, flow: chain(c.to) })) }];
  };
  const trigger = automation.steps.find((s) => s.type === 'trigger');
  return trigger ? chain(trigger.key) : [];
}

function FlowList({ flow }: { flow: Flow }): ReturnType<typeof html> {
  return html`<ol class="flow">${flow.map((entry) =>
    'jump' in entry
      ? html`<li class="flow-jump muted">continues at <code>${entry.jump}</code></li>`
      : html`<li data-step=${entry.step.key}><div class="step-card"><p class="step-head"><span class="badge info">${entry.step.type}</span> <code>${entry.step.key}</code></p>
          ${configFacts(entry.step)}</div>
          ${entry.branches.length ? html`<ul class="branches">${entry.branches.map((b) => html`<li><span class="branch">${b.type}</span><${FlowList} flow=${b.flow} /></li>`)}</ul>` : null}</li>`,
  )}</ol>`;
}

/** A step's key settings, in words. */
function configFacts(step: Step) {
  const c = step.config ?? {};
  const facts: [string, string][] = [];
  const add = (label: string, value: unknown) =>
    value !== undefined && value !== null && value !== '' && facts.push([label, text(value)]);
  switch (step.type) {
    case 'trigger':
      add('Event', c.event_name);
      break;
    case 'delay':
      add('Waits', c.duration);
      break;
    case 'send_email':
      add('Template', c.template?.id);
      add('Subject', c.subject);
      add('From', c.from);
      if (c.template?.variables && Object.keys(c.template.variables).length)
        add('Variables', Object.keys(c.template.variables).join(', '));
      break;
    case 'wait_for_event':
      add('Event', c.event_name);
      add('Timeout', c.timeout);
      if (c.filter_rule) add('Only when', ruleText(c.filter_rule));
      break;
    case 'condition':
      add('If', ruleText(c));
      break;
    case 'contact_update':
      add(
        'Sets',
        Object.entries(c)
          .flatMap(([name, value]) =>
            name === 'properties' && value && typeof value === 'object'
              ? Object.entries(value).map(([p, v]) => `${p} = ${valueText(v)}`)
              : [`${name} = ${valueText(value)}`],
          )
          .join(', '),
      );
      break;
    case 'contact_delete':
      add('Does', 'deletes the contact');
      break;
    case 'add_to_segment':
      add('Segment', c.segment_id);
      break;
  }
  return facts.length
    ? html`<dl class="facts">${facts.map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>`)}</dl>`
    : null;
}

const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  contains: 'contains',
  starts_with: 'starts with',
  ends_with: 'ends with',
  exists: 'exists',
  is_empty: 'is empty',
};

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A value as a rule or a contact update has it: a `{var}` as `{event.x}`, a string quoted. */
const valueText = (value: unknown): string =>
  value && typeof value === 'object' && typeof (value as any).var === 'string'
    ? `{${(value as any).var}}`
    : JSON.stringify(value);

/** A ConditionRule in one line: `event.seats ≥ 5 and (contact.plan = "pro" or …)`. */
function ruleText(rule: any, nested = false): string {
  if (rule?.type === 'rule')
    return [rule.field, OPERATORS[rule.operator] ?? rule.operator, 'value' in rule ? valueText(rule.value) : '']
      .filter(Boolean)
      .join(' ');
  if ((rule?.type === 'and' || rule?.type === 'or') && Array.isArray(rule.rules)) {
    const joined = rule.rules.map((r: any) => ruleText(r, true)).join(` ${rule.type} `);
    return nested && rule.rules.length > 1 ? `(${joined})` : joined;
  }
  return JSON.stringify(rule);
}

/** A run: its contact, event and version, and each step it reached. Polled while it runs. */
export function RunDetail({ automationId, runId }: { automationId: string; runId: string }) {
  const state = useData(async () => {
    const [run, automation] = await Promise.all([
      get(`/automations/${seg(automationId)}/runs/${seg(runId)}`),
      get<Automation>(`/automations/${seg(automationId)}`),
    ]);
    return { run, automation };
  }, [automationId, runId]);
  usePoll(state.reload, 3000, state.data?.run.status === 'running');
  const name = state.data?.automation.name;
  return html`<${Page} title=${name ? `Run of ${name}` : 'Run'} actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    ${loaded(
      state,
      ({ run, automation }) => html`
      <dl class="facts">
        <dt>Status</dt><dd><${Badge} value=${run.status} /></dd>
        <dt>Automation</dt><dd><${Link} to=${`/automations/${seg(automationId)}`}>${automation.name}<//></dd>
        <dt>Contact</dt><dd><${Link} to=${`/audience/contacts/${seg(run.contact_id)}`}>${run.email}<//></dd>
        <dt>Event</dt><dd><code>${run.event.name}</code> <span class="muted">${run.event.id}</span></dd>
        <dt>Version</dt><dd>${run.version}${run.version !== automation.version ? html` <span class="muted">(the automation is at version ${automation.version} now)</span>` : null}</dd>
        <dt>Started</dt><dd>${when(run.started_at ?? run.created_at)}</dd>
        <dt>Completed</dt><dd>${when(run.completed_at)}</dd>
        <dt>Id</dt><dd><code>${run.id}</code></dd>
      </dl>
      <h2>Steps</h2>
      <${Table}
        label="Run steps"
        columns=${['Step', 'Type', 'Status', 'Output', 'Error', 'Reached', 'Started', 'Completed']}
        empty=${html`<${Empty} title="No steps reached yet" />`}
        rows=${run.steps.map(
          (s: any) =>
            html`<tr data-step=${s.key}><td><code class="nowrap">${s.key}</code></td><td>${s.type}</td><td><${Badge} value=${s.status} /></td><td class="wrap"><${Values} values=${s.output} /></td><td class="wrap"><${Values} values=${s.error} /></td><td>${when(s.created_at)}</td><td>${when(s.started_at)}</td><td>${when(s.completed_at)}</td></tr>`,
        )} />`,
    )}
  <//>`;
}

/** A step's output or error, one line per field; a sent email's id links to the email. */
const Values = ({ values }: { values: Record<string, unknown> | null }) =>
  values && Object.keys(values).length
    ? html`<ul class="values">${Object.entries(values).map(
        ([name, value]) =>
          html`<li><span class="muted">${name}</span> ${
            name === 'email_id' && typeof value === 'string'
              ? html`<${Link} to=${`/emails/${seg(value)}`}><code>${value}</code><//>`
              : html`<code>${text(value)}</code>`
          }</li>`,
      )}</ul>`
    : html`<span class="muted">—</span>`;
