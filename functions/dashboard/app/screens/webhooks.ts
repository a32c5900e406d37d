/**
 * Webhooks: the endpoints, one endpoint's deliveries, and what can be done to it.
 *
 * - Edit (PATCH /webhooks/{id}: endpoint, description, events), disable and enable (PATCH `status`),
 *   rotate its signing secret, delete it (DELETE, confirmed by a second click: no browser dialog).
 * - A delivery opens a drawer: the event's payload as it was sent (GET /webhooks/{id}/events/{event_id})
 *   and each attempt, newest first, with the status the endpoint answered, the start of its answer
 *   and the time (…/attempts). A delivery can be retried from its row or its drawer.
 * - The events offered are the common ones, grouped; an edit keeps any other type the webhook has
 *   (shown checked under "Other").
 */
import { useState } from 'preact/hooks';
import { del, get, patch, post, seg } from '../api';
import { navigate } from '../router';
import {
  Badge,
  CopyButton,
  Drawer,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  Link,
  loaded,
  Page,
  Table,
  useAction,
  useData,
  when,
} from '../ui';

const EVENT_GROUPS: Record<string, string[]> = {
  'Email delivery': [
    'email.sent',
    'email.delivered',
    'email.delivery_delayed',
    'email.bounced',
    'email.complained',
    'email.failed',
  ],
  'Email engagement': ['email.opened', 'email.clicked'],
  Contacts: ['contact.created', 'contact.updated', 'contact.deleted'],
  Domains: ['domain.created', 'domain.updated', 'domain.deleted'],
};
const OFFERED = new Set(Object.values(EVENT_GROUPS).flat());

/** The signing secret, shown once (after creation or rotation). */
const Secret = ({ secret }: { secret?: string }) =>
  secret
    ? html`<div class="notice" role="status"><p>Signing secret (shown once): <code>${secret}</code> <${CopyButton} text=${secret} label="Copy the signing secret" /></p></div>`
    : null;

/** The event checkboxes, grouped; `checked` are ticked (a new endpoint: email delivery and engagement). */
function EventChoices({ checked }: { checked: string[] }) {
  const other = checked.filter((type) => !OFFERED.has(type));
  const groups = other.length ? { ...EVENT_GROUPS, Other: other } : EVENT_GROUPS;
  return Object.entries(groups).map(
    ([group, types]) =>
      html`<fieldset><legend>${group}</legend><div class="checks">${types.map((t) => html`<label class="check"><input type="checkbox" name="event" value=${t} checked=${checked.includes(t)} /> ${t}</label>`)}</div></fieldset>`,
  );
}

const chosenEvents = (form: HTMLFormElement) =>
  [...form.querySelectorAll<HTMLInputElement>('input[name=event]:checked')].map((i) => i.value);

export function Webhooks() {
  const state = useData(() => get('/webhooks?limit=100'));
  const action = useAction();
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const { endpoint, description } = formValues(event);
    const events = chosenEvents(form);
    return action.run(async () => {
      const webhook = await post('/webhooks', { endpoint, events, ...(description ? { description } : {}) });
      sessionStorage.setItem(`secret:${webhook.id}`, webhook.signing_secret);
      navigate(`/webhooks/${webhook.id}`);
    });
  };
  return html`<${Page} title="Webhooks" lead="Endpoints that get a signed POST for each event they subscribe to, retried until they answer 2xx.">
    ${loaded(
      state,
      (data) => html`<${Table}
        label="Webhooks"
        columns=${['Endpoint', 'Status', 'Events', 'Created']}
        empty=${html`<${Empty} title="No webhooks yet">Add an endpoint below to be told when mail is delivered, bounces or is opened.<//>`}
        rows=${data.data.map(
          (w: any) =>
            html`<tr><td class="wrap"><${Link} to=${`/webhooks/${w.id}`}>${w.endpoint}<//>${w.description ? html`<br /><span class="muted">${w.description}</span>` : null}</td><td><${Badge} value=${w.status} /></td><td class="num">${w.events.length}</td><td>${when(w.created_at)}</td></tr>`,
        )} />`,
    )}
    <h2>Add an endpoint</h2>
    <form class="stack card" onSubmit=${create}>
      <${Field} label="Endpoint URL"><input name="endpoint" type="url" required placeholder="https://example.com/webhooks" /><//>
      <${Field} label="Description"><input name="description" maxlength="256" /><//>
      <${EventChoices} checked=${[...EVENT_GROUPS['Email delivery'], ...EVENT_GROUPS['Email engagement']]} />
      <${ErrorBox} error=${action.error} />
      <div><button type="submit" disabled=${action.pending}>Add endpoint</button></div>
    </form>
  <//>`;
}

