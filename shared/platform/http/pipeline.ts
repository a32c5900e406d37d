/**
 * The request pipeline every API handler is built from (through `api()` in shared/access/api.ts, or
 * `publicApi()` in ./public-api.ts for the few routes without a key, whose bundles then carry no
 * DynamoDB client).
 *
 * middy runs, in order: the HTTP envelope (request id, Api-Version, body size limit, access log,
 * and on any error the error envelope), authentication (bearer key -> Caller), validation
 * (path, query and JSON body against the operation's zod schemas), then the handler, which only
 * parses nothing, calls domain logic and returns `{statusCode, body}`. No handler builds an
 * error body by hand: it throws an ApiError (shared/platform/errors.ts) and the envelope does the rest.
 * Two operation options exist for the OAuth endpoints: `bodyFormats` also reads form bodies,
 * and `errorFormat: 'oauth'` renders errors as RFC 6749 asks instead of the envelope.
 *
 * The request log (`RequestRecorder`, given by `api()`: shared/logs/request-log.ts): once the answer
 * of a request with a valid key is known (the handler's reply or the error's envelope), its entry's
 * write starts, then the answer is shaped and the access log line written, then the pipeline waits
 * for the write together with the work authentication started beside the request (`alongside`).
 * No round trip is added before the answer is decided; on Lambda the function returns only when
 * the write has settled, so the client waits for the overlap's remainder (bench/request-log.ts
 * measures it). A failed write is logged and never changes the answer; a function that dies after
 * deciding its answer loses that request's entry (and its answer).
 */
import middy from '@middy/core';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod/mini';
import type { Caller } from '../caller';
import {
  ApiError,
  badRequest,
  forbidden,
  internalError,
  invalidApiKey,
  OAUTH_ERROR_CODES,
  payloadTooLarge,
  unprocessable,
  type ErrorDetail,
} from '../errors';
import { API_VERSION } from './api-version';
import { logger as rootLogger, type Logger } from '../log';
import { now } from '../clock';
import { MULTIPART_TYPE, parseMultipart } from './multipart';
import { requiredScope, scopeRefusal, type BodyFormat, type Operation } from './operation';

/** Request bodies above this are refused with 413 (DESIGN.md limits). */
export const MAX_BODY_BYTES = 5 * 1024 * 1024;

type Parsed<O, K extends string> = O extends { [P in K]: infer S extends z.ZodMiniType } ? z.output<S> : undefined;

export interface ApiRequest<O extends Operation> {
  params: Parsed<O, 'params'>;
  query: Parsed<O, 'query'>;
  body: Parsed<O, 'body'>;
  /** undefined only on operations with `auth: 'none'` */
  caller: O extends { auth: 'api_key' } ? Caller : Caller | undefined;
  requestId: string;
  method: string;
  /** the raw request path, as the client sent it */
  path: string;
  headers: Record<string, string | undefined>;
  logger: Logger;
  /** epoch ms when the function's timeout ends (Lambda's deadline): work that can be left to a worker stops well before it */
  deadline: number;
  /**
   * Only with the operation's `itemsValidation` asked for: the body's items that failed their schema
   * (by index in the request), and the request index of each item `body` kept.
   */
  rejected?: { index: number; message: string }[];
  indices?: number[];
}

export interface Reply {
  statusCode: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** the body is sent as it is (a string), not as JSON; `headers` give its content-type */
  raw?: boolean;
}

export const ok = (body: unknown): Reply => ({ statusCode: 200, body });
/** 200 with one page of a list: `{object: "list", data, has_more}`, the shape every list route answers. */
export const listOk = (data: readonly unknown[], hasMore: boolean): Reply =>
  ok({ object: 'list', data, has_more: hasMore });
export const created = (body: unknown): Reply => ({ statusCode: 201, body });
export const accepted = (body: unknown): Reply => ({ statusCode: 202, body });
/** An HTML page (the unsubscribe routes, which people open in a browser). */
export const html = (markup: string): Reply => ({
  statusCode: 200,
  body: markup,
  raw: true,
  headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
});

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** Per-request state the middlewares share; lives on the middy request. */
interface State {
  requestId: string;
  /** when the request was received, on the service's clock (the request log's created_at) */
  startedAt: number;
  /** machine time: Date.now() when the request was received, for its duration */
  startedMs: number;
  logger: Logger;
  caller?: Caller;
  /** headers every response to this request carries from authentication on (the rate limit's) */
  headers?: Record<string, string>;
  /** work authentication started beside the request (a key's `last_used_at`): awaited after the handler */
  alongside?: Promise<unknown>;
  /** the valid key's caller, known even when the request is then refused (429, 403): whose log the request goes to */
  identified?: Caller;
  params?: unknown;
  query?: unknown;
  body?: unknown;
  rejected?: { index: number; message: string }[];
  indices?: number[];
}
type HttpRequest = Request<Event, Result, Error, Context>;

