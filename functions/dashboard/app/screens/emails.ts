import { useMemo, useState } from 'preact/hooks';
import { get, patch, post, qs, seg } from '../api';
import {
  Badge,
  Empty,
  ErrorBox,
  Field,
  html,
  Link,
  loaded,
  Page,
  Preview,
  Table,
  useAction,
  useData,
  when,
} from '../ui';

const STATUSES = [
  'queued',
  'scheduled',
  'sending',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'canceled',
  'suppressed',
];

/** The newest 100 emails (GET /emails), filtered here by status, recipient and day: the API lists by time only. */
export function Emails() {
  const state = useData(() => get(`/emails${qs({ limit: 100 })}`));
  const [status, setStatus] = useState('');
  const [recipient, setRecipient] = useState('');
  const [since, setSince] = useState('');
  const filtering = Boolean(status || recipient || since);
  const shown = useMemo(
    () =>
      (state.data?.data ?? []).filter(
        (e: any) =>
          (!status || e.last_event === status) &&
          (!recipient || e.to.some((to: string) => to.toLowerCase().includes(recipient.toLowerCase()))) &&
          (!since || e.created_at >= new Date(since).toISOString()),
      ),
    [state.data, status, recipient, since],
  );
  return html`<${Page} title="Emails" lead="The newest 100 emails of this project, with what happened to each." actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    <form class="filters" onSubmit=${(e: Event) => e.preventDefault()}>
      <${Field} label="Status"><select value=${status} onChange=${(e: any) => setStatus(e.currentTarget.value)}><option value="">Any</option>${STATUSES.map((s) => html`<option value=${s}>${s}</option>`)}</select><//>
      <${Field} label="Recipient"><input type="search" value=${recipient} onInput=${(e: any) => setRecipient(e.currentTarget.value)} /><//>
      <${Field} label="Since"><input type="date" value=${since} onInput=${(e: any) => setSince(e.currentTarget.value)} /><//>
    </form>
    ${loaded(
      state,
      () => html`<${Table}
        label="Emails"
        columns=${['To', 'Subject', 'Status', 'Created']}
        empty=${filtering ? html`<${Empty} title="No emails match these filters" />` : html`<${Empty} title="No emails yet">Send one with <code>POST /emails</code> and an API key; it shows here within a second.<//>`}
        rows=${shown.map((e: any) => html`<tr><td class="wrap">${e.to.join(', ')}</td><td class="wrap"><${Link} to=${`/emails/${e.id}`}>${e.subject || '(no subject)'}<//></td><td><${Badge} value=${e.last_event} /></td><td>${when(e.created_at)}</td></tr>`)} />`,
    )}
  <//>`;
}

