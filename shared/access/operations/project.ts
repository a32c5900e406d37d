import { defineOperation } from '../../platform/http/operation';
import { commonErrors } from '../../platform/http/schemas';
import { project } from '../model';

export const get = defineOperation({
  operationId: 'getProject',
  summary: "The calling key's project: its API rate limit, send quotas and usage so far",
  description:
    'Limits are set per project by an operator (`npm run project -- limits`); unset, the rate limit is the deployment default ' +
    '(API_RATE_LIMIT_PER_SECOND, 10) and the quotas are unlimited (`null`). `usage` counts the emails accepted by live keys in the ' +
    'current UTC day and month.',
  tags: ['Project'],
  auth: 'api_key',
  responses: { 200: { description: 'The project', schema: project }, ...commonErrors },
});
