/**
 * `api(operation, handle)`: a handler for an authenticated route (the pipeline of shared/platform/http/pipeline.ts
 * with the bearer-key lookup of shared/access/api-keys.ts, counted against the project's rate limit: ./rate-limit.ts),
 * each answered request written to the project's request log (shared/logs/request-log.ts).
 */
import { recordRequest } from '../logs/request-log';
import { authenticateCounted } from './rate-limit';
import type { Operation } from '../platform/http/operation';
import { buildHandler, type ApiRequest, type Reply } from '../platform/http/pipeline';

export { accepted, created, listOk, MAX_BODY_BYTES, ok, type ApiRequest, type Reply } from '../platform/http/pipeline';

export const api = <O extends Operation & { auth: 'api_key' }>(
  operation: O,
  handle: (request: ApiRequest<O>) => Promise<Reply>,
) => buildHandler(operation, handle, authenticateCounted, recordRequest);
