/**
 * The console's building blocks. Every value from the API goes into the page as text or an
 * attribute through Preact, which escapes it; nothing here sets innerHTML. Email and template HTML
 * is shown only in `Preview`: an iframe with `sandbox` (no `allow-scripts`, no `allow-same-origin`)
 * and `srcdoc`, so its scripts never run and it cannot reach this page or its key.
 */
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api';
import { BASE, linkClick } from './router';

export { html };

export function Link(props: { to: string; children?: ComponentChildren; class?: string }) {
  return html`<a href=${`${BASE}${props.to}`} class=${props.class} onClick=${linkClick}>${props.children}</a>`;
}

/**
 * Loads `load()` now and on `reload()`; `deps` load it afresh when they change (what was shown
 * for the old ones is dropped). A failed reload keeps the data it had, beside its error.
 */
export function useData<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error) =>
        mine === generation.current && setState((s) => ({ data: s.data, error: describe(error), loading: false })),
    );
  }, deps);
  useEffect(() => {
    setState({ loading: true });
    reload();
  }, [reload]);
  return { ...state, reload };
}

/** Polls `tick` every `ms` while `active`. */
export function usePoll(tick: () => void, ms: number, active: boolean) {
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(tick, ms);
    return () => clearInterval(timer);
  }, [active, tick, ms]);
}

