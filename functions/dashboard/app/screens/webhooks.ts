import { useState } from 'preact/hooks';
import { get, post, seg } from '../api';
import { navigate } from '../router';
import { Badge, CopyButton, ErrorBox, Field, formValues, html, Link, Loading, Page, useAction, useData, when } from '../ui';

const EVENT_GROUPS: Record<string, string[]> = {
  'Email delivery': ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.bounced', 'email.complained', 'email.failed'],
  'Email engagement': ['email.opened', 'email.clicked'],
  Contacts: ['contact.created', 'contact.updated', 'contact.deleted'],
  Domains: ['domain.created', 'domain.updated', 'domain.deleted'],
};

/** The signing secret, shown once (after creation or rotation). */
const Secret = ({ secret }: { secret?: string }) =>
  secret ? html`<div class="notice" role="status"><p>Signing secret (shown once): <code>${secret}</code> <${CopyButton} text=${secret} label="Copy the signing secret" /></p></div>` : null;

export function Webhooks() {
  const { data, error } = useData(() => get('/webhooks?limit=100'));
  const action = useAction();
  const create = (event: Event) => {
    const form = event.currentTarget as HTMLFormElement;
    const { endpoint } = formValues(event);
    const events = [...form.querySelectorAll<HTMLInputElement>('input[name=event]:checked')].map((i) => i.value);
    return action.run(async () => {
      const webhook = await post('/webhooks', { endpoint, events });
      sessionStorage.setItem(`secret:${webhook.id}`, webhook.signing_secret);
      navigate(`/webhooks/${webhook.id}`);
    });
  };
  return html`<${Page} title="Webhooks">
    <${ErrorBox} error=${action.error || error} />${data ? null : html`<${Loading} />`}
    <table><thead><tr><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col">Events</th><th scope="col">Created</th></tr></thead>
      <tbody>${(data?.data ?? []).map(
        (w: any) => html`<tr><td><${Link} to=${`/webhooks/${w.id}`}>${w.endpoint}<//></td><td><${Badge} value=${w.status} /></td><td>${w.events.length}</td><td>${when(w.created_at)}</td></tr>`,
      )}</tbody></table>
    <h2>Add an endpoint</h2>
    <form class="stack" onSubmit=${create}>
      <${Field} label="Endpoint URL"><input name="endpoint" type="url" required placeholder="https://example.com/webhooks" /><//>
      ${Object.entries(EVENT_GROUPS).map(
        ([group, types]) =>
          html`<fieldset><legend>${group}</legend>${types.map((t) => html`<label class="check"><input type="checkbox" name="event" value=${t} checked=${group.startsWith('Email')} /> ${t}</label>`)}</fieldset>`,
      )}
      <button type="submit" disabled=${action.pending}>Add endpoint</button>
    </form>
  <//>`;
}

/** An endpoint's deliveries (status, response, retry) and its signing secret's rotation. */
export function WebhookDetail({ id }: { id: string }) {
  const { data, error, reload } = useData(async () => ({ webhook: await get(`/webhooks/${seg(id)}`), deliveries: (await get(`/webhooks/${seg(id)}/deliveries?limit=100`)).data as any[] }), [id]);
  const action = useAction();
  const [secret, setSecret] = useState<string | undefined>(() => {
    const once = sessionStorage.getItem(`secret:${id}`) ?? undefined;
    sessionStorage.removeItem(`secret:${id}`);
    return once;
  });
  if (error) return html`<${Page} title="Webhook"><${ErrorBox} error=${error} /><//>`;
  if (!data) return html`<${Page} title="Webhook"><${Loading} /><//>`;
  const { webhook, deliveries } = data;
  return html`<${Page} title=${webhook.endpoint} actions=${html`
      <button type="button" onClick=${reload}>Refresh</button>
      <button type="button" disabled=${action.pending} onClick=${() => action.run(async () => setSecret((await post(`/webhooks/${seg(id)}/signing-secret/rotate`)).signing_secret))}>Rotate secret</button>`}>
    <${ErrorBox} error=${action.error} /><${Secret} secret=${secret} />
    <p>Status <${Badge} value=${webhook.status} /> · secret <code>${webhook.secret_prefix}…</code></p>
    <h2>Deliveries</h2>
    <table><thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Response</th><th scope="col">Attempts</th><th scope="col">Updated</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
      <tbody>${deliveries.map(
        (d: any) => html`<tr><td>${d.event_type}</td><td><${Badge} value=${d.status} /></td><td>${d.response_code ?? ''} ${d.error ?? ''}</td><td>${d.attempt_count}</td><td>${when(d.updated_at)}</td>
          <td><button type="button" class="small" aria-label=${`Retry delivery ${d.id}`} disabled=${action.pending} onClick=${() => action.run(async () => (await post(`/webhooks/${seg(id)}/deliveries/${seg(d.id)}/retry`), reload()))}>Retry</button></td></tr>`,
      )}</tbody></table>
    ${deliveries.length === 0 ? html`<p class="muted">No deliveries yet.</p>` : null}
  <//>`;
}