/** Keyed by the event object, so the handler (which middy gives only event and context) can reach it. */
const states = /* @__PURE__ */ (() => new WeakMap<Event, State>())();
const stateOf = (event: Event): State => {
  const state = states.get(event);
  if (!state) throw new Error('request state missing: httpEnvelope must run first');
  return state;
};

function header(event: Event, name: string): string | undefined {
  return event.headers?.[name] ?? Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
}

function rawBody(event: Event): Buffer | undefined {
  if (event.body === undefined || event.body === null) return undefined;
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

function toResult(reply: Reply, state: State): Result {
  return {
    statusCode: reply.statusCode,
    headers: {
      ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }),
      'api-version': API_VERSION,
      'x-request-id': state.requestId,
      ...state.headers,
      ...reply.headers,
    },
    body: reply.body === undefined ? '' : reply.raw ? String(reply.body) : JSON.stringify(reply.body),
  };
}

/**
 * An error in the form of RFC 6749 §5.2, for operations with `errorFormat: 'oauth'`: the code the
 * domain chose (`oauthError`), else `unsupported_grant_type` for a grant_type outside the schema's
 * enum, else `invalid_request` for anything the request got wrong (JSON, content type, schema,
 * size); `server_error` for the rest. Never cached (RFC 6749 §5.1).
 */
function oauthErrorReply(error: ApiError): Reply {
  const headers = { ...error.headers, 'cache-control': 'no-store', pragma: 'no-cache' };
  if (error.statusCode >= 500)
    return { statusCode: error.statusCode, body: { error: 'server_error', error_description: error.message }, headers };
  const details: ErrorDetail[] = Array.isArray(error.errors) ? error.errors : [];
  const chosen = details.find((d) => (OAUTH_ERROR_CODES as readonly string[]).includes(d.code))?.code;
  const grantType = details.some((d) => d.path === 'grant_type' && d.code === 'invalid_value')
    ? 'unsupported_grant_type'
    : undefined;
  const code = chosen ?? grantType ?? 'invalid_request';
  return {
    statusCode: code === 'invalid_client' ? 401 : 400,
    body: { error: code, error_description: error.message },
    headers,
  };
}

/**
 * An answered request of a valid key, as the request log takes it. Only these fields: the pipeline
 * never hands the recorder a header (but the user agent), the key, the query string or a body
 * other than an error's.
 */
export interface AnsweredRequest {
  caller: Caller;
  requestId: string;
  method: string;
  /** the raw path, without the query string */
  path: string;
  userAgent: string | undefined;
  status: number;
  /** epoch ms when the pipeline received the request */
  startedAt: number;
  durationMs: number;
  /** the error body as sent (the envelope, or RFC 6749's for OAuth operations); undefined for a success */
  error: Record<string, unknown> | undefined;
}
/** Writes an answered request's log entry; its promise may reject (the pipeline logs that and answers anyway). */
export type RequestRecorder = (request: AnsweredRequest) => Promise<unknown>;

