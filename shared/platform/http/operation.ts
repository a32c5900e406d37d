/**
 * An operation's contract: what it reads (path, query, body schemas), who may call it, and what
 * it answers. The same object validates requests in the handler (shared/access/api.ts) and
 * documents them in the OpenAPI document (shared/platform/http/openapi.ts), so the two cannot drift.
 * Operations import nothing heavier than zod/mini, so the route table can hold them.
 */
import type * as z from 'zod/mini';
import { insufficientScopeResponse, payloadTooLargeResponse, rateLimitedResponse } from './schemas';

type Schema = z.ZodMiniType;

/**
 * What a keyed operation needs from the caller's credential, least to most:
 * - `sending_access`: any API key or OAuth access token (only sending: POST /emails, POST /emails/batch, as on Resend);
 * - `full_access` (the default): a `full_access` API key or a `full_access` OAuth access token;
 * - `full_access_api_key`: a `full_access` API key, never an OAuth token: the operations that make or
 *   manage credentials (API keys, OAuth clients, authorization codes, grants), so that nothing a grant
 *   makes can outlive its revocation.
 */
export const SCOPES = ['sending_access', 'full_access', 'full_access_api_key'] as const;
export type Scope = (typeof SCOPES)[number];

/** The scope an operation needs (its `scope`, default `full_access`). */
export const requiredScope = (operation: Pick<Operation, 'scope'>): Scope => operation.scope ?? 'full_access';

/** What the pipeline knows of a credential: its permission, and the OAuth grant when it is an access token. */
export interface Credential {
  permission: 'full_access' | 'sending_access';
  grantId?: string;
}

/** Why `credential` may not call an operation needing `scope` (the 403 `insufficient_scope` message), or undefined when it may. */
export function scopeRefusal(credential: Credential, scope: Scope): string | undefined {
  if (scope === 'sending_access') return undefined;
  if (credential.permission !== 'full_access')
    return 'This key has sending_access: it may only send emails (POST /emails, POST /emails/batch)';
  if (scope === 'full_access_api_key' && credential.grantId !== undefined) {
    return 'OAuth access tokens cannot manage API keys, OAuth clients, authorizations or grants: use an API key of the project';
  }
  return undefined;
}

/** Who may call an operation, as the OpenAPI description says it. */
export const SCOPE_NOTES: Record<Scope, string> = {
  sending_access: 'Any API key or OAuth access token may call this, `sending_access` ones included.',
  full_access:
    'Needs a `full_access` API key or OAuth access token; a `sending_access` one gets 403 `insufficient_scope`.',
  full_access_api_key:
    'Needs a `full_access` API key; OAuth access tokens (whatever their scope) and `sending_access` keys get 403 `insufficient_scope`.',
};

export type BodyFormat = 'json' | 'form' | 'multipart';

export interface ResponseSpec {
  description: string;
  /** omitted for responses without a body */
  schema?: Schema;
  /** default `application/json`; `text/html` for the pages of the unsubscribe routes */
  contentType?: string;
}

export interface Operation<
  P extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  B extends Schema | undefined = Schema | undefined,
> {
  operationId: string;
  summary: string;
  /** decisions the contract leaves open go here: they become the OpenAPI description */
  description?: string;
  tags: string[];
  /** 'none' only for /health, the OpenAPI document, the public OAuth routes (token, revoke, metadata) and unsubscribe links */
  auth: 'api_key' | 'none';
  /** the least a caller's key or token must allow (see `Scope`); default `full_access` */
  scope?: Scope;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * How the body may be encoded; default `['json']`. `form` (application/x-www-form-urlencoded)
   * is for the OAuth endpoints, whose clients send forms (RFC 6749 §4.1.3, RFC 7009 §2.1);
   * `multipart` (multipart/form-data, ./multipart.ts) for POST /contacts/imports, whose SDK sends a file.
   */
  bodyFormats?: readonly BodyFormat[];
  /**
   * `oauth`: every error is answered in the RFC 6749 §5.2 form `{error, error_description}`
   * (400, or 401 for `invalid_client`) instead of our envelope, because OAuth client libraries
   * parse that form. Default `envelope`.
   */
  errorFormat?: 'envelope' | 'oauth';
  /**
   * For an array body: a request header that may ask for its items to be validated one by one
   * (`header: permissive`, Resend's `x-batch-validation`): the valid items reach the handler, the
   * others come as `ApiRequest.rejected` (`{index, message}`) instead of a 422 for the whole body.
   * `item` is the schema of one item; the body's own schema still bounds its length.
   */
  itemsValidation?: { header: string; permissive: string; strict: string; item: Schema };
  /** success and error responses; the error envelope schemas come from shared/platform/http/schemas.ts */
  responses: Record<number, ResponseSpec>;
}

/** Keeps the literal types of an operation (its schemas, its `auth`) so handlers get exact input types. */
export const defineOperation = <const O extends Operation>(operation: O): O => operation;

/**
 * Every answer an operation gives, as the OpenAPI document publishes them: its own, and those the
 * pipeline gives on its behalf: a keyed operation that some keys may not call answers 403, every
 * keyed operation the 429 of its project's rate limit, an operation with a body the 413 of its size limit. Here, not in `defineOperation`, so the
 * handlers' bundles do not carry it.
 */
export function documentedResponses(operation: Operation): Record<number, ResponseSpec> {
  const responses = { ...operation.responses };
  const scope = requiredScope(operation);
  if (operation.auth === 'api_key' && scope !== 'sending_access')
    responses[403] ??= { ...insufficientScopeResponse, description: SCOPE_NOTES[scope] };
  if (operation.auth === 'api_key') responses[429] ??= rateLimitedResponse;
  if (operation.body && operation.errorFormat !== 'oauth') responses[413] ??= payloadTooLargeResponse; // RFC 6749 errors have no 413
  return responses;
}
