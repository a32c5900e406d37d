/** History routing under /dashboard/: the server answers index.html for every page path (functions/dashboard/serve.ts). */
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  const url = to.startsWith('/') ? `${BASE}${to}` : to;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  for (const listener of listeners) listener();
}

/** The current page path without /dashboard (`/emails/123`), and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = () => setTick((n) => n + 1);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path: path === '' ? '/' : path, query: new URLSearchParams(location.search) };
}

/** A click on an in-app link: history navigation instead of a page load (modified clicks keep the browser's default). */
export function linkClick(event: MouseEvent): void {
  const anchor = (event.currentTarget as HTMLAnchorElement | null) ?? null;
  if (
    !anchor ||
    event.defaultPrevented ||
    event.button !== 0 ||
    event.metaKey ||
    event.ctrlKey ||
    event.shiftKey ||
    event.altKey
  )
    return;
  const href = anchor.getAttribute('href') ?? '';
  if (!href.startsWith(`${BASE}/`) && href !== BASE) return;
  event.preventDefault();
  navigate(href.slice(BASE.length) || '/');
}
