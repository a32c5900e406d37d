/**
 * An operation's contract: what it reads (path, query, body schemas), who may call it, and what
 * it answers. The same object validates requests in the handler (shared/access/api.ts) and
 * documents them in the OpenAPI document (shared/platform/http/openapi.ts), so the two cannot drift.
 * Operations import nothing heavier than zod/mini, so the route table can hold them.
 */
import type * as z from 'zod/mini';
import { insufficientScopeResponse, payloadTooLargeResponse } from './schemas';

type Schema = z.ZodMiniType;

export type BodyFormat = 'json' | 'form';

export interface ResponseSpec {
  description: string;
  /** omitted for responses without a body */
  schema?: Schema;
  /** default `application/json`; `text/html` for the pages of the unsubscribe routes */
  contentType?: string;
}

export interface Operation<P extends Schema | undefined = Schema | undefined, Q extends Schema | undefined = Schema | undefined, B extends Schema | undefined = Schema | undefined> {
  operationId: string;
  summary: string;
  /** decisions the contract leaves open go here: they become the OpenAPI description */
  description?: string;
  tags: string[];
  /** 'none' only for /health, the OpenAPI document, the public OAuth routes (token, revoke, metadata) and unsubscribe links */
  auth: 'api_key' | 'none';
  /** OAuth `sending_access` tokens and API keys with that permission may call only these */
  allowSendingAccess?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * How the body may be encoded; default `['json']`. `form` (application/x-www-form-urlencoded)
   * is for the OAuth endpoints, whose clients send forms (RFC 6749 §4.1.3, RFC 7009 §2.1).
   */
  bodyFormats?: readonly BodyFormat[];
  /**
   * `oauth`: every error is answered in the RFC 6749 §5.2 form `{error, error_description}`
   * (400, or 401 for `invalid_client`) instead of our envelope, because OAuth client libraries
   * parse that form. Default `envelope`.
   */
  errorFormat?: 'envelope' | 'oauth';
  /** success and error responses; the error envelope schemas come from shared/platform/http/schemas.ts */
  responses: Record<number, ResponseSpec>;
}

/** Keeps the literal types of an operation (its schemas, its `auth`) so handlers get exact input types. */
export const defineOperation = <const O extends Operation>(operation: O): O => operation;

/**
 * Every answer an operation gives, as the OpenAPI document publishes them: its own, and those the
 * pipeline gives on its behalf: a keyed operation that a `sending_access` key may not call answers
 * 403, an operation with a body the 413 of its size limit. Here, not in `defineOperation`, so the
 * handlers' bundles do not carry it.
 */
export function documentedResponses(operation: Operation): Record<number, ResponseSpec> {
  const responses = { ...operation.responses };
  if (operation.auth === 'api_key' && !operation.allowSendingAccess) responses[403] ??= insufficientScopeResponse;
  if (operation.body && operation.errorFormat !== 'oauth') responses[413] ??= payloadTooLargeResponse; // RFC 6749 errors have no 413
  return responses;
}