export function describe(error: unknown): string {
  if (error instanceof ApiFailure) {
    const details = Array.isArray(error.body?.errors)
      ? error.body.errors.map((e: any) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ')
      : '';
    return `${error.message}${details && !error.message.includes(details) ? ` (${details})` : ''}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Runs an action with its pending state and error; `done` after success. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setPending(true);
    setError(undefined);
    try {
      await action();
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setPending(false);
    }
  }, []);
  return { pending, error, run };
}

/** An error in words, with a way to try again when the failure was a load. */
export const ErrorBox = ({ error, retry }: { error?: string; retry?: () => void }) =>
  error
    ? html`<div class="error" role="alert"><p>${error}</p>${retry ? html`<button type="button" class="secondary small" onClick=${retry}>Try again</button>` : null}</div>`
    : null;

/** A load in progress: a line for screen readers and placeholder bars where the content will be. */
export const Loading = () =>
  html`<div class="loading" role="status"><span class="sr-only">Loading…</span><span class="bar"></span><span class="bar"></span><span class="bar short"></span></div>`;

/** What a list shows while it has nothing: what it would hold, and how to get the first one. */
export const Empty = ({ title, children }: { title: string; children?: ComponentChildren }) =>
  html`<div class="empty"><p class="empty-title">${title}</p>${children ? html`<p class="muted">${children}</p>` : null}</div>`;

/**
 * A load's three states in one place: its placeholder until the first answer, its error (with
 * "Try again"), and `render(data)` (under the error when a reload failed: see useData).
 */
export function loaded<T>(
  state: { data?: T; error?: string; reload: () => void },
  render: (data: T) => ComponentChildren,
) {
  const error = state.error ? html`<${ErrorBox} error=${state.error} retry=${state.reload} />` : null;
  if (state.data === undefined) return error ?? html`<${Loading} />`;
  return html`${error}${render(state.data)}`;
}

/**
 * A table in a region that scrolls sideways on a narrow screen (focusable, so a keyboard can
 * scroll it); `columns` names the headings ('' for a column of buttons), `empty` stands in for
 * the table when there are no rows.
 */
export function Table(props: {
  label: string;
  columns: string[];
  rows: ComponentChildren[];
  empty?: ComponentChildren;
}) {
  if (props.rows.length === 0 && props.empty) return props.empty;
  return html`<div class="table-wrap" role="region" aria-label=${props.label} tabindex="0"><table>
    <thead><tr>${props.columns.map((c) => html`<th scope="col">${c || html`<span class="sr-only">Actions</span>`}</th>`)}</tr></thead>
    <tbody>${props.rows}</tbody></table></div>`;
}

/** Where a list the API pages stands: its first page, `after` an id (older items) or `before` one (newer). */
export type Cursor = { after?: string; before?: string };

/**
 * Newer / Older over a list the API pages newest first by cursors. `has_more` speaks of the
 * direction the page was read in: read with `before`, there are newer items still (and older ones,
 * where it came from); on the first page or read with `after`, older ones (and, after `after`,
 * newer ones). Nothing shows when the list fits one page.
 */
export function Pager(props: {
  /** `cursor`: where the next page in the read direction starts, when the API says (GET /emails' filters: past the last item) */
  page: { data: { id: string }[]; has_more: boolean; cursor?: string };
  cursor: Cursor;
  onMove: (cursor: Cursor) => void;
  label: string;
}) {
  const { page, cursor } = props;
  const newer = cursor.before !== undefined ? page.has_more : cursor.after !== undefined;
  const older = cursor.before !== undefined || page.has_more;
  if (!newer && !older) return null;
  const first = page.data[0]?.id;
  const last = page.data[page.data.length - 1]?.id;
  // an empty page (its items deleted meanwhile) has no id to move from: back to the first page
  return html`<div class="pager" role="group" aria-label=${props.label}>
    <button type="button" class="secondary small" disabled=${!newer} onClick=${() => props.onMove(cursor.before !== undefined && page.cursor ? { before: page.cursor } : first ? { before: first } : {})}>Newer</button>
    <button type="button" class="secondary small" disabled=${!older} onClick=${() => props.onMove(cursor.before === undefined && page.cursor ? { after: page.cursor } : last ? { after: last } : {})}>Older</button>
  </div>`;
}

/**
 * A panel over the right of the page (all of it on a narrow screen): a modal dialog that takes the
 * focus when it opens and gives it back when it closes, and closes on Escape or its Close button.
 */
export function Drawer(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const panel = useRef<HTMLElement>(null);
  useEffect(() => {
    const opener = document.activeElement as HTMLElement | null;
    panel.current?.focus();
    const onKey = (event: KeyboardEvent) => event.key === 'Escape' && props.onClose();
    addEventListener('keydown', onKey);
    return () => {
      removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, []);
  return html`<div class="drawer-backdrop" onClick=${props.onClose}></div>
    <aside class="drawer" role="dialog" aria-modal="true" aria-labelledby="drawer-title" tabindex="-1" ref=${panel}>
      <header class="drawer-head"><h2 id="drawer-title">${props.title}</h2><button type="button" class="secondary small" onClick=${props.onClose}>Close</button></header>
      <div class="drawer-body">${props.children}</div>
    </aside>`;
}

const TONES: Record<string, string> = {
  delivered: 'good',
  sent: 'good',
  verified: 'good',
  enabled: 'good',
  opened: 'good',
  clicked: 'good',
  published: 'good',
  opt_in: 'good',
  bounced: 'bad',
  complained: 'bad',
  failed: 'bad',
  suppressed: 'bad',
  disabled: 'bad',
  paused: 'bad',
  canceled: 'muted',
  cancelled: 'muted',
  skipped: 'muted',
  completed: 'good',
  running: 'info',
  waiting: 'info',
  temporary_failure: 'bad',
  opt_out: 'bad',
  queued: 'info',
  scheduled: 'info',
  sending: 'info',
  pending: 'info',
  draft: 'muted',
  not_started: 'muted',
  delivery_delayed: 'warn',
  attempting: 'warn',
  pass: 'good',
  warn: 'warn',
  fail: 'bad',
  success: 'good',
  subscribed: 'good',
  unsubscribed: 'muted',
  live: 'good',
  test: 'warn',
  full_access: 'info',
  sending_access: 'muted',
};
export const Badge = ({ value }: { value: string | null | undefined }) =>
  html`<span class=${`badge ${TONES[value ?? ''] ?? 'muted'}`}>${value ?? '—'}</span>`;

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(text).then(
      () => (setCopied(true), setTimeout(() => setCopied(false), 1500)),
      () => setCopied(false),
    );
  return html`<button type="button" class="small" aria-label=${label} onClick=${copy}>${copied ? 'Copied' : 'Copy'}</button>`;
}

/** Email or template HTML, rendered in a sandbox without scripts (see the module comment). */
export const Preview = ({ markup, title }: { markup: string; title: string }) =>
  html`<iframe class="preview" title=${title} sandbox="" referrerpolicy="no-referrer" srcdoc=${markup}></iframe>`;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Field(props: { label: string; children: ComponentChildren; hint?: string }) {
  return html`<label class="field"><span>${props.label}</span>${props.children}${props.hint ? html`<small class="muted">${props.hint}</small>` : null}</label>`;
}

/** A screen: its title (also the document's), a line of what it is for, its actions on the right. */
export function Page(props: {
  title: string;
  lead?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${props.title} · Email service console`;
  }, [props.title]);
  return html`<section class="page"><header class="page-head"><div><h1>${props.title}</h1>${props.lead ? html`<p class="lead">${props.lead}</p>` : null}</div><div class="actions">${props.actions}</div></header>${props.children}</section>`;
}

/** Values of a form's named inputs. */
export function formValues(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) values[name] = String(value);
  return values;
}