/** The entry's write, started as soon as the answer is known (undefined: no valid key, so no project to file it under). */
function startRecording(
  record: RequestRecorder | undefined,
  event: Event,
  state: State,
  reply: Reply,
): Promise<unknown> | undefined {
  if (!record || !state.identified) return undefined;
  const failed = reply.statusCode >= 400 && typeof reply.body === 'object' && reply.body !== null;
  try {
    return record({
      caller: state.identified,
      requestId: state.requestId,
      method: event.requestContext?.http?.method ?? '',
      path: event.rawPath,
      userAgent: header(event, 'user-agent'),
      status: reply.statusCode,
      startedAt: state.startedAt,
      durationMs: Date.now() - state.startedMs,
      error: failed ? (reply.body as Record<string, unknown>) : undefined,
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Request id, version negotiation, size limit, the access log line, the error envelope and the request log's write. */
function httpEnvelope(operation: Operation, record?: RequestRecorder): MiddlewareObj<Event, Result, Error, Context> {
  return {
    before: (request) => {
      const event = request.event;
      const requestId = event.requestContext?.requestId ?? request.context.awsRequestId;
      states.set(event, {
        requestId,
        startedAt: now(),
        startedMs: Date.now(),
        logger: rootLogger.child({ request_id: requestId }),
      });
      const version = header(event, 'api-version');
      if (version !== undefined && version !== API_VERSION) {
        throw badRequest(
          'unsupported_api_version',
          `Unsupported Api-Version "${version}"; the only version is ${API_VERSION}`,
          'Api-Version',
        );
      }
      const size = event.body ? Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : 0;
      if (size > MAX_BODY_BYTES) throw payloadTooLarge(MAX_BODY_BYTES);
    },
    after: async (request) => {
      const reply = request.response as unknown as Reply;
      const state = stateOf(request.event);
      const recording = startRecording(record, request.event, state, reply);
      request.response = toResult(reply, state);
      accessLog(request, reply.statusCode);
      await settleAlongside(state, recording);
    },
    onError: async (request) => {
      let state = states.get(request.event);
      if (!state) {
        state = {
          requestId: request.context.awsRequestId,
          startedAt: now(),
          startedMs: Date.now(),
          logger: rootLogger,
        };
        states.set(request.event, state);
      }
      let error = request.error;
      if (!(error instanceof ApiError)) {
        state.logger.error('unhandled error', { error });
        error = internalError(state.requestId);
      }
      const apiError = error as ApiError;
      const reply: Reply =
        operation.errorFormat === 'oauth'
          ? oauthErrorReply(apiError)
          : { statusCode: apiError.statusCode, body: apiError.toBody(), headers: apiError.headers };
      const recording = startRecording(record, request.event, state, reply);
      request.response = toResult(reply, state);
      accessLog(request, reply.statusCode);
      await settleAlongside(state, recording);
    },
  };
}

/**
 * Work started beside the request (a key's `last_used_at`, the request log's entry) ends before
 * Lambda may freeze the process: both at once, so the slower of them is all the answer waits for.
 * Their failure is logged, never the answer's.
 */
async function settleAlongside(state: State, recording?: Promise<unknown>): Promise<void> {
  await Promise.all([
    state.alongside?.catch((error: unknown) => state.logger.warn('work beside the request failed', { error })),
    recording?.catch((error: unknown) =>
      state.logger.warn('request log write failed: this request has no log entry', { error }),
    ),
  ]);
}

function accessLog(request: HttpRequest, status: number): void {
  const { event } = request;
  const state = stateOf(event);
  state.logger.info('request', {
    method: event.requestContext?.http?.method,
    path: event.rawPath,
    route: event.routeKey,
    status,
    duration_ms: Date.now() - state.startedMs,
    project_id: state.caller?.projectId,
  });
}

/**
 * A bearer token resolved: its caller (undefined for a malformed, unknown or revoked token), the
 * headers every response to the request carries, and a refusal that stops the request before
 * anything else (the rate limit's 429).
 */
export interface Authentication {
  caller: Caller | undefined;
  headers?: Record<string, string>;
  refusal?: ApiError;
  /** a write that need not delay the request (a key's `last_used_at`): the pipeline waits for it only once the answer is made */
  alongside?: Promise<unknown>;
}
export type Authenticator = (token: string) => Promise<Authentication>;

/**
 * Bearer key -> Caller. A missing, malformed, unknown or revoked key gets the historical 401; a
 * key or token the operation's `scope` does not admit gets 403 `insufficient_scope`, before any
 * validation, so nothing about the request's values is revealed to it.
 */
function authentication(
  operation: Operation,
  authenticate: Authenticator | undefined,
): MiddlewareObj<Event, Result, Error, Context> {
  return {
    before: async (request) => {
      if (operation.auth === 'none') return;
      if (!authenticate) throw new Error(`${operation.operationId} needs a key: build it with api(), not publicApi()`);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header(request.event, 'authorization') ?? '');
      const {
        caller,
        headers,
        refusal: limited,
        alongside,
      } = match ? await authenticate(match[1]) : { caller: undefined };
      const state = stateOf(request.event);
      state.alongside = alongside;
      if (!caller) throw invalidApiKey();
      state.identified = caller; // a valid key: from here on, even a refusal is in its project's request log
      state.headers = headers;
      if (limited) throw limited;
      const refusal = scopeRefusal(caller, requiredScope(operation));
      if (refusal) throw forbidden('insufficient_scope', refusal);
      state.caller = caller;
      state.logger = state.logger.child({ project_id: caller.projectId });
    },
  };
}

function issues(error: z.core.$ZodError, prefix: string[] = []): ErrorDetail[] {
  return error.issues.flatMap((issue): ErrorDetail[] => {
    const path = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        code: issue.code,
        message: `Unrecognized key "${key}"`,
        path: [...path, key].join('.'),
      }));
    }
    return [{ code: issue.code, message: issue.message, path: path.join('.') }];
  });
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;
const BODY_TYPES: Record<BodyFormat, string> = {
  json: 'application/json',
  form: 'application/x-www-form-urlencoded',
  multipart: 'multipart/form-data',
};

/** A form body as an object; a name given twice becomes an array, which no string schema accepts. */
function parseForm(raw: Buffer): Record<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
    const seen = fields.get(name);
    fields.set(name, seen === undefined ? value : [seen, value].flat());
  }
  return Object.fromEntries(fields); // own data properties only: a field named __proto__ stays a field
}

