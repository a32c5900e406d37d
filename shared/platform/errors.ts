/**
 * Errors the domain throws and the HTTP pipeline turns into the envelope of DESIGN.md:
 * `{name, message, statusCode, errors?}`. `name` is one of the contract's three categories;
 * the specific reason travels in `errors[].code`. Nothing else ever reaches a client: any
 * other thrown value becomes a generic 500 with the request id.
 */
export type ErrorName = 'validation_error' | 'application_error' | 'not_found';

export interface ErrorDetail {
  code: string;
  message: string;
  /** dot-separated location of the offending value (`topics.0.subscription`); '' for the whole request */
  path: string;
}

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorName: ErrorName,
    message: string,
    /** an array for ordinary errors; the contract makes it an object on POST /emails/{id}/retry; absent only for the 401 */
    readonly errors?: ErrorDetail[] | Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toBody(): Record<string, unknown> {
    const body: Record<string, unknown> = { name: this.errorName, message: this.message, statusCode: this.statusCode };
    if (this.errors !== undefined) body.errors = this.errors;
    return body;
  }
}

const detail = (code: string, message: string, path = ''): ErrorDetail[] => [{ code, message, path }];

/** 400: the request could not be read at all (malformed JSON, wrong content type, unknown Api-Version). */
export const badRequest = (code: string, message: string, path = '') =>
  new ApiError(400, 'validation_error', message, detail(code, message, path));

/** 401 in the historical envelope: no `errors` key. */
export const invalidApiKey = () => new ApiError(401, 'validation_error', 'API key is invalid');

export const forbidden = (code: string, message: string) =>
  new ApiError(403, 'application_error', message, detail(code, message));

export const notFound = (what: string, path = '') =>
  new ApiError(404, 'not_found', `${what} not found`, detail('not_found', `${what} not found`, path));

/** 405 with `allow`; `reason`, when given, says why the method is missing (a Resend operation this service does not have). */
export const methodNotAllowed = (method: string, path: string, allowed: string[], reason?: string) =>
  new ApiError(
    405,
    'validation_error',
    `Method ${method} is not allowed on ${path}${reason ? `. ${reason}` : ''}`,
    detail('method_not_allowed', `Allowed methods: ${allowed.join(', ')}`),
    {
      allow: allowed.join(', '),
    },
  );

/** 404 for a path of Resend's API that this service does not have: `reason` says so and what to use instead. */
export const notSupported = (method: string, path: string, reason: string) =>
  new ApiError(404, 'not_found', `Route ${method} ${path} not found. ${reason}`, detail('not_supported', reason));

export const conflict = (code: string, message: string, path = '') =>
  new ApiError(409, 'application_error', message, detail(code, message, path));

export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(
    413,
    'validation_error',
    `Request body exceeds ${limitBytes} bytes`,
    detail('payload_too_large', `Request body exceeds ${limitBytes} bytes`),
  );

export const unprocessable = (errors: ErrorDetail[]) =>
  new ApiError(
    422,
    'validation_error',
    errors.map((e) => (e.path ? `${e.path}: ${e.message}` : e.message)).join('; '),
    errors,
  );

export const internalError = (requestId: string) =>
  new ApiError(
    500,
    'application_error',
    `An unexpected error occurred (request id ${requestId})`,
    detail('internal_error', `An unexpected error occurred (request id ${requestId})`),
  );

/**
 * The error codes of RFC 6749 §5.2 that the OAuth token and revocation endpoints answer with.
 * Those endpoints render errors as `{error, error_description}` (operation `errorFormat:
 * 'oauth'`, shared/platform/http/pipeline.ts) because OAuth client libraries parse that form, not ours.
 */
export const OAUTH_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** An RFC 6749 error: 401 for `invalid_client`, 400 for the rest (the code travels in `errors[0].code`). */
export const oauthError = (code: OAuthErrorCode, description: string) =>
  new ApiError(code === 'invalid_client' ? 401 : 400, 'validation_error', description, detail(code, description));
