import { useState } from 'preact/hooks';
import { get, post, seg } from '../api';
import { navigate } from '../router';
import {
  Badge,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  Link,
  loaded,
  Page,
  Preview,
  Table,
  useAction,
  useData,
  usePoll,
  when,
} from '../ui';
import { render } from '../../../../shared/templates/render';

export function Broadcasts() {
  const state = useData(() => get('/broadcasts?limit=100'));
  return html`<${Page} title="Broadcasts" lead="One email to every contact of a segment, now or at a time." actions=${html`<${Link} to="/broadcasts/new" class="button">New broadcast<//>`}>
    ${loaded(
      state,
      (data) => html`<${Table}
        label="Broadcasts"
        columns=${['Name', 'Subject', 'Status', 'Sent', 'Created']}
        empty=${html`<${Empty} title="No broadcasts yet">Compose one for a segment of your audience: it is kept as a draft until you send it.<//>`}
        rows=${data.data.map(
          (b: any) =>
            html`<tr><td><${Link} to=${`/broadcasts/${b.id}`}>${b.name || '(unnamed)'}<//></td><td class="wrap">${b.subject}</td><td><${Badge} value=${b.status} /></td><td class="num">${b.counters.sent} / ${b.counters.recipients}</td><td>${when(b.created_at)}</td></tr>`,
        )} />`,
    )}
  <//>`;
}

/** Compose: a draft (POST /broadcasts), then send or schedule it from its page. */
export function ComposeBroadcast() {
  const lists = useData(async () => ({
    segments: (await get('/segments?limit=100')).data as any[],
    topics: (await get('/topics?limit=100')).data as any[],
  }));
  const action = useAction();
  const [markup, setMarkup] = useState('<p>Hello {{{FIRST_NAME|there}}}</p>');
  // as a contact without a first name gets it: fallbacks in, other placeholders as written
  const preview = render(markup, {});
  // controlled, so the choice survives the lists arriving after it
  const [segmentId, setSegmentId] = useState('');
  const submit = (event: Event) => {
    const v = formValues(event);
    return action.run(async () => {
      const broadcast = await post('/broadcasts', {
        name: v.name || undefined,
        from: v.from,
        subject: v.subject,
        html: v.html,
        segment_id: v.segment_id,
        ...(v.topic_id ? { topic_id: v.topic_id } : {}),
      });
      navigate(`/broadcasts/${broadcast.id}`);
    });
  };
  return html`<${Page} title="New broadcast" lead="Saved as a draft; send it or schedule it from its page.">
    <${ErrorBox} error=${action.error || lists.error} retry=${lists.error ? lists.reload : undefined} />
    <form class="stack card" onSubmit=${submit}>
      <${Field} label="Name"><input name="name" /><//>
      <${Field} label="From"><input name="from" required placeholder="News <news@example.com>" /><//>
      <${Field} label="Subject"><input name="subject" required /><//>
      <${Field} label="Segment"><select name="segment_id" required value=${segmentId} onChange=${(e: any) => setSegmentId(e.currentTarget.value)}><option value="">Choose a segment</option>${(lists.data?.segments ?? []).map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select><//>
      <${Field} label="Topic"><select name="topic_id"><option value="">No topic</option>${(lists.data?.topics ?? []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select><//>
      <${Field} label="HTML"><textarea name="html" rows="8" value=${markup} onInput=${(e: any) => setMarkup(e.currentTarget.value)}></textarea><//>
      ${preview.malformed.length ? html`<p class="badge warn" role="alert">Braces that do not pair: ${preview.malformed.join(' ')}. Write three or two on both sides; saving is refused until then.</p>` : null}
      <${Preview} markup=${preview.text} title="Broadcast preview (a contact without a name)" />
      <button type="submit" disabled=${action.pending}>Save draft</button>
    </form>
  <//>`;
}

const GOING = new Set(['queued', 'sending', 'scheduled']);

/** A broadcast: send now or at a time, cancel, and its progress (polled every second while it goes out). */
export function BroadcastDetail({ id }: { id: string }) {
  const state = useData(() => get(`/broadcasts/${seg(id)}`), [id]);
  const action = useAction();
  const [at, setAt] = useState('');
  const b = state.data;
  usePoll(state.reload, 1000, !!b && GOING.has(b.status));
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), state.reload()));
  const actions = b
    ? html`
      ${b.status === 'draft' ? html`<button type="button" disabled=${action.pending} onClick=${() => act(() => post(`/broadcasts/${seg(id)}/send`))}>Send now</button>` : null}
      ${b.status === 'scheduled' || b.status === 'queued' || b.status === 'sending' ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => act(() => post(`/broadcasts/${seg(id)}/cancel`))}>Cancel</button>` : null}`
    : null;
  return html`<${Page} title=${b ? b.name || b.subject : 'Broadcast'} actions=${actions}>
    <${ErrorBox} error=${action.error} />
    ${loaded(state, (b) => {
      const total = b.counters.recipients;
      return html`
    <p>Status <${Badge} value=${b.status} /></p>
    <div class="progress-row">
      <progress max=${Math.max(total, 1)} value=${b.counters.sent} aria-label="Sent"></progress>
      <span aria-live="polite" data-testid="progress">${b.counters.sent} / ${total} sent · ${b.counters.failed} failed · ${b.counters.skipped} skipped</span>
    </div>
    ${
      b.status === 'draft'
        ? html`<form class="inline" onSubmit=${(e: Event) => (e.preventDefault(), act(() => post(`/broadcasts/${seg(id)}/send`, { scheduled_at: new Date(at).toISOString() })))}>
            <${Field} label="Send at"><input type="datetime-local" required value=${at} onInput=${(e: any) => setAt(e.currentTarget.value)} /><//><button type="submit">Schedule</button></form>`
        : null
    }
    <h2>Details</h2>
    <dl class="facts"><dt>From</dt><dd>${b.from}</dd><dt>Subject</dt><dd>${b.subject}</dd><dt>Scheduled</dt><dd>${when(b.scheduled_at)}</dd><dt>Sent at</dt><dd>${when(b.sent_at)}</dd></dl>
    ${b.html ? html`<h2>Content</h2><${Preview} markup=${b.html} title="Broadcast preview" />` : null}`;
    })}
  <//>`;
}
