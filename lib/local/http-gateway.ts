/**
 * The local stand-in for API Gateway (HTTP API, payload format 2.0): turns each HTTP request
 * into the event API Gateway would build, picks the route from the same route table the stack
 * deploys (literal segments win over parameters, as in API Gateway), falls back to the
 * `$default` handler, and invokes the same handler module in process.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fallbackRoute, functionName, routes, type Route } from '../../functions/routes';
import { MAX_BODY_BYTES } from '../../shared/http/pipeline';
import { matchPath } from '../../shared/http/paths';
import { loadHandler } from './handlers';
import { lambdaContext } from './lambda-context';

const FUNCTION_TIMEOUT_MS = 10_000;
/** Bodies past this are not buffered further; the handler sees MAX_BODY_BYTES + 1 bytes and answers 413. */
const READ_LIMIT = MAX_BODY_BYTES + 1;

// Literal routes before parameterised ones, like API Gateway's "most specific match wins".
const orderedRoutes: readonly Route[] = [...routes].sort((a, b) => paramCount(a.path) - paramCount(b.path));
function paramCount(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}

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

function toEvent(request: IncomingMessage, body: Buffer, routeKey: string, pathParameters: Record<string, string> | undefined): APIGatewayProxyEventV2 {
  const url = new URL(request.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined && name !== 'cookie') headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
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
      http: { method, path: url.pathname, protocol: `HTTP/${request.httpVersion}`, sourceIp: request.socket.remoteAddress ?? '127.0.0.1', userAgent: headers['user-agent'] ?? '' },
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
  for (const route of orderedRoutes) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { handler: route.handler, name: functionName(route), routeKey: `${route.method} ${route.path}`, params };
  }
  return { handler: fallbackRoute.handler, name: functionName(fallbackRoute), routeKey: '$default', params: undefined };
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const body = await readBody(request);
  const method = request.method ?? 'GET';
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  const target = resolve(method, path);
  const params = target.params && Object.keys(target.params).length ? target.params : undefined;
  const event = toEvent(request, body, target.routeKey, params);
  let result: APIGatewayProxyStructuredResultV2;
  try {
    const handler = await loadHandler(target.handler);
    result = await handler(event, lambdaContext(target.name, FUNCTION_TIMEOUT_MS, event.requestContext.requestId));
  } catch (error) {
    // What API Gateway answers when the integration fails; our handlers never let an error escape.
    console.error(JSON.stringify({ level: 'ERROR', message: 'handler failed', handler: target.handler, error: String(error) }));
    result = { statusCode: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Internal Server Error' }) };
  }
  response.statusCode = result.statusCode ?? 200;
  for (const [name, value] of Object.entries(result.headers ?? {})) response.setHeader(name, String(value));
  if (result.cookies?.length) response.setHeader('set-cookie', result.cookies);
  response.end(result.body ? Buffer.from(result.body, result.isBase64Encoded ? 'base64' : 'utf8') : undefined);
}

export function startHttpGateway(host: string, port: number): Promise<Server> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error) => {
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
