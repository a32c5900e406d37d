/**
 * `publicApi(operation, handle)`: a handler for a route without a key (`auth: 'none'`: health,
 * the OpenAPI document, the fallback). It leaves the key lookup, and so the DynamoDB client,
 * out of the bundle.
 */
import type { Operation } from './operation';
import { buildHandler, type ApiRequest, type Reply } from './pipeline';

export { ok, type Reply } from './pipeline';

export const publicApi = <O extends Operation & { auth: 'none' }>(operation: O, handle: (request: ApiRequest<O>) => Promise<Reply>) =>
  buildHandler(operation, handle);