/** One email: content, headers, attachments, its events (from GET /events: the newest 1,000 of the project), and what may still be done to it. */
export function EmailDetail({ id }: { id: string }) {
  const state = useData(async () => {
    const [email, attachments, events] = await Promise.all([
      get(`/emails/${seg(id)}`),
      get(`/emails/${seg(id)}/attachments`).catch(() => ({ data: [] })),
      get('/events'),
    ]);
    const timeline = (events.data as any[])
      .filter((ev) => ev.type.startsWith('email.') && (ev.data?.object?.id === id || ev.data?.email_id === id))
      .reverse();
    return { email, attachments: attachments.data as any[], timeline };
  }, [id]);
  const action = useAction();
  const [scheduledAt, setScheduledAt] = useState('');
  const email = state.data?.email;
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), state.reload()));
  const actions = email
    ? html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>
      ${email.last_event === 'scheduled' ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => act(() => post(`/emails/${seg(id)}/cancel`))}>Cancel</button>` : null}
      ${email.last_event === 'failed' ? html`<button type="button" disabled=${action.pending} onClick=${() => act(() => post(`/emails/${seg(id)}/retry`))}>Retry</button>` : null}`
    : null;
  return html`<${Page} title=${email ? email.subject || '(no subject)' : 'Email'} actions=${actions}>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      ({ email, attachments, timeline }) => html`
    <div class="columns">
      <dl class="facts">
        <dt>Status</dt><dd><${Badge} value=${email.last_event} /></dd>
        <dt>From</dt><dd>${email.from}</dd>
        <dt>To</dt><dd>${email.to.join(', ')}</dd>
        ${email.cc?.length ? html`<dt>Cc</dt><dd>${email.cc.join(', ')}</dd>` : null}
        ${email.bcc?.length ? html`<dt>Bcc</dt><dd>${email.bcc.join(', ')}</dd>` : null}
        <dt>Created</dt><dd>${when(email.created_at)}</dd>
        ${email.scheduled_at ? html`<dt>Scheduled</dt><dd>${when(email.scheduled_at)}</dd>` : null}
        <dt>Tags</dt><dd>${email.tags?.length ? html`<ul class="tags" aria-label="Tags">${email.tags.map((t: any) => html`<li>${t.name}: ${t.value}</li>`)}</ul>` : html`<span class="muted">None</span>`}</dd>
        <dt>Id</dt><dd><code>${email.id}</code></dd>
      </dl>
      <div>
        <h2 class="first">Timeline</h2>
        ${timeline.length === 0 ? html`<p class="muted">No events yet.</p>` : html`<ol class="timeline">${timeline.map((ev: any) => html`<li><${Badge} value=${ev.type.replace('email.', '')} /> <time datetime=${ev.created_at}>${when(ev.created_at)}</time></li>`)}</ol>`}
      </div>
    </div>
    ${
      email.last_event === 'scheduled'
        ? html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), act(() => patch(`/emails/${seg(id)}`, { scheduled_at: new Date(scheduledAt).toISOString() })))}>
            <${Field} label="Reschedule to"><input type="datetime-local" required value=${scheduledAt} onInput=${(e: any) => setScheduledAt(e.currentTarget.value)} /><//>
            <button type="submit" disabled=${action.pending}>Reschedule</button></form>`
        : null
    }
    <h2>Content</h2>
    <${Content} html=${email.html} text=${email.text} />
    <h2>Headers</h2>
    <${Table}
      label="Headers"
      columns=${['Name', 'Value']}
      empty=${html`<p class="muted">No headers of its own.</p>`}
      rows=${Object.entries(email.headers ?? {}).map(([name, value]) => html`<tr><td>${name}</td><td class="wrap">${String(value)}</td></tr>`)} />
    <h2>Attachments</h2>
    ${attachments.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${attachments.map((a: any) => html`<li>${a.filename ?? a.id} (${a.content_type}${a.size ? `, ${a.size} bytes` : ''})</li>`)}</ul>`}`,
    )}
  <//>`;
}

/** An email's two parts: the HTML in its sandboxed preview and the text part as it is, one at a time (tabs). */
function Content({ html: markup, text }: { html: string | null; text: string | null }) {
  const [shown, setShown] = useState<'html' | 'text'>(markup ? 'html' : 'text');
  const tab = (part: 'html' | 'text', label: string) =>
    html`<button type="button" role="tab" id=${`tab-${part}`} aria-controls="email-part" aria-selected=${shown === part} onClick=${() => setShown(part)}>${label}</button>`;
  return html`<div class="tabs" role="tablist" aria-label="Email parts">${tab('html', 'HTML')}${tab('text', 'Text')}</div>
    <div id="email-part" role="tabpanel" aria-labelledby=${`tab-${shown}`}>
      ${
        shown === 'html'
          ? markup
            ? html`<${Preview} markup=${markup} title="Email preview" />`
            : html`<p class="muted">No HTML part: the email is text only.</p>`
          : text
            ? html`<pre class="text" data-testid="text-part">${text}</pre>`
            : html`<p class="muted">No text part.</p>`
      }
    </div>`;
}
