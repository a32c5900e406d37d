/**
 * Schemas every resource shares: ids, timestamps, list paging, the list envelope and the error
 * envelope. zod/mini rather than zod: the classic build adds ~440 KB to every bundle (measured
 * with esbuild, see bench/), which alone would break the 450 KB budget.
 */
import * as z from 'zod/mini';
import { HEADER_UNSAFE } from '../mail/header-text';
import { en } from 'zod/v4/locales';
import { UUID_PATTERN } from '../ids';

z.config(en()); // readable messages in `errors[].message`; zod/mini ships none by default

export const id = /* @__PURE__ */ (() => z.string().check(z.regex(UUID_PATTERN, 'must be a UUID')))();
export const timestamp = /* @__PURE__ */ (() => z.iso.datetime())();

/** Query of every list route: `limit` 1-100 (default 20), `after`/`before` an id (exclusive), not both. */
/** `limit`, and `after` / `before` (one at most) of the type `cursor` names: an id unless a list pages by something else. */
export const cursorListQuery = (cursor: z.ZodMiniType<string>) =>
  z
    .strictObject({
      limit: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(100))),
      after: z.optional(cursor),
      before: z.optional(cursor),
    })
    .check(
      z.refine((q) => !(q.after && q.before), { message: 'use either after or before, not both', path: ['before'] }),
    );
export const listQuery = /* @__PURE__ */ (() => cursorListQuery(id))();
export const DEFAULT_PAGE_SIZE = 20;

export const listOf = <T extends z.ZodMiniType>(item: T) =>
  z.object({ object: z.literal('list'), data: z.array(item), has_more: z.boolean() });

export const deleted = (object: string) => z.object({ object: z.literal(object), id, deleted: z.literal(true) });

export const errorDetail = /* @__PURE__ */ (() =>
  z.object({ code: z.string(), message: z.string(), path: z.string() }))();
export const errorEnvelope = /* @__PURE__ */ (() =>
  z.object({
    name: z.enum(['validation_error', 'application_error', 'not_found']),
    message: z.string(),
    statusCode: z.number(),
    errors: z.optional(z.array(errorDetail)),
  }))();

/** The error responses that every authenticated operation can give; operations add their own. */
export const commonErrors = {
  400: { description: 'Malformed JSON, wrong content type or unknown Api-Version', schema: errorEnvelope },
  401: { description: 'Missing or invalid API key (historical envelope, no `errors`)', schema: errorEnvelope },
  422: { description: 'A path, query or body value breaks the schema', schema: errorEnvelope },
} as const;

/** Every keyed operation that a `sending_access` key may not call answers this (shared/platform/http/operation.ts adds it). */
export const insufficientScopeResponse = {
  description: 'A `sending_access` key or token on an operation that needs `full_access` (`insufficient_scope`)',
  schema: errorEnvelope,
} as const;

/** Every operation that reads a JSON body answers this past the 5 MB limit (shared/platform/http/operation.ts adds it). */
/** The reputation guard paused the project's sending (shared/emails/reputation.ts): the sends it refuses. */
export const sendingPausedResponse = {
  description:
    "The project's sending is paused by the reputation guard (`sending_paused`: its bounce or complaint rate crossed the threshold); an operator resumes it",
  schema: errorEnvelope,
} as const;
export const payloadTooLargeResponse = {
  description: 'The body is over 5 MB (`payload_too_large`)',
  schema: errorEnvelope,
} as const;

/** Every keyed operation answers this past its project's API rate limit (shared/access/rate-limit.ts adds it). */
export const rateLimitedResponse = {
  description:
    "Over the project's API rate limit (`rate_limit_exceeded`; `retry-after` says when to try again; the message names the setting that applied: " +
    "the project's own limit, or API_RATE_LIMIT_PER_SECOND, the deployment's default). Every keyed answer carries `ratelimit-limit`, `ratelimit-remaining` and `ratelimit-reset`",
  schema: errorEnvelope,
} as const;

export const notFoundResponse = { description: 'No such resource in this project', schema: errorEnvelope } as const;
export const conflictResponse = {
  description: 'The change conflicts with the current state',
  schema: errorEnvelope,
} as const;

/** Refuses text that could end a header line (header-text.ts). */
export const headerSafe = /* @__PURE__ */ z.refine<string>(
  (value) => !HEADER_UNSAFE.test(value),
  'must not contain line breaks or control characters (CR, LF, NUL, U+2028, U+2029, ...)',
);

/**
 * A number DynamoDB stores as it was given: the document client refuses integers past
 * Number.MAX_SAFE_INTEGER (every double that large is an integer, so this bounds the magnitude
 * too, far inside DynamoDB's 1e126), and DynamoDB refuses non-zero magnitudes below 1e-130. A
 * JSON number never carries more than 17 significant digits into a double, under DynamoDB's 38.
 */
export const DYNAMO_NUMBER_MIN_MAGNITUDE = 1e-130;
export const isDynamoNumber = (value: number): boolean =>
  Number.isFinite(value) &&
  Math.abs(value) <= Number.MAX_SAFE_INTEGER &&
  (value === 0 || Math.abs(value) >= DYNAMO_NUMBER_MIN_MAGNITUDE);
// an annotated IIFE: esbuild drops it from the bundles that do not use it (a bare method chain it keeps)
export const dynamoNumber = /* @__PURE__ */ (() =>
  z.number().check(z.refine(isDynamoNumber, `must be 0 or a magnitude from 1e-130 to ${Number.MAX_SAFE_INTEGER}`)))();
