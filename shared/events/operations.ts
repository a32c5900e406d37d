import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors } from '../platform/http/schemas';
import { event } from './model';

export const MAX_LISTED_EVENTS = 1000;

export const list = defineOperation({
  operationId: 'listEvents',
  summary: 'List project events',
  description:
    `The newest ${MAX_LISTED_EVENTS} events of the last 30 days (events expire after 30 days), newest first, in one response: ` +
    'as the contract says, this list is not paginated and `has_more` is always false.',
  tags: ['Events'],
  auth: 'api_key',
  responses: { 200: { description: 'The events', schema: z.object({ data: z.array(event), has_more: z.literal(false) }) }, ...commonErrors },
});
