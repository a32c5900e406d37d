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

/** Loads `load()` now and on `reload()`; `deps` reload it when they change. */
export function useData<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const generation = useRef(0);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === generation.current && setState({ data, loading: false }),
      (error) => mine === generation.current && setState({ error: describe(error), loading: false }),
    );
  }, deps);
  useEffect(reload, [reload]);
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
    const details = Array.isArray(error.body?.errors) ? error.body.errors.map((e: any) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; ') : '';
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

export const ErrorBox = ({ error }: { error?: string }) => (error ? html`<p class="error" role="alert">${error}</p>` : null);
export const Loading = () => html`<p class="muted" aria-live="polite">Loading…</p>`;

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
  temporary_failure: 'bad',
  opt_out: 'bad',
  queued: 'info',
  scheduled: 'info',
  sending: 'info',
  pending: 'info',
  draft: 'muted',
  not_started: 'muted',
  delivery_delayed: 'warn',
};
export const Badge = ({ value }: { value: string | null | undefined }) => html`<span class=${`badge ${TONES[value ?? ''] ?? 'muted'}`}>${value ?? '—'}</span>`;

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
export const Preview = ({ markup, title }: { markup: string; title: string }) => html`<iframe class="preview" title=${title} sandbox="" referrerpolicy="no-referrer" srcdoc=${markup}></iframe>`;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

export function Field(props: { label: string; children: ComponentChildren; hint?: string }) {
  return html`<label class="field"><span>${props.label}</span>${props.children}${props.hint ? html`<small class="muted">${props.hint}</small>` : null}</label>`;
}

export function Page(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${props.title} · Email service console`;
  }, [props.title]);
  return html`<section><header class="page-head"><h1>${props.title}</h1><div class="actions">${props.actions}</div></header>${props.children}</section>`;
}

/** Values of a form's named inputs. */
export function formValues(event: Event): Record<string, string> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const values: Record<string, string> = {};
  for (const [name, value] of new FormData(form)) values[name] = String(value);
  return values;
}
