/**
 * The console's only way out: the public API of its own origin, `Authorization: Bearer <key>`.
 * The key (a full-access API key, or an OAuth access token) lives in sessionStorage only: gone
 * when the tab closes, never in localStorage, a cookie or a URL. Sign-out forgets it.
 */
const STORAGE_KEY = 'email-service-console-key';

export const session = {
  token: (): string | null => sessionStorage.getItem(STORAGE_KEY),
  signIn: (token: string) => sessionStorage.setItem(STORAGE_KEY, token),
  signOut: () => sessionStorage.removeItem(STORAGE_KEY),
};

/** An answer that is not 2xx: its status and the error envelope (`{name, message, errors}`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: any,
  ) {
    super(typeof body?.message === 'string' ? body.message : `HTTP ${status}`);
  }
}

export async function call<T = any>(method: string, path: string, body?: unknown, token = session.token()): Promise<T> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { message: text };
  }
  if (!response.ok) throw new ApiFailure(response.status, parsed);
  return parsed as T;
}

export const get = <T = any>(path: string) => call<T>('GET', path);
export const post = <T = any>(path: string, body?: unknown) => call<T>('POST', path, body ?? {});
export const patch = <T = any>(path: string, body: unknown) => call<T>('PATCH', path, body);
export const del = <T = any>(path: string) => call<T>('DELETE', path);

/** A query string from the defined values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** Path segment: every id or address the console puts in a path is encoded. */
export const seg = encodeURIComponent;
