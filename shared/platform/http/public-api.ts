/**
 * `publicApi(operation, handle)`: a handler for a route without a key (`auth: 'none'`: health,
 * the OpenAPI document, the fallback, the public OAuth routes). It leaves the key lookup, and so
 * the DynamoDB client, out of the bundle (unless the handler's own domain logic needs it).
 */
import type { Operation } from './operation';
import { buildHandler, type ApiRequest, type Reply } from './pipeline';

export { html, ok, type Reply } from './pipeline';

export const publicApi = <O extends Operation & { auth: 'none' }>(
  operation: O,
  handle: (request: ApiRequest<O>) => Promise<Reply>,
) => buildHandler(operation, handle);
