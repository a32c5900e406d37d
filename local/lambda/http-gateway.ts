/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): turns each HTTP request
 * into the event API Gateway would build, picks the route from the same route table the stack
 * deploys (literal segments win over parameters, as in API Gateway), falls back to the
 * `$default` handler, and invokes the same handler module in process as the route's function
 * (its needs and timeout: local/lambda/invocation.ts).
 *
 * What AWS answers instead of the function, answered the same here:
 * - a body over HTTP API's 10 MB: 413 `{"message":"Request Too Large"}`;
 * - an event over Lambda's 6 MB synchronous limit (a body of about 6 MB, or 4.5 MB of binary,
 *   which API Gateway base64-encodes): Lambda refuses the invocation and API Gateway answers
 *   413 `{"message":"Request Entity Too Large"}`;
 * - a function that fails, times out (ROUTE_TIMEOUT_SECONDS) or returns over 6 MB: 500
 *   `{"message":"Internal Server Error"}`;
 * - no answer within HTTP API's 30 s integration timeout: 503 `{"message":"Service Unavailable"}`
 *   (the function goes on until its own timeout).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fallbackRoute, matchRoute } from '../../functions/routes';
import { loadHandler, type AnyHandler } from './handlers';
import {
  invoke,
  MAX_SYNC_REQUEST_BYTES,
  MAX_SYNC_RESPONSE_BYTES,
  payloadBytes,
  routeFunction,
  type FunctionIdentity,
} from './invocation';
import { nowDate } from '../../shared/platform/clock';

/** HTTP API's largest request body; past it the body is not buffered further. */
const MAX_HTTP_API_BODY_BYTES = 10 * 1024 * 1024;
const READ_LIMIT = MAX_HTTP_API_BODY_BYTES + 1;
/** HTTP API waits at most this long for an integration's answer. */
export const INTEGRATION_TIMEOUT_MS = 30_000;

/** What API Gateway answers itself, as HTTP API does: a JSON message and no request id of ours. */
const gatewayAnswer = (statusCode: number, message: string): APIGatewayProxyStructuredResultV2 => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message }),
});

const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]+\+json|x-www-form-urlencoded|xml|javascript))/i;

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    if (size < READ_LIMIT) chunks.push(buffer.subarray(0, READ_LIMIT - size));
    size += buffer.length;
  }
  return Buffer.concat(chunks);
}

function toEvent(
  request: IncomingMessage,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = nowDate();
  const isText = TEXT_TYPES.test(headers['content-type'] ?? '');
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: request.headers.cookie?.split(';').map((c) => c.trim()),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length ? body.toString(isText ? 'utf8' : 'base64') : undefined,
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function resolve(method: string, path: string) {
  const matched = matchRoute(method, path);
  if (!matched)
    return {
      handler: fallbackRoute.handler,
      fn: routeFunction(fallbackRoute),
      routeKey: '$default',
      params: undefined,
    };
  const { route, params } = matched;
  return { handler: route.handler, fn: routeFunction(route), routeKey: `${route.method} ${route.path}`, params };
}

/**
 * The function's answer to `event`, or what API Gateway answers in its place (the module comment
 * lists when). `integrationTimeoutMs` is HTTP API's, fixed on AWS; tests shorten it.
 */
export async function integrate(
  fn: FunctionIdentity,
  handler: AnyHandler,
  event: APIGatewayProxyEventV2,
  integrationTimeoutMs = INTEGRATION_TIMEOUT_MS,
): Promise<APIGatewayProxyStructuredResultV2> {
  const target = { fn };
  const requestBytes = payloadBytes(event);
  if (requestBytes > MAX_SYNC_REQUEST_BYTES) {
    logFailure(
      target,
      `RequestEntityTooLargeException: the event is ${requestBytes} bytes, Lambda takes at most ${MAX_SYNC_REQUEST_BYTES}`,
    );
    return gatewayAnswer(413, 'Request Entity Too Large');
  }
  let gaveUp: NodeJS.Timeout | undefined;
  const integrationTimeout = new Promise<'timeout'>(
    (resolveTimeout) => (gaveUp = setTimeout(() => resolveTimeout('timeout'), integrationTimeoutMs)),
  );
  try {
    const outcome = await Promise.race([
      invoke(fn, handler, event, event.requestContext.requestId),
      integrationTimeout,
    ]);
    if (outcome === 'timeout') {
      logFailure(target, `no answer within API Gateway's ${integrationTimeoutMs / 1000} s integration timeout`);
      return gatewayAnswer(503, 'Service Unavailable');
    }
    const result = outcome as APIGatewayProxyStructuredResultV2;
    const responseBytes = payloadBytes(result);
    if (responseBytes > MAX_SYNC_RESPONSE_BYTES) {
      logFailure(
        target,
        `Function.ResponseSizeTooLarge: the result is ${responseBytes} bytes, Lambda returns at most ${MAX_SYNC_RESPONSE_BYTES}`,
      );
      return gatewayAnswer(500, 'Internal Server Error');
    }
    return result;
  } catch (error) {
    // What API Gateway answers when the invocation fails (an error that escaped, a timeout).
    logFailure(target, String(error));
    return gatewayAnswer(500, 'Internal Server Error');
  } finally {
    clearTimeout(gaveUp);
  }
}

function logFailure(target: { fn: FunctionIdentity }, error: string): void {
  console.error(JSON.stringify({ level: 'ERROR', message: 'integration failed', function: target.fn.name, error }));
}

/** The local runtime's own control API under `/_local/` (../control.ts): never a route of the stack. */
export type LocalControl = (
  method: string,
  path: string,
  authorization: string | undefined,
  body: Buffer,
) => Promise<{ statusCode: number; body: unknown }>;

async function handle(request: IncomingMessage, response: ServerResponse, control?: LocalControl): Promise<void> {
  const body = await readBody(request);
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  if (control && path.startsWith('/_local/')) {
    const answer = await control(method, path, request.headers.authorization, body);
    response.statusCode = answer.statusCode;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(answer.body));
    return;
  }
  const target = resolve(method, path);
  const params = target.params && Object.keys(target.params).length ? target.params : undefined;
  const result =
    body.length > MAX_HTTP_API_BODY_BYTES
      ? gatewayAnswer(413, 'Request Too Large')
      : await loadHandler(target.handler).then(
          (handler) => integrate(target.fn, handler, toEvent(request, body, target.routeKey, params)),
          (error) => (
            logFailure(target, `the module failed to load (Runtime.ImportModuleError): ${String(error)}`),
            gatewayAnswer(500, 'Internal Server Error')
          ),
        );
  response.statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  response.end(result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined);
}

export function startHttpGateway(host: string, port: number, control?: LocalControl): Promise<Server> {
  const server = createServer((request, response) => {
    handle(request, response, control).catch((error) => {
      console.error(JSON.stringify({ level: 'ERROR', message: 'gateway failure', error: String(error) }));
      if (!response.headersSent) response.statusCode = 500;
      response.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolvePromise(server));
  });
}
