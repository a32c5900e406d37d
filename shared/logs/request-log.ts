/**
 * The API request log (Resend's `logs`): one entry per request of a valid key, kept 30 days.
 *
 * Protocol, in the order of the code:
 * 1. Which requests: every request whose bearer key or token is valid, whatever the answer (2xx,
 *    a 4xx after authentication: 404, 409, 422, and the 403 `insufficient_scope` and 429 of a valid
 *    key), and 5xx. Not a request without a valid key (401): there is no project to file it under,
 *    and writing for unknown keys would let anyone make the table write. Not the routes without a
 *    key (health, OpenAPI, OAuth token, unsubscribe).
 * 2. What an entry holds: method, path (without the query string, which may carry addresses or
 *    OAuth state), status, duration, user agent (at most USER_AGENT_MAX characters), request id,
 *    the key's id, livemode, and for an error its body as sent (the envelope; bounded to
 *    ERROR_MAX_BYTES). Never the key, the Authorization header, a token, any other header, the
 *    request body or a success body (they carry new keys, signing secrets, mail content).
 * 3. When: the pipeline (shared/platform/http/pipeline.ts) starts the write as soon as the answer is
 *    known, shapes and logs the answer meanwhile, and waits for it with the key's `last_used_at`
 *    write. One PutItem, no read: nothing is added before the answer is decided.
 * 4. What can be lost: a write that fails (throttling, a network error) is logged as a warning and
 *    the request answers as it would have, without its entry. A function that dies (timeout, out of
 *    memory, a crash) after its answer was decided loses that one request's entry; a request cut
 *    off by the function's timeout has no answer and so no entry. The log is a record for the
 *    project's developers, not an audit trail.
 * 5. Where: the project's entries are spread over COLLECTION_SHARDS partitions by the entry id
 *    (keys.requestLog), since every request of a project writes one; lists merge the shards by id,
 *    a UUIDv7 of the request's start, so newest first is by start time. DynamoDB's TTL removes
 *    entries after RETENTION_DAYS (within a day or two of that; reads do not filter expired ones).
 *
 * `API_REQUEST_LOG=off` turns the write off (the benchmark's run without it, bench/request-log.ts).
 * On AWS, a CloudWatch Logs subscription on the access log line would be another way to get the
 * same record without a write in the request; it was not taken, as it needs a second pipeline to
 * make entries readable by key and by project.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, put, putItem, queryPage, type Item, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import type { AnsweredRequest } from '../platform/http/pipeline';
import { newId } from '../platform/ids';
import type { Log, LogSummary } from './model';

/** How long an entry is kept (Resend keeps its logs for the plan's retention; 30 days here). */
export const RETENTION_DAYS = 30;
const USER_AGENT_MAX = 512;
/** An error's body beyond this keeps its name, message and the first `errors` that fit: an entry stays one or two write units. */
const ERROR_MAX_BYTES = 2048;

const logging = () => process.env.API_REQUEST_LOG !== 'off';

/** The error body within ERROR_MAX_BYTES (a 422 of a batch can name hundreds of problems). */
function boundedError(error: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(error)) <= ERROR_MAX_BYTES) return error;
  const { errors, ...rest } = error;
  const kept: unknown[] = [];
  if (Array.isArray(errors)) {
    for (const detail of errors) {
      if (Buffer.byteLength(JSON.stringify({ ...rest, errors: [...kept, detail] })) > ERROR_MAX_BYTES) break;
      kept.push(detail);
    }
  }
  const message = typeof rest.message === 'string' ? rest.message.slice(0, ERROR_MAX_BYTES / 2) : rest.message;
  return {
    ...rest,
    message,
    ...(Array.isArray(errors) ? { errors: kept, errors_left_out: errors.length - kept.length } : {}),
  };
}

/** The entry of an answered request (step 2). */
export function logItem(request: AnsweredRequest): Item {
  const id = newId(request.startedAt);
  const { projectId, livemode, apiKeyId } = request.caller;
  return {
    ...keys.requestLog(projectId, id),
    type: 'request_log',
    project_id: projectId,
    id,
    created_at: new Date(request.startedAt).toISOString(),
    method: request.method,
    endpoint: request.path,
    response_status: request.status,
    duration_ms: request.durationMs,
    user_agent: request.userAgent ? request.userAgent.slice(0, USER_AGENT_MAX) : null,
    request_id: request.requestId,
    livemode,
    api_key_id: apiKeyId ?? null,
    error: request.error ? boundedError(request.error) : null,
    expires_at: Math.floor(request.startedAt / 1000) + RETENTION_DAYS * 86_400,
  };
}

/** The pipeline's RequestRecorder (step 3): one unconditional PutItem. */
export async function recordRequest(request: AnsweredRequest): Promise<void> {
  if (!logging()) return;
  await putItem(put(logItem(request)));
}

const toSummary = (item: Item): LogSummary => ({
  id: item.id,
  created_at: item.created_at,
  endpoint: item.endpoint,
  method: item.method,
  response_status: item.response_status,
  user_agent: item.user_agent ?? null,
});

const toLog = (item: Item): Log => ({
  object: 'log',
  ...toSummary(item),
  request_body: null,
  response_body: item.error ?? null,
  request_id: item.request_id,
  duration_ms: item.duration_ms,
  error: item.error ?? null,
  livemode: item.livemode,
  api_key_id: item.api_key_id ?? null,
});

/** A page of the project's entries, newest first (step 5). */
export async function listLogs(
  caller: Caller,
  page: PageRequest,
): Promise<{ records: LogSummary[]; hasMore: boolean }> {
  const { items, hasMore } = await queryPage(keys.requestLogs(caller.projectId), page);
  return { records: items.map(toSummary), hasMore };
}

/** One entry of the caller's project; another project's is not found (its key is under that project). */
export async function getLog(caller: Caller, logId: string): Promise<Log> {
  const item = await getItem(keys.requestLog(caller.projectId, logId));
  if (!item) throw notFound('Log', 'log_id');
  return toLog(item);
}
