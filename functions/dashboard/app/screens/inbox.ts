/**
 * Inboxes: the list, an inbox's threads, a conversation and a draft. Everything through
 * /inboxes/… of the public API; `{inbox}` in a path is the inbox's id as the list gives it.
 *
 * - The list: GET /inboxes with each inbox's unread count; a new inbox (an address on a domain
 *   that receives mail, a name, a From name) opens its page.
 * - An inbox: folder tabs (Inbox, Sent, Archive, Spam, Trash) and its drafts, a label filter, "unread
 *   only", and a search (GET …/threads/search, with the same filters) whose highlights show under each
 *   result. The folder, label, search and unread filter are the page's query (`?folder=archive&label=…
 *   &q=…&unread=1`), so a conversation's "back" link and the browser's history keep them. The threads
 *   are paged by the API's cursors and read again every 30 s on the first page. Below: the inbox's
 *   labels (create, delete) and its settings (name, From name, delete the inbox).
 * - A conversation: its messages oldest first, received and sent ones apart; opening it marks it
 *   read. Mark read / unread, move it (inbox, archive, spam, trash), add and remove labels, reply
 *   (reply all) or keep the reply as a draft, forward (address and note), delete it.
 * - A draft: its recipients and subject (a new conversation's), its text; save, send, delete.
 *
 * Message content is never markup in this page: HTML bodies go only into `Preview` (a sandboxed
 * `srcdoc` frame, no scripts), text bodies are text. A search highlight is the server's escaped text
 * with `<mark>` around the words found: it is split on those tags and shown as text and <mark>
 * elements, so not even the server's snippet is parsed as HTML.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, patch, post, qs, seg } from '../api';
import { navigate } from '../router';
import {
  type Cursor,
  Empty,
  ErrorBox,
  Field,
  formValues,
  html,
  Link,
  Loading,
  loaded,
  Page,
  Pager,
  Preview,
  Table,
  useAction,
  useData,
  usePoll,
  when,
} from '../ui';

/** Threads and drafts per page. */
const PAGE_SIZE = 25;
const FOLDERS: [string, string][] = [
  ['inbox', 'Inbox'],
  ['sent', 'Sent'],
  ['archive', 'Archive'],
  ['spam', 'Spam'],
  ['trash', 'Trash'],
];
/** Where a thread can be moved (PATCH `folder`), and the button that does it. */
const MOVES: [string, string][] = [
  ['inbox', 'Move to inbox'],
  ['archive', 'Archive'],
  ['spam', 'Mark as spam'],
  ['trash', 'Move to trash'],
];

interface Label {
  id: string;
  name: string;
  color: string;
}
interface Thread {
  id: string;
  subject: string | null;
  from: string | null;
  to: string[];
  labels: Label[];
  email_count: number;
  has_attachment: boolean;
  has_draft: boolean;
  read: boolean;
  received_at: string;
  folder: string;
  highlights?: string[];
}
interface Message {
  id: string;
  direction: 'inbound' | 'outbound';
  from: string;
  to: string[];
  cc: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  attachments: { id: string; filename: string | null; size: number | null }[];
  received_at: string;
}

const base = (inbox: string) => `/inboxes/${seg(inbox)}`;
const subjectOf = (s: string | null | undefined) => s || '(no subject)';
/** A subject without its reply and forward prefixes (`Re: Fwd: x` is x). */
const bareSubject = (s: string | null) => (s ?? '').replace(/^((re|fwd?|aw|sv|tr)\s*:\s*)+/i, '').trim();
const addresses = (value: string) =>
  value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/** A time as a list shows it: the hour today, else the day (and the year when not this one). */
function short(iso: string): string {
  const date = new Date(iso);
  const now = new Date();
  if (date.toDateString() === now.toDateString())
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return date.toLocaleDateString([], {
    month: 'short',
    day: 'numeric',
    year: date.getFullYear() === now.getFullYear() ? undefined : 'numeric',
  });
}

