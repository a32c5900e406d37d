import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors } from '../platform/http/schemas';
import { project } from './model';

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getProject',
    summary: "The calling key's project: its API rate limit, send quotas and usage so far",
    description:
      'Limits are set per project by an operator (`npm run project -- limits`); unset, the rate limit is the deployment default ' +
      '(API_RATE_LIMIT_PER_SECOND: the stack parameter ApiRateLimitPerSecond, 10 unless given; 1,000 under `npm start` unless given) and the quotas are unlimited (`null`). `usage` counts the emails accepted by live keys in the ' +
      'current UTC day and month.',
    tags: ['Project'],
    auth: 'api_key',
    responses: { 200: { description: 'The project', schema: project }, ...commonErrors },
  }))();

const used = (limit: z.ZodMiniType) => z.object({ used: z.number(), limit });
const emailPeriod = /* @__PURE__ */ (() =>
  z.object({
    used: z.number(),
    limit: z.nullable(z.number()),
    sent: z.number(),
    received: z.number(),
    resets_at: z.string(),
  }))();

export const usage = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getUsage',
    summary: "The project's usage against its limits (Resend's `usage.get`)",
    description:
      "`emails`: the emails live keys had accepted this UTC day and month (`used` = `sent`) against the project's send quotas (`limit` null: " +
      'unlimited), the mail received, and when each period resets. `contacts` (counted as they are created and deleted; an operator recounts ' +
      "contacts made before this version with `npm run project -- recount`) against the project's contact limit (its own, else the " +
      "deployment's CONTACT_LIMIT_PER_PROJECT, default 1,000,000; creating a contact past it is 409 contact_limit_reached); " +
      '`segments` and `broadcasts` (counted by key) have no limit here (null); `domains` against MAX_DOMAINS_PER_PROJECT; `rate_limit` the requests a second. `ai_credits` and `automation_runs` are not ' +
      'offered (zeros).',
    tags: ['Project'],
    auth: 'api_key',
    responses: {
      200: {
        description: 'The usage',
        schema: z.object({
          object: z.literal('usage'),
          emails: z.object({ daily: emailPeriod, monthly: emailPeriod }),
          contacts: used(z.number()),
          segments: used(z.null()),
          broadcasts: used(z.null()),
          ai_credits: z.object({ used: z.number(), limit: z.null(), next_increase_at: z.null() }),
          automation_runs: z.object({ used: z.number(), limit: z.number(), resets_at: z.string() }),
          domains: used(z.number()),
          rate_limit: z.object({ limit: z.number(), duration: z.string() }),
        }),
      },
      ...commonErrors,
    },
  }))();
