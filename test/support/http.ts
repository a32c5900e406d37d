/**
 * A small HTTP client for the local runtime started by the global setup: real requests over
 * real sockets, with the test key unless a test passes another one (or `null` for none). Every
 * JSON answer is checked against its route's response schema for its status.
 */
import { TEST_API_KEY } from './constants';
import { responseShapeProblem } from './response-shapes';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export const baseUrl = (): string => {
  const url = process.env.TEST_API_URL;
  if (!url)
    throw new Error('TEST_API_URL is not set: run the suites through jest (the global setup starts the runtime)');
  return url;
};

export interface RequestOptions {
  key?: string | null;
  headers?: Record<string, string>;
  /** sent as-is instead of JSON-encoding `body` */
  raw?: string | Buffer;
}

export async function request<T = any>(
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<ApiResponse<T>> {
  const key = options.key === undefined ? TEST_API_KEY : options.key;
  const headers: Record<string, string> = { ...(key ? { authorization: `Bearer ${key}` } : {}) };
  let payload: string | Buffer | undefined = options.raw;
  if (payload === undefined && body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(baseUrl() + path, {
    method,
    headers: { ...headers, ...options.headers },
    body: payload,
  });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  // Every answer fits its route's published response schema (./response-shapes.ts): the OpenAPI document and the code agree.
  const problem = responseShapeProblem(method, path, response.status, parsed, response.headers.get('content-type'));
  if (problem) throw new Error(`The answer disagrees with the OpenAPI document: ${problem}`);
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export const api = {
  get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
  patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  delete: <T = any>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
};
