import { useMemo, useState } from 'preact/hooks';
import { get, patch, post, qs, seg } from '../api';
import { Badge, ErrorBox, Field, html, Link, Loading, Page, Preview, useAction, useData, when } from '../ui';

const STATUSES = ['queued', 'scheduled', 'sending', 'sent', 'delivered', 'delivery_delayed', 'bounced', 'complained', 'opened', 'clicked', 'failed', 'canceled', 'suppressed'];

/** The newest 100 emails (GET /emails), filtered here by status, recipient and day: the API lists by time only. */
export function Emails() {
  const { data, error, loading } = useData(() => get(`/emails${qs({ limit: 100 })}`));
  const [status, setStatus] = useState('');
  const [recipient, setRecipient] = useState('');
  const [since, setSince] = useState('');
  const shown = useMemo(
    () =>
      (data?.data ?? []).filter(
        (e: any) =>
          (!status || e.last_event === status) &&
          (!recipient || e.to.some((to: string) => to.toLowerCase().includes(recipient.toLowerCase()))) &&
          (!since || e.created_at >= new Date(since).toISOString()),
      ),
    [data, status, recipient, since],
  );
  return html`<${Page} title="Emails">
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Status"><select value=${status} onChange=${(e: any) => setStatus(e.currentTarget.value)}><option value="">Any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select><//>
      <${Field} label="Recipient"><input type="search" value=${recipient} onInput=${(e: any) => setRecipient(e.currentTarget.value)} /><//>
      <${Field} label="Since"><input type="date" value=${since} onInput=${(e: any) => setSince(e.currentTarget.value)} /><//>
    </form>
    ${loading && !data ? html`<${Loading} />` : null}<${ErrorBox} error=${error} />
    <table>
      <thead><tr><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
      <tbody>
        ${shown.map((e: any) => html`<tr><td>${e.to.join(', ')}</td><td><${Link} to=${`/emails/${e.id}`}>${e.subject || '(no subject)'}<//></td><td><${Badge} value=${e.last_event} /></td><td>${when(e.created_at)}</td></tr>`)}
      </tbody>
    </table>
    ${data && shown.length === 0 ? html`<p class="muted">No emails.</p>` : null}
  <//>`;
}

/** One email: content, headers, attachments, its events (from GET /events: the newest 1,000 of the project), and what may still be done to it. */
export function EmailDetail({ id }: { id: string }) {
  const { data, error, reload } = useData(async () => {
    const [email, attachments, events] = await Promise.all([get(`/emails/${seg(id)}`), get(`/emails/${seg(id)}/attachments`).catch(() => ({ data: [] })), get('/events')]);
    const timeline = (events.data as any[]).filter((ev) => ev.type.startsWith('email.') && (ev.data?.object?.id === id || ev.data?.email_id === id)).reverse();
    return { email, attachments: attachments.data as any[], timeline };
  }, [id]);
  const action = useAction();
  const [scheduledAt, setScheduledAt] = useState('');
  if (error) return html`<${Page} title="Email"><${ErrorBox} error=${error} /><//>`;
  if (!data) return html`<${Page} title="Email"><${Loading} /><//>`;
  const { email, attachments, timeline } = data;
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), reload()));
  return html`<${Page} title=${email.subject || '(no subject)'} actions=${html`
      <button type="button" onClick=${reload}>Refresh</button>
      ${email.last_event === 'scheduled' ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => act(() => post(`/emails/${seg(id)}/cancel`))}>Cancel</button>` : null}
      ${email.last_event === 'failed' ? html`<button type="button" disabled=${action.pending} onClick=${() => act(() => post(`/emails/${seg(id)}/retry`))}>Retry</button>` : null}`}>
    <${ErrorBox} error=${action.error} />
    <dl class="facts">
      <dt>Status</dt><dd><${Badge} value=${email.last_event} /></dd>
      <dt>From</dt><dd>${email.from}</dd>
      <dt>To</dt><dd>${email.to.join(', ')}</dd>
      ${email.cc.length ? html`<dt>Cc</dt><dd>${email.cc.join(', ')}</dd>` : null}
      <dt>Created</dt><dd>${when(email.created_at)}</dd>
      ${email.scheduled_at ? html`<dt>Scheduled</dt><dd>${when(email.scheduled_at)}</dd>` : null}
      <dt>Id</dt><dd><code>${email.id}</code></dd>
    </dl>
    ${
      email.last_event === 'scheduled'
        ? html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), act(() => patch(`/emails/${seg(id)}`, { scheduled_at: new Date(scheduledAt).toISOString() })))}>
            <${Field} label="Reschedule to"><input type="datetime-local" required value=${scheduledAt} onInput=${(e: any) => setScheduledAt(e.currentTarget.value)} /><//>
            <button type="submit" disabled=${action.pending}>Reschedule</button></form>`
        : null
    }
    <h2>Timeline</h2>
    <ol class="timeline">${timeline.map((ev: any) => html`<li><${Badge} value=${ev.type.replace('email.', '')} /> <time datetime=${ev.created_at}>${when(ev.created_at)}</time></li>`)}</ol>
    ${timeline.length === 0 ? html`<p class="muted">No events yet.</p>` : null}
    <h2>Preview</h2>
    ${email.html ? html`<${Preview} markup=${email.html} title="Email preview" />` : html`<pre class="text">${email.text ?? ''}</pre>`}
    <h2>Headers</h2>
    <table><thead><tr><th scope="col">Name</th><th scope="col">Value</th></tr></thead>
      <tbody>${Object.entries(email.headers ?? {}).map(([name, value]) => html`<tr><td>${name}</td><td>${String(value)}</td></tr>`)}</tbody></table>
    <h2>Attachments</h2>
    ${attachments.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${attachments.map((a: any) => html`<li>${a.filename ?? a.id} (${a.content_type}${a.size ? `, ${a.size} bytes` : ''})</li>`)}</ul>`}
  <//>`;
}
