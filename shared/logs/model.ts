/**
 * The request log's model: an entry as the API shows it (Resend's `Log`, the SDK's `logs.get`),
 * its summary in lists (`logs.list`), and what the pipeline hands over when an answer is known.
 * What an entry never holds is the point of the feature's design (./request-log.ts): no key, no
 * header but the user agent, no request body, no success body.
 */
import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/schemas';

export const logSummary = /* @__PURE__ */ (() =>
  z.object({
    id,
    created_at: timestamp,
    /** the path as the client sent it, without the query string */
    endpoint: z.string(),
    method: z.string(),
    response_status: z.number(),
    user_agent: z.nullable(z.string()),
  }))();
export type LogSummary = z.output<typeof logSummary>;

export const log = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('log'),
    ...logSummary.shape,
    /** always null: request bodies carry mail content and secrets (a webhook's endpoint, an OAuth verifier) */
    request_body: z.null(),
    /** the error body of a 4xx/5xx answer as it was sent; null for a success (its body may hold a new key or signing secret) */
    response_body: z.nullable(z.record(z.string(), z.unknown())),
    // additive (not in Resend's Log)
    request_id: z.string(),
    duration_ms: z.number(),
    /** the same envelope as `response_body`, under the name this service's docs use */
    error: z.nullable(z.record(z.string(), z.unknown())),
    livemode: z.boolean(),
    /** the API key used; null for an OAuth access token */
    api_key_id: z.nullable(z.string()),
  }))();
export type Log = z.output<typeof log>;
