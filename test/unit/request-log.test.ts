/**
 * The request log's place in the pipeline (shared/platform/http/pipeline.ts) and its entry
 * (shared/logs/request-log.ts), without a table: which answers are handed to the recorder (a valid
 * key's, whatever the status; not a 401), that a failing write never changes the answer and the
 * answer never waits for the write to start, and what an entry keeps. The HTTP suite
 * (test/api/logs.test.ts) reads real entries back.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { ApiError } from '../../shared/platform/errors';
import { defineOperation } from '../../shared/platform/http/operation';
import { buildHandler, ok, type AnsweredRequest, type Authentication } from '../../shared/platform/http/pipeline';
import { logItem } from '../../shared/logs/request-log';

const KEY = `es_live_${'K'.repeat(32)}`;
const caller = { projectId: 'p1', livemode: true, permission: 'full_access' as const, apiKeyId: 'k1' };
const operation = defineOperation({
  operationId: 'probe',
  summary: 'probe',
  tags: ['Test'],
  auth: 'api_key',
  responses: {},
});

function event(path: string, key = KEY): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: 'limit=2&secret=no',
    headers: { authorization: `Bearer ${key}`, 'user-agent': 'probe/1', 'x-api-key': 'not logged' },
    isBase64Encoded: false,
    requestContext: {
      requestId: `req-${path}`,
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'probe/1' },
    },
  } as unknown as APIGatewayProxyEventV2;
}
const context = { awsRequestId: 'aws-req', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

const authenticate = async (token: string): Promise<Authentication> =>
  token === KEY
    ? { caller, refusal: undefined }
    : token === 'limited'
      ? { caller, refusal: new ApiError(429, 'application_error', 'slow down') }
      : { caller: undefined };

function probe(
  record: (r: AnsweredRequest) => Promise<unknown>,
  answer: () => Promise<unknown> = async () => ok({ fine: true }),
) {
  return buildHandler(operation, answer as never, authenticate, record);
}

describe('the request log in the pipeline', () => {
  it("hands a valid key's answers to the recorder, 2xx and 4xx alike, with nothing but the fields of an entry", async () => {
    const seen: AnsweredRequest[] = [];
    const record = async (r: AnsweredRequest) => void seen.push(r);
    expect((await probe(record)(event('/ok'), context)).statusCode).toBe(200);
    expect(
      (
        await probe(record, async () => Promise.reject(new ApiError(404, 'not_found', 'Thing not found')))(
          event('/missing'),
          context,
        )
      ).statusCode,
    ).toBe(404);
    expect((await probe(record)(event('/limited', 'limited'), context)).statusCode).toBe(429);
    expect(seen.map((r) => [r.path, r.status, r.error?.name])).toEqual([
      ['/ok', 200, undefined],
      ['/missing', 404, 'not_found'],
      ['/limited', 429, 'application_error'],
    ]);
    expect(seen[0]).toMatchObject({ caller, requestId: 'req-/ok', method: 'GET', userAgent: 'probe/1' });
    for (const r of seen) expect(JSON.stringify(r)).not.toMatch(/K{32}|Bearer|secret=|not logged/);
  });

  it('records nothing for a request without a valid key (401: no project to file it under)', async () => {
    const record = jest.fn(async () => undefined);
    expect((await probe(record)(event('/ok', `es_live_${'U'.repeat(32)}`), context)).statusCode).toBe(401);
    expect(record).not.toHaveBeenCalled();
  });

  it('answers as it would have when the write fails or throws, and starts the write before it waits for it', async () => {
    const rejecting = async () => Promise.reject(new Error('ProvisionedThroughputExceededException'));
    expect(await probe(rejecting)(event('/ok'), context)).toMatchObject({
      statusCode: 200,
      body: JSON.stringify({ fine: true }),
    });
    const throwing = () => {
      throw new Error('synchronous');
    };
    expect((await probe(throwing)(event('/ok'), context)).statusCode).toBe(200);

    let started = 0;
    let settled = false;
    const slow = async () => {
      started = Date.now();
      await new Promise((r) => setTimeout(r, 50));
      settled = true;
    };
    await probe(slow)(event('/ok'), context);
    expect(started).toBeGreaterThan(0);
    expect(settled).toBe(true); // on Lambda the handler's promise is the function's life: the write ends inside it
  });
});

describe('a log entry', () => {
  const answered: AnsweredRequest = {
    caller,
    requestId: 'r1',
    method: 'POST',
    path: '/emails/batch',
    userAgent: 'u'.repeat(2000),
    status: 422,
    startedAt: Date.parse('2026-11-25T10:00:00.000Z'),
    durationMs: 12,
    error: {
      name: 'validation_error',
      message: 'Invalid',
      statusCode: 422,
      errors: Array.from({ length: 500 }, (_, i) => ({
        code: 'invalid_string',
        message: 'must be an email address',
        path: `${i}.to`,
      })),
    },
  };

  it('is keyed in the project, expires after 30 days, and stays small whatever the error and user agent', () => {
    const item = logItem(answered);
    expect(item.PK).toMatch(/^PROJECT#p1#LOGS#\d+$/);
    expect(item.SK).toBe(`LOG#${item.id}`);
    expect(item).toMatchObject({
      type: 'request_log',
      project_id: 'p1',
      created_at: '2026-11-25T10:00:00.000Z',
      response_status: 422,
      duration_ms: 12,
      api_key_id: 'k1',
      livemode: true,
    });
    expect(item.expires_at).toBe(Date.parse('2026-12-25T10:00:00.000Z') / 1000);
    expect(item.user_agent).toHaveLength(512);
    expect(Buffer.byteLength(JSON.stringify(item.error))).toBeLessThanOrEqual(2048);
    expect(item.error.errors.length + item.error.errors_left_out).toBe(500);
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(3 * 1024);
  });
});