/**
 * A label in its colour, its text black or white, whichever contrasts more: with any background one
 * of them reaches at least 4.58:1 (WCAG AA), so no label's colour makes its name unreadable.
 */
function chipColors(color: string): { background: string; color: string } {
  if (!/^#[0-9a-f]{6}$/i.test(color)) return { background: '#f4f4f5', color: '#18181b' };
  const channel = (i: number) => {
    const c = Number.parseInt(color.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return { background: color, color: (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000' : '#fff' };
}

const Chip = ({ label, onRemove }: { label: Label; onRemove?: () => void }) =>
  html`<span class="chip" style=${chipColors(label.color)}>${label.name}${onRemove ? html`<button type="button" class="chip-remove" aria-label=${`Remove label ${label.name}`} onClick=${onRemove}>×</button>` : null}</span>`;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ENTITIES[name]);

/** A search highlight: text, with the words found in <mark> (see the module comment). */
const Highlight = ({ snippet }: { snippet: string }) =>
  html`<p class="highlight">${snippet
    .split(/<\/?mark>/)
    .map((part, i) => (i % 2 ? html`<mark>${unescapeHtml(part)}</mark>` : unescapeHtml(part)))}</p>`;

/** The inboxes, with their unread counts, and a new one. */
export function Inboxes() {
  const state = useData(() => get(`/inboxes${qs({ limit: 100 })}`));
  const action = useAction();
  const create = (event: Event) => {
    const v = formValues(event);
    return action.run(async () => {
      const inbox = await post('/inboxes', {
        email_address: v.email_address.trim(),
        name: v.name.trim() || undefined,
        from_name: v.from_name.trim() || undefined,
      });
      navigate(base(inbox.id));
    });
  };
  return html`<${Page} title="Inboxes" lead="Addresses on your receiving domains: mail to them is filed in conversations you read, label, search and answer here." actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    <form class="inline card" onSubmit=${create}>
      <${Field} label="Address"><input name="email_address" type="email" required placeholder="support@example.com" autocomplete="off" /><//>
      <${Field} label="Name"><input name="name" placeholder="Support" /><//>
      <${Field} label="From name"><input name="from_name" placeholder="Acme Support" /><//>
      <button type="submit" disabled=${action.pending}>Create inbox</button>
    </form>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (page) => html`<${Table}
        label="Inboxes"
        columns=${['Inbox', 'Address', 'Unread', 'Last received']}
        empty=${html`<${Empty} title="No inboxes yet">Create one for an address on a domain with receiving enabled (<code>capabilities.receiving</code> on <code>POST /domains</code>).<//>`}
        rows=${page.data.map(
          (i: any) =>
            html`<tr><td class="wrap"><${Link} to=${base(i.id)}>${i.name || i.email_address}<//></td><td class="wrap">${i.email_address}</td><td class="num">${i.unread ? html`<strong>${i.unread}</strong>` : '0'}</td><td>${when(i.last_received)}</td></tr>`,
        )} />`,
    )}
  <//>`;
}

/** An inbox: its folders, drafts, filters and search (the page's query), labels and settings. */
export function InboxView({ inbox, query }: { inbox: string; query: URLSearchParams }) {
  const folder = query.get('folder') || 'inbox';
  const label = query.get('label') ?? '';
  const q = query.get('q') ?? '';
  const unread = query.get('unread') === '1';
  const [cursor, setCursor] = useState<Cursor>({});
  const [typed, setTyped] = useState(q);
  useEffect(() => setTyped(q), [q]);
  const state = useData(async () => {
    const [box, labels] = await Promise.all([get(base(inbox)), get(`${base(inbox)}/labels`)]);
    return { box, labels: labels.data as Label[] };
  }, [inbox]);
  const go = (change: Record<string, string>) => {
    const next = { folder, label, q, unread: unread ? '1' : '', ...change };
    setCursor({});
    navigate(`${base(inbox)}${qs({ ...next, folder: next.folder === 'inbox' ? '' : next.folder })}`, true);
  };
  const box = state.data?.box;
  const labels = state.data?.labels ?? [];
  const tab = (value: string, text: string) =>
    html`<button type="button" role="tab" id=${`folder-${value}`} aria-controls="folder-panel" aria-selected=${folder === value} onClick=${() => go({ folder: value })}>${text}</button>`;
  return html`<${Page} title=${box ? box.name || box.email_address : 'Inbox'} lead=${box ? html`<code>${box.email_address}</code> · ${box.unread} unread` : null} actions=${html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>`}>
    ${state.error ? html`<${ErrorBox} error=${state.error} retry=${state.reload} />` : null}
    <div class="tabs inbox-tabs" role="tablist" aria-label="Folders">${FOLDERS.map(([value, text]) => tab(value, text))}${tab('drafts', box ? `Drafts (${box.drafts})` : 'Drafts')}</div>
    <div id="folder-panel" role="tabpanel" aria-labelledby=${`folder-${folder}`}>
    ${
      folder === 'drafts'
        ? html`<${Drafts} inbox=${inbox} cursor=${cursor} onMove=${setCursor} />`
        : html`<div class="filters">
          <${Field} label="Label"><select value=${label} onChange=${(e: any) => go({ label: e.currentTarget.value })}><option value="">Any label</option>${labels.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select><//>
          <label class="check"><input type="checkbox" checked=${unread} onChange=${(e: any) => go({ unread: e.currentTarget.checked ? '1' : '' })} /> Unread only</label>
          <form class="inbox-search" role="search" onSubmit=${(e: Event) => (e.preventDefault(), go({ q: typed.trim() }))}>
            <${Field} label="Search"><input type="search" name="q" value=${typed} onInput=${(e: any) => setTyped(e.currentTarget.value)} placeholder=${'Words, "a phrase", -not'} /><//>
            <button type="submit" class="secondary">Search</button>
            ${q ? html`<button type="button" class="secondary" onClick=${() => go({ q: '' })}>Clear</button>` : null}
          </form>
        </div>
        <${Threads} inbox=${inbox} address=${box?.email_address} folder=${folder} label=${label} q=${q} unread=${unread} cursor=${cursor} onMove=${setCursor} />`
    }
    </div>
    ${state.data ? html`<${Labels} inbox=${inbox} labels=${labels} onChange=${state.reload} /><${Settings} inbox=${inbox} box=${box} onChange=${state.reload} />` : null}
  <//>`;
}

/** A folder's threads (or the search's results in it), newest activity first. */
function Threads(props: {
  inbox: string;
  address?: string;
  folder: string;
  label: string;
  q: string;
  unread: boolean;
  cursor: Cursor;
  onMove: (cursor: Cursor) => void;
}) {
  const { inbox, folder, label, q, unread, cursor } = props;
  const state = useData(
    () =>
      get(
        `${base(inbox)}/threads${q ? '/search' : ''}${qs({
          query: q,
          folders: folder,
          labels: label,
          read: unread ? 'false' : '',
          limit: PAGE_SIZE,
          ...cursor,
        })}`,
      ),
    [inbox, folder, label, q, unread, cursor.after, cursor.before],
  );
  usePoll(state.reload, 30_000, !cursor.after && !cursor.before);
  // a thread's last message sent from this inbox: the other side is who it went to
  const who = (t: Thread) =>
    folder === 'sent' || (props.address && t.from?.toLowerCase().includes(props.address.toLowerCase()))
      ? `To ${t.to.join(', ') || '—'}`
      : (t.from ?? '—');
  const folderName = FOLDERS.find(([value]) => value === folder)?.[1] ?? folder;
  const empty = q
    ? html`<${Empty} title="Nothing found">No thread in ${folderName} matches “${q}”. A message can take a few seconds to be searchable after it arrives.<//>`
    : label || unread
      ? html`<${Empty} title="No threads match these filters" />`
      : html`<${Empty} title=${`Nothing in ${folderName}`}>${folder === 'inbox' ? 'Mail sent to this address shows here as it arrives.' : null}<//>`;
  return loaded(
    state,
    (page: { data: Thread[]; has_more: boolean }) => html`
    ${q ? html`<p class="muted" role="status">Results in ${folderName} for “${q}”</p>` : null}
    ${
      page.data.length === 0
        ? empty
        : html`<ul class="threads" aria-label="Threads">${page.data.map(
            (t) => html`<li class=${t.read ? 'thread' : 'thread unread'} data-thread=${t.id}>
            <span class="thread-from">${t.read ? null : html`<span class="sr-only">Unread: </span>`}${who(t)}</span>
            <span class="thread-main"><${Link} to=${`${base(inbox)}/threads/${seg(t.id)}`} class="thread-subject">${subjectOf(t.subject)}<//>
              ${t.labels.map((l) => html` <${Chip} label=${l} />`)}</span>
            <span class="thread-meta">
              ${t.has_attachment ? html`<span class="badge muted">attachment</span>` : null}
              ${t.has_draft ? html`<span class="badge warn">draft</span>` : null}
              ${t.email_count > 1 ? html`<span class="count">${t.email_count}<span class="sr-only"> emails</span></span>` : null}
              <time datetime=${t.received_at} title=${when(t.received_at)}>${short(t.received_at)}</time>
            </span>
            ${t.highlights?.length ? html`<div class="thread-extra">${t.highlights.map((h) => html`<${Highlight} snippet=${h} />`)}</div>` : null}
          </li>`,
          )}</ul>`
    }
    <${Pager} page=${page} cursor=${cursor} onMove=${props.onMove} label="Pages of threads" />`,
  );
}

/** The inbox's drafts, newest first; a new one opens its page. */
function Drafts({ inbox, cursor, onMove }: { inbox: string; cursor: Cursor; onMove: (cursor: Cursor) => void }) {
  const state = useData(
    () => get(`${base(inbox)}/drafts${qs({ limit: PAGE_SIZE, ...cursor })}`),
    [inbox, cursor.after, cursor.before],
  );
  const action = useAction();
  const compose = () =>
    action.run(async () => {
      const draft = await post(`${base(inbox)}/drafts`, { text: '' });
      navigate(`${base(inbox)}/drafts/${seg(draft.id)}`);
    });
  return html`<div class="section-head"><p class="muted">Unsent messages: replies kept for later, and new conversations.</p>
      <button type="button" class="small" disabled=${action.pending} onClick=${compose}>New draft</button></div>
    <${ErrorBox} error=${action.error} />
    ${loaded(
      state,
      (page) => html`<${Table}
        label="Drafts"
        columns=${['Draft', 'To', 'Text', 'Updated']}
        empty=${html`<${Empty} title="No drafts">Save a reply as a draft from a conversation, or start a new one.<//>`}
        rows=${page.data.map(
          (d: any) =>
            html`<tr><td class="wrap"><${Link} to=${`${base(inbox)}/drafts/${seg(d.id)}`}>${d.type === 'reply' ? 'Reply' : subjectOf(d.subject)}<//></td><td class="wrap">${d.to?.join(', ') || '—'}</td><td class="wrap muted">${d.snippet || '—'}</td><td>${when(d.updated_at)}</td></tr>`,
        )} />
      <${Pager} page=${page} cursor=${cursor} onMove=${onMove} label="Pages of drafts" />`,
    )}`;
}

/** The inbox's labels: a new one (name and colour), and deleting one (it leaves every thread). */
function Labels({ inbox, labels, onChange }: { inbox: string; labels: Label[]; onChange: () => void }) {
  const action = useAction();
  const create = (event: Event) => {
    const v = formValues(event);
    const form = event.currentTarget as HTMLFormElement;
    return action.run(async () => {
      await post(`${base(inbox)}/labels`, { name: v.name.trim(), color: v.color });
      form.reset();
      onChange();
    });
  };
  return html`<h2>Labels</h2>
    ${labels.length ? html`<ul class="label-list" aria-label="Labels">${labels.map((l) => html`<li><${Chip} label=${l} /> <button type="button" class="secondary small" disabled=${action.pending} aria-label=${`Delete label ${l.name}`} onClick=${() => action.run(async () => (await del(`${base(inbox)}/labels/${seg(l.id)}`), onChange()))}>Delete</button></li>`)}</ul>` : html`<p class="muted">No labels yet.</p>`}
    <form class="inline" onSubmit=${create}>
      <${Field} label="New label"><input name="name" required maxlength="64" /><//>
      <${Field} label="Colour"><input name="color" type="color" value="#4338ca" /><//>
      <button type="submit" class="secondary" disabled=${action.pending}>Add label</button>
    </form>
    <${ErrorBox} error=${action.error} />`;
}

/** The inbox's name and From name; deleting it (a second click confirms). */
function Settings({ inbox, box, onChange }: { inbox: string; box: any; onChange: () => void }) {
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  const save = (event: Event) => {
    const v = formValues(event);
    return action.run(async () => {
      await patch(base(inbox), { name: v.name.trim() || undefined, from_name: v.from_name.trim() || undefined });
      onChange();
    });
  };
  return html`<h2>Settings</h2>
    <form class="inline" onSubmit=${save}>
      <${Field} label="Inbox name"><input name="name" value=${box.name ?? ''} maxlength="128" /><//>
      <${Field} label="Inbox From name" hint="Shown beside the address on mail sent from this inbox."><input name="from_name" value=${box.from_name ?? ''} maxlength="128" /><//>
      <button type="submit" class="secondary" disabled=${action.pending}>Save</button>
    </form>
    ${
      confirming
        ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => action.run(async () => (await del(base(inbox)), navigate('/inboxes')))}>Confirm delete inbox</button>`
        : html`<button type="button" class="danger" onClick=${() => setConfirming(true)}>Delete inbox</button>`
    }
    <${ErrorBox} error=${action.error} />`;
}

/** A conversation's messages, oldest first: every page of them (at most 1,000). */
async function conversation(path: string): Promise<Message[]> {
  const messages: Message[] = [];
  let after: string | undefined;
  for (let page = 0; page < 10; page++) {
    const got = await get(`${path}/emails${qs({ limit: 100, after })}`);
    messages.push(...got.data);
    if (!got.has_more || got.data.length === 0) break;
    after = got.data[got.data.length - 1].id;
  }
  return messages;
}

/** A conversation and what can be done to it. Opening it marks it read (once: "Mark unread" stays). */
export function InboxThread({ inbox, id }: { inbox: string; id: string }) {
  const path = `${base(inbox)}/threads/${seg(id)}`;
  const state = useData(async () => {
    const [thread, messages, labels, drafts, box] = await Promise.all([
      get(path),
      conversation(path),
      get(`${base(inbox)}/labels`),
      get(`${base(inbox)}/drafts${qs({ limit: 100 })}`),
      get(base(inbox)),
    ]);
    return {
      thread,
      messages,
      labels: labels.data as Label[],
      drafts: (drafts.data as any[]).filter((d) => d.thread_id === id),
      box,
    };
  }, [inbox, id]);
  const action = useAction();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [composing, setComposing] = useState<{ email: string; mode: 'reply' | 'forward' } | undefined>();
  const [notice, setNotice] = useState<string | undefined>();
  const [adding, setAdding] = useState('');
  const act = (fn: () => Promise<unknown>) => action.run(async () => (await fn(), state.reload()));
  const opened = useRef(false);
  const thread = state.data?.thread;
  useEffect(() => {
    if (!thread || opened.current) return;
    opened.current = true;
    if (!thread.read) void act(() => patch(path, { read: true }));
  }, [thread]);
  const back = thread ? `${base(inbox)}${qs({ folder: thread.folder === 'inbox' ? '' : thread.folder })}` : base(inbox);
  const actions = thread
    ? html`<button type="button" class="secondary" onClick=${state.reload}>Refresh</button>
      <button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => patch(path, { read: !thread.read }))}>${thread.read ? 'Mark unread' : 'Mark read'}</button>
      ${MOVES.filter(([folder]) => folder !== thread.folder).map(
        ([folder, text]) =>
          html`<button type="button" class="secondary" disabled=${action.pending} onClick=${() => act(() => patch(path, { folder }))}>${text}</button>`,
      )}
      ${
        confirmingDelete
          ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => action.run(async () => (await del(path), navigate(back)))}>Confirm delete</button>`
          : html`<button type="button" class="danger" onClick=${() => setConfirmingDelete(true)}>Delete</button>`
      }`
    : null;
  const sent = (text: string) => {
    setComposing(undefined);
    setNotice(text);
    state.reload();
  };
  return html`<${Page} title=${thread ? subjectOf(thread.subject) : 'Conversation'} actions=${actions}>
    <p class="back"><${Link} to=${back}>← ${state.data ? state.data.box.name || state.data.box.email_address : 'Inbox'}<//></p>
    <${ErrorBox} error=${action.error} />
    ${notice ? html`<div class="notice" role="status"><p>${notice}</p></div>` : null}
    ${loaded(state, ({ thread, messages, labels, drafts }) => {
      const addable = labels.filter((l) => !thread.labels.some((t: Label) => t.id === l.id));
      return html`
      <dl class="facts">
        <dt>Folder</dt><dd><span class="badge info" data-testid="thread-folder">${thread.folder}</span></dd>
        <dt>Status</dt><dd data-testid="thread-read">${thread.read ? 'read' : 'unread'}</dd>
        <dt>Labels</dt><dd><div class="label-row">${thread.labels.length ? thread.labels.map((l: Label) => html`<${Chip} label=${l} onRemove=${() => act(() => del(`${path}/labels/${seg(l.id)}`))} />`) : html`<span class="muted">None</span>`}
          ${
            addable.length
              ? html`<form class="label-add" onSubmit=${(e: Event) => (e.preventDefault(), adding && act(async () => (await post(`${path}/labels`, { labels: [adding] }), setAdding(''))))}>
                  <select aria-label="Label to add" value=${adding} onChange=${(e: any) => setAdding(e.currentTarget.value)}><option value="">Choose a label…</option>${addable.map((l) => html`<option value=${l.id}>${l.name}</option>`)}</select>
                  <button type="submit" class="secondary small" disabled=${action.pending || !adding}>Add label</button></form>`
              : labels.length
                ? null
                : html`<span class="muted">(create labels on the <${Link} to=${base(inbox)}>inbox's page<//>)</span>`
          }</div></dd>
      </dl>
      ${
        drafts.length
          ? html`<h2>Drafts</h2><ul class="plain">${drafts.map((d: any) => html`<li><span class="muted">${d.snippet || '(empty)'}</span><${Link} to=${`${base(inbox)}/drafts/${seg(d.id)}`}>Open draft<//></li>`)}</ul>`
          : null
      }
      <h2>Messages</h2>
      <ol class="messages" aria-label="Messages">${messages.map(
        (
          m: Message,
          i: number,
        ) => html`<li class=${`message ${m.direction}`} data-direction=${m.direction} data-email=${m.id}>
          <header class="message-head">
            <span class=${`badge ${m.direction === 'inbound' ? 'info' : 'good'}`}>${m.direction === 'inbound' ? 'Received' : 'Sent'}</span>
            <strong class="message-from">${m.from}</strong>
            <span class="muted">to ${m.to.join(', ') || '—'}${m.cc.length ? ` · cc ${m.cc.join(', ')}` : ''}</span>
            <time class="muted" datetime=${m.received_at}>${when(m.received_at)}</time>
          </header>
          ${m.subject && bareSubject(m.subject) !== bareSubject(thread.subject) ? html`<p class="muted">Subject: ${m.subject}</p>` : null}
          ${
            m.html
              ? html`<${Preview} markup=${m.html} title=${`Message ${i + 1} from ${m.from}`} />`
              : m.text
                ? html`<pre class="text">${m.text}</pre>`
                : html`<p class="muted">No content.</p>`
          }
          ${m.attachments.length ? html`<ul class="tags" aria-label="Attachments">${m.attachments.map((a) => html`<li>${a.filename ?? a.id}${a.size != null ? ` (${a.size} bytes)` : ''}</li>`)}</ul>` : null}
          <div class="actions message-actions">
            <button type="button" class="secondary small" onClick=${() => (setNotice(undefined), setComposing({ email: m.id, mode: 'reply' }))}>Reply</button>
            <button type="button" class="secondary small" onClick=${() => (setNotice(undefined), setComposing({ email: m.id, mode: 'forward' }))}>Forward</button>
          </div>
          ${
            composing?.email === m.id
              ? html`<${Composer} key=${`${m.id}-${composing.mode}`} path=${path} inbox=${inbox} thread=${id} email=${m} mode=${composing.mode} onSent=${sent} onCancel=${() => setComposing(undefined)} />`
              : null
          }
        </li>`,
      )}</ol>`;
    })}
  <//>`;
}

