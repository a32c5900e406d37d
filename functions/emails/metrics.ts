import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { emailMetrics } from '#shared/emails/metrics';

export const handler = api(emailOps.metrics, async ({ query, caller }) => ok(await emailMetrics(caller, query)));