function parseBody(event: Event, formats: readonly BodyFormat[]): unknown {
  const raw = rawBody(event);
  if (!raw || raw.length === 0) return {}; // an absent body validates as {}, so missing fields are named
  const contentType = header(event, 'content-type') ?? '';
  if (formats.includes('form') && FORM_TYPE.test(contentType)) return parseForm(raw);
  if (formats.includes('multipart') && MULTIPART_TYPE.test(contentType)) return parseMultipart(raw, contentType);
  if (!formats.includes('json') || !JSON_TYPE.test(contentType)) {
    const expected = formats.map((f) => BODY_TYPES[f]).join(' or ');
    throw badRequest(
      'unsupported_content_type',
      `Content-Type must be ${expected}, got "${contentType || 'none'}"`,
      'Content-Type',
    );
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw badRequest('invalid_json', `Body is not valid JSON: ${(error as Error).message}`);
  }
}

/** Path, query and body against the operation's schemas; every failing value is named in `errors[].path`. */
function validation(operation: Operation): MiddlewareObj<Event, Result, Error, Context> {
  return {
    before: (request) => {
      const state = stateOf(request.event);
      const found: ErrorDetail[] = [];
      const parts = [
        ['params', operation.params, request.event.pathParameters ?? {}],
        ['query', operation.query, request.event.queryStringParameters ?? {}],
        [
          'body',
          operation.body,
          operation.body ? parseBody(request.event, operation.bodyFormats ?? ['json']) : undefined,
        ],
      ] as const;
      for (const [part, schema, input] of parts) {
        if (!schema) continue;
        if (part === 'body' && permissiveItems(operation, request.event, input, state, found)) continue;
        const result = schema.safeParse(input);
        if (result.success) state[part] = result.data;
        else found.push(...issues(result.error));
      }
      if (found.length > 0) throw unprocessable(found);
    },
  };
}

/**
 * The operation's `itemsValidation`, when the request asks for it: each item of the array body
 * against the item schema, the valid ones kept (with their request indices), the others rejected
 * with their problems; the array itself (its length) still against the body's schema. Answers
 * whether it took the body; an unknown mode of the header is a 422 on the header.
 */
function permissiveItems(
  operation: Operation,
  event: Event,
  input: unknown,
  state: State,
  found: ErrorDetail[],
): boolean {
  const mode = operation.itemsValidation && header(event, operation.itemsValidation.header);
  if (!operation.itemsValidation || mode === undefined || mode === operation.itemsValidation.strict) return false;
  const { header: name, permissive, item } = operation.itemsValidation;
  if (mode !== permissive) {
    found.push({
      code: 'invalid_value',
      message: `${name} must be ${operation.itemsValidation.strict} or ${permissive}`,
      path: name,
    });
    return true;
  }
  if (!Array.isArray(input)) return false; // the body's schema says what is wrong with it
  const length = operation.body!.safeParse(input.map(() => undefined));
  const lengthProblems = length.success ? [] : issues(length.error).filter((i) => i.path === '');
  if (lengthProblems.length) {
    found.push(...lengthProblems);
    return true;
  }
  const kept: unknown[] = [];
  state.indices = [];
  state.rejected = [];
  for (const [index, value] of input.entries()) {
    const result = item.safeParse(value);
    if (result.success) {
      kept.push(result.data);
      state.indices.push(index);
    } else
      state.rejected.push({
        index,
        message: issues(result.error)
          .map((i) => (i.path ? `${i.path}: ${i.message}` : i.message))
          .join('; '),
      });
  }
  state.body = kept;
  return true;
}

export function buildHandler<O extends Operation>(
  operation: O,
  handle: (request: ApiRequest<O>) => Promise<Reply>,
  authenticate?: Authenticator,
  record?: RequestRecorder,
) {
  return middy<Event, Result, Error, Context>()
    .use(httpEnvelope(operation, record))
    .use(authentication(operation, authenticate))
    .use(validation(operation))
    .handler(async (event, context) => {
      const state = stateOf(event);
      const reply = await handle({
        params: state.params,
        query: state.query,
        body: state.body,
        caller: state.caller,
        requestId: state.requestId,
        method: event.requestContext.http.method,
        path: event.rawPath,
        headers: event.headers ?? {},
        logger: state.logger,
        deadline: Date.now() + context.getRemainingTimeInMillis(), // machine time: Lambda's timeout
        rejected: state.rejected,
        indices: state.indices,
      } as ApiRequest<O>);
      return reply as unknown as Result; // httpEnvelope's `after` turns the Reply into the HTTP result
    });
}
