/**
 * The project feature's model: the project as GET /project shows it (its limits, sending state,
 * reputation and usage) and the default API rate limit the stack and the settings fall back to.
 */
import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/schemas';

/** API requests a second per project, unless API_RATE_LIMIT_PER_SECOND (the stack's ApiRateLimitPerSecond) or the project's own limit says otherwise. */
export const DEFAULT_API_RATE_LIMIT = 10;

const wholeOrUnlimited = /* @__PURE__ */ (() => z.nullable(z.int().check(z.minimum(1))))();

/** GET /project: the calling key's project, its limits and its usage so far. */
export const project = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('project'),
    id,
    name: z.string(),
    created_at: timestamp,
    /** paused by the reputation guard (shared/emails/reputation.ts) until an operator resumes it */
    sending: z.object({
      status: z.enum(['enabled', 'paused']),
      reason: z.nullable(z.string()),
      since: z.nullable(timestamp),
    }),
    reputation: z.object({
      sent: z.int(),
      bounced: z.int(),
      complained: z.int(),
      bounce_rate: z.number(),
      complaint_rate: z.number(),
      window: z.literal('24h'),
    }),
    ses: z.nullable(
      z
        .object({
          tenant: z.string(),
          reputation_policy: z.nullable(z.string()),
          sending_status: z.nullable(z.string()),
          ses_managed_status: z.nullable(z.object({ status: z.string(), cause: z.nullable(z.string()) })),
          customer_managed_status: z.nullable(z.object({ status: z.string(), cause: z.nullable(z.string()) })),
          reputation_impact: z.nullable(z.string()),
        })
        .check(
          z.meta({
            description:
              "What SES says of the project's tenant (GetReputationEntity): its reputation policy, whether SES lets it send " +
              "(`sending_status`: SES's own status, set by its reputation findings, with the customer-managed one), and the impact of " +
              'its findings. Null before the project has a live domain (no tenant yet) or when SES did not answer.',
          }),
        ),
    ),
    rate_limit: z.object({ requests_per_second: z.int().check(z.minimum(1)) }),
    quotas: z.object({ daily: wholeOrUnlimited, monthly: wholeOrUnlimited }),
    usage: z.object({ daily: z.int(), monthly: z.int(), day: z.string(), month: z.string() }),
  }))();
export type ProjectView = z.infer<typeof project>;