/** An attempt's answer: the HTTP status, or that nothing answered (0: refused, unresolvable, timed out). */
const answered = (code: number) =>
  code === 0
    ? html`<${Badge} value="no answer" />`
    : html`<span class=${`badge ${code >= 200 && code < 300 ? 'good' : 'bad'}`}>${code}</span>`;

/** One delivery: its event's payload and its attempts. */
function DeliveryDrawer({
  webhookId,
  delivery,
  onClose,
  onRetry,
}: {
  webhookId: string;
  delivery: any;
  onClose: () => void;
  onRetry: () => Promise<unknown>;
}) {
  const path = `/webhooks/${seg(webhookId)}/events/${seg(delivery.event_id)}`;
  const state = useData(async () => {
    const [event, attempts] = await Promise.all([get(path), get(`${path}/attempts?limit=100`)]);
    return { event, attempts: attempts.data as any[] };
  }, [path]);
  const action = useAction();
  return html`<${Drawer} title=${delivery.event_type} onClose=${onClose}>
    ${loaded(
      state,
      ({ event, attempts }) => html`
      <dl class="facts">
        <dt>Status</dt><dd><${Badge} value=${event.status} /></dd>
        <dt>Event</dt><dd><code>${event.id}</code></dd>
        <dt>Created</dt><dd>${when(event.created_at)}</dd>
        ${event.next_attempt_at ? html`<dt>Next attempt</dt><dd>${when(event.next_attempt_at)}</dd>` : null}
      </dl>
      <${ErrorBox} error=${action.error} />
      <p><button type="button" class="secondary small" disabled=${action.pending} onClick=${() => action.run(async () => (await onRetry(), state.reload()))}>Send again</button></p>
      <h2>Attempts</h2>
      <${Table}
        label="Attempts"
        columns=${['Sent', 'Answer', 'Response']}
        empty=${html`<${Empty} title="No attempts yet">The first attempt is made within seconds of the event.<//>`}
        rows=${attempts.map((a) => html`<tr><td>${when(a.sent_at)}</td><td>${answered(a.http_status_code)}</td><td class="wrap"><code>${a.response || '(empty)'}</code></td></tr>`)} />
      <h2>Payload</h2>
      ${event.payload ? html`<pre class="code" data-testid="payload" tabindex="0" role="region" aria-label="Payload">${JSON.stringify(event.payload, null, 2)}</pre>` : html`<p class="muted">The event has expired; its payload is no longer kept.</p>`}`,
    )}
  <//>`;
}

/** Edit an endpoint: its URL, description and events (PATCH). */
function EditWebhook({ webhook, onDone }: { webhook: any; onDone: () => void }) {
  const action = useAction();
  const save = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const { endpoint, description } = formValues(event);
    const events = chosenEvents(form);
    return action.run(
      async () => (
        await patch(`/webhooks/${seg(webhook.id)}`, { endpoint, description: description || null, events }), onDone()
      ),
    );
  };
  return html`<form class="stack card" onSubmit=${save} aria-label="Edit the webhook">
    <${Field} label="Endpoint URL"><input name="endpoint" type="url" required value=${webhook.endpoint} /><//>
    <${Field} label="Description"><input name="description" maxlength="256" value=${webhook.description ?? ''} /><//>
    <${EventChoices} checked=${webhook.events} />
    <${ErrorBox} error=${action.error} />
    <div class="actions"><button type="submit" disabled=${action.pending}>Save changes</button><button type="button" class="secondary" onClick=${onDone}>Cancel</button></div>
  </form>`;
}

