import { useState } from 'preact/hooks';
import { get, patch, post, qs, seg } from '../api';
import { LAST_EVENTS } from '../../../../shared/platform/mail/last-events';
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
  Preview,
  Table,
  useAction,
  useData,
  when,
} from '../ui';

type Filters = { status: string; from: string; to: string; tag: string; since: string; until: string };
const NO_FILTERS: Filters = { status: '', from: '', to: '', tag: '', since: '', until: '' };
const PAGE_SIZE = 50;

/** A day of the date inputs (local time), moved by `ms` from its start, as an ISO time ('' without a day): the API's created_* bounds. */
const dayBound = (day: string, ms: number) =>
  day ? new Date(new Date(`${day}T00:00:00`).getTime() + ms).toISOString() : '';

/**
 * The project's emails, newest first, filtered by the API (GET /emails' status, from, to, tag and
 * created range: every email of the retention, not a page filtered here), paged with its cursors.
 * The filters apply on submit, so typing an address sends no request per key.
 */
export function Emails() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [cursor, setCursor] = useState<Cursor>({});
  const state = useData(
    () =>
      get(
        `/emails${qs({
          limit: PAGE_SIZE,
          status: filters.status,
          from: filters.from.trim(),
          to: filters.to.trim(),
          tag: filters.tag.trim(),
          // both exclusive: from the first day's start, up to the last day's end
          created_after: dayBound(filters.since, -1),
          created_before: dayBound(filters.until, 86_400_000),
          ...cursor,
        })}`,
      ),
    [filters, cursor.after, cursor.before],
  );
  const filtering = Object.values(filters).some(Boolean);
  const edit = (name: keyof Filters) => (e: any) => setDraft({ ...draft, [name]: e.currentTarget.value });
  const apply = (next: Filters) => {
    setDraft(next);
    setFilters(next);
    setCursor({});
  };
  return html`<${Page} title="Emails" lead="This project's emails, newest first, with what happened to each. The filters search every email kept (30 days by default); a change of status shows in them within seconds." actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    <form class="filters" aria-label="Filters" onSubmit=${(e: Event) => (e.preventDefault(), apply(draft))}>
      <${Field} label="Status"><select value=${draft.status} onChange=${(e: any) => apply({ ...draft, status: e.currentTarget.value })}><option value="">Any</option>${LAST_EVENTS.map((s) => html`<option value=${s}>${s}</option>`)}</select><//>
      <${Field} label="From"><input type="search" placeholder="sender@example.com" value=${draft.from} onInput=${edit('from')} /><//>
      <${Field} label="Recipient"><input type="search" placeholder="to, cc or bcc" value=${draft.to} onInput=${edit('to')} /><//>
      <${Field} label="Tag"><input type="search" placeholder="name:value" value=${draft.tag} onInput=${edit('tag')} /><//>
      <${Field} label="Since"><input type="date" value=${draft.since} onInput=${edit('since')} /><//>
      <${Field} label="Until"><input type="date" value=${draft.until} onInput=${edit('until')} /><//>
      <button type="submit">Apply</button>
      ${filtering ? html`<button type="button" class="secondary" onClick=${() => apply(NO_FILTERS)}>Clear</button>` : null}
    </form>
    ${loaded(
      state,
      (page: { data: any[]; has_more: boolean; cursor?: string }) => html`<${Table}
        label="Emails"
        columns=${['To', 'Subject', 'Status', 'Created']}
        empty=${filtering ? html`<${Empty} title=${page.has_more ? 'None of the emails read so far match' : 'No emails match these filters'}>${page.has_more ? 'Older ones may: go on with Older.' : null}<//>` : html`<${Empty} title="No emails yet">Send one with <code>POST /emails</code> and an API key; it shows here within a second.<//>`}
        rows=${page.data.map((e: any) => html`<tr><td class="wrap">${e.to.join(', ')}</td><td class="wrap"><${Link} to=${`/emails/${e.id}`}>${e.subject || '(no subject)'}<//></td><td><${Badge} value=${e.last_event} /></td><td>${when(e.created_at)}</td></tr>`)} />
        <${Pager} page=${page} cursor=${cursor} onMove=${setCursor} label="Pages of emails" />`,
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