/** Reply to a message (reply all; or keep it as a draft) or forward it (an address and a note). */
function Composer(props: {
  path: string;
  inbox: string;
  thread: string;
  email: Message;
  mode: 'reply' | 'forward';
  onSent: (notice: string) => void;
  onCancel: () => void;
}) {
  const { path, inbox, email, mode } = props;
  const action = useAction();
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => area.current?.focus(), []);
  const submit = (event: Event) => {
    const v = formValues(event);
    return action.run(async () => {
      const url = `${path}/emails/${seg(email.id)}/${mode}`;
      if (mode === 'reply') await post(url, { text, reply_all: v.reply_all === 'on' });
      else await post(url, { to: addresses(v.to), text: text || undefined });
      props.onSent(mode === 'reply' ? 'Reply sent.' : `Forwarded to ${v.to}.`);
    });
  };
  const keep = () =>
    action.run(async () => {
      const draft = await post(`${base(inbox)}/drafts`, { thread_id: props.thread, reply_to_email_id: email.id, text });
      // one draft per message: an existing one comes back as it was
      if (draft.text !== text) await patch(`${base(inbox)}/drafts/${seg(draft.id)}`, { text });
      props.onSent('Reply kept as a draft.');
    });
  return html`<form class="stack composer" onSubmit=${submit} aria-label=${mode === 'reply' ? 'Reply' : 'Forward'}>
    ${
      mode === 'reply'
        ? html`<${Field} label=${`Reply to ${email.from}`}><textarea ref=${area} rows="6" required value=${text} onInput=${(e: any) => setText(e.currentTarget.value)}></textarea><//>
          <label class="check"><input type="checkbox" name="reply_all" /> Reply all (copy the other recipients)</label>`
        : html`<${Field} label="Forward to" hint="Addresses, separated by commas."><input name="to" type="text" inputmode="email" required autocomplete="off" /><//>
          <${Field} label="Note"><textarea ref=${area} rows="4" value=${text} onInput=${(e: any) => setText(e.currentTarget.value)}></textarea><//>`
    }
    <${ErrorBox} error=${action.error} />
    <div class="actions">
      <button type="submit" disabled=${action.pending}>${mode === 'reply' ? 'Send reply' : 'Forward'}</button>
      ${mode === 'reply' ? html`<button type="button" class="secondary" disabled=${action.pending} onClick=${keep}>Save draft</button>` : null}
      <button type="button" class="secondary" onClick=${props.onCancel}>Cancel</button>
    </div>
  </form>`;
}

/** A draft: its recipients and subject (a new conversation's), its text; save, send, delete. */
export function InboxDraft({ inbox, id }: { inbox: string; id: string }) {
  const path = `${base(inbox)}/drafts/${seg(id)}`;
  const { data: draft, error, reload } = useData(() => get(path), [inbox, id]);
  const action = useAction();
  const [form, setForm] = useState<{ to: string; subject: string; text: string } | undefined>();
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  useEffect(() => {
    if (draft) setForm({ to: (draft.to ?? []).join(', '), subject: draft.subject ?? '', text: draft.text ?? '' });
  }, [draft]);
  if (error) return html`<${Page} title="Draft"><${ErrorBox} error=${error} retry=${reload} /><//>`;
  if (!draft || !form) return html`<${Page} title="Draft"><${Loading} /><//>`;
  const reply = draft.type === 'reply';
  const set = (change: Partial<typeof form>) => setForm({ ...form, ...change });
  const save = () =>
    patch(
      path,
      reply
        ? { text: form.text }
        : { to: addresses(form.to).length ? addresses(form.to) : null, subject: form.subject || null, text: form.text },
    );
  const send = () =>
    action.run(async () => {
      await save();
      const sent = await post(`${path}/send`);
      navigate(`${base(inbox)}/threads/${seg(sent.thread_id)}`);
    });
  return html`<${Page} title=${reply ? 'Draft reply' : subjectOf(draft.subject)} actions=${html`
      <button type="button" class="secondary" disabled=${action.pending} onClick=${() => action.run(async () => (await save(), reload()))}>Save</button>
      <button type="button" disabled=${action.pending} onClick=${send}>Send</button>
      ${
        confirmingDelete
          ? html`<button type="button" class="danger" disabled=${action.pending} onClick=${() => action.run(async () => (await del(path), navigate(`${base(inbox)}?folder=drafts`)))}>Confirm delete</button>`
          : html`<button type="button" class="danger" onClick=${() => setConfirmingDelete(true)}>Delete</button>`
      }`}>
    <p class="back"><${Link} to=${reply ? `${base(inbox)}/threads/${seg(draft.thread_id)}` : `${base(inbox)}?folder=drafts`}>← ${reply ? 'The conversation' : 'Drafts'}<//></p>
    <${ErrorBox} error=${action.error} />
    <div class="stack">
      ${
        reply
          ? html`<p class="muted">A reply in its conversation: it goes to the message's sender, with the conversation's subject.</p>`
          : html`<${Field} label="To" hint="Addresses, separated by commas."><input value=${form.to} inputmode="email" onInput=${(e: any) => set({ to: e.currentTarget.value })} /><//>
            <${Field} label="Subject"><input value=${form.subject} maxlength="998" onInput=${(e: any) => set({ subject: e.currentTarget.value })} /><//>`
      }
      <${Field} label="Text"><textarea rows="10" value=${form.text} onInput=${(e: any) => set({ text: e.currentTarget.value })}></textarea><//>
      ${draft.attachments.length ? html`<p>Attachments: ${draft.attachments.map((a: any) => a.filename).join(', ')}</p>` : null}
      ${draft.html ? html`<h2>HTML part</h2><p class="muted">Sent as it is; edited through the API (PATCH …/drafts/{id}).</p><${Preview} markup=${draft.html} title="Draft HTML" />` : null}
      <p class="muted">Last saved ${when(draft.updated_at)}</p>
    </div>
  <//>`;
}