/** An endpoint: its deliveries (each opens its drawer) and the actions on it. */
export function WebhookDetail({ id }: { id: string }) {
  const state = useData(
    async () => ({
      webhook: await get(`/webhooks/${seg(id)}`),
      deliveries: (await get(`/webhooks/${seg(id)}/deliveries?limit=100`)).data as any[],
    }),
    [id],
  );
  const action = useAction();
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [open, setOpen] = useState<any>();
  const [secret, setSecret] = useState<string | undefined>(() => {
    const once = sessionStorage.getItem(`secret:${id}`) ?? undefined;
    sessionStorage.removeItem(`secret:${id}`);
    return once;
  });
  const retry = (delivery: any) => post(`/webhooks/${seg(id)}/deliveries/${seg(delivery.id)}/retry`);
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), state.reload()));
  const webhook = state.data?.webhook;
  const actions = webhook
    ? html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>
      <button type="button" class="secondary" onClick=${() => setEditing(!editing)} aria-expanded=${editing}>Edit</button>
      ${
        webhook.status === 'enabled'
          ? html`<button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => patch(`/webhooks/${seg(id)}`, { status: 'disabled' }))}>Disable</button>`
          : html`<button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => patch(`/webhooks/${seg(id)}`, { status: 'enabled' }))}>Enable</button>`
      }
      <button type="button" class="secondary" disabled=${action.pending} onClick=${() => action.run(async () => setSecret((await post(`/webhooks/${seg(id)}/signing-secret/rotate`)).signing_secret))}>Rotate secret</button>
      ${
        confirmingDelete
          ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => action.run(async () => (await del(`/webhooks/${seg(id)}`), navigate('/webhooks')))}>Confirm delete</button>`
          : html`<button type="button" class="danger" onClick=${() => setConfirmingDelete(true)}>Delete</button>`
      }`
    : null;
  return html`<${Page} title=${webhook?.endpoint ?? 'Webhook'} actions=${actions}>
    <${ErrorBox} error=${action.error} /><${Secret} secret=${secret} />
    ${loaded(
      state,
      ({ webhook, deliveries }) => html`
      <dl class="facts">
        <dt>Status</dt><dd><${Badge} value=${webhook.status} />${webhook.status === 'disabled' ? html` <span class="muted">no events are delivered while disabled</span>` : null}</dd>
        ${webhook.description ? html`<dt>Description</dt><dd>${webhook.description}</dd>` : null}
        <dt>Events</dt><dd><ul class="tags">${webhook.events.map((t: string) => html`<li>${t}</li>`)}</ul></dd>
        <dt>Signing secret</dt><dd><code>${webhook.secret_prefix}…</code></dd>
        <dt>Last success</dt><dd>${when(webhook.last_success_at)}</dd>
        <dt>Last failure</dt><dd>${when(webhook.last_failure_at)}${webhook.consecutive_failures ? ` (${webhook.consecutive_failures} in a row)` : ''}</dd>
      </dl>
      ${editing ? html`<h2>Edit</h2><${EditWebhook} webhook=${webhook} onDone=${() => (setEditing(false), state.reload())} />` : null}
      <h2>Deliveries</h2>
      <${Table}
        label="Deliveries"
        columns=${['Event', 'Status', 'Response', 'Attempts', 'Updated', '']}
        empty=${html`<${Empty} title="No deliveries yet">Each event this endpoint subscribes to is delivered here; send an email to see one.<//>`}
        rows=${deliveries.map(
          (
            d,
          ) => html`<tr><td><button type="button" class="row-button" aria-label=${`${d.event_type}, delivery ${d.id}`} onClick=${() => setOpen(d)}>${d.event_type}</button></td><td><${Badge} value=${d.status} /></td>
            <td>${d.response_code ?? ''} ${d.error ?? ''}</td><td class="num">${d.attempt_count}</td><td>${when(d.updated_at)}</td>
            <td><button type="button" class="small secondary" aria-label=${`Retry delivery ${d.id}`} disabled=${action.pending} onClick=${() => act(() => retry(d))}>Retry</button></td></tr>`,
        )} />`,
    )}
    ${open ? html`<${DeliveryDrawer} webhookId=${id} delivery=${open} onClose=${() => setOpen(undefined)} onRetry=${() => retry(open).then(state.reload)} />` : null}
  <//>`;
}
