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
    'as the contract says, this list is not paginated and `has_more` is always false. Events carry ids and metadata, never bodies: ' +
    '`data.object` of an `email.*` event is the email without `html`, `text` and `headers` (GET /emails/{email_id} has them), so 1,000 events stay far under the 6 MB a response may be.',
  tags: ['Events'],
  auth: 'api_key',
  responses: { 200: { description: 'The events', schema: z.object({ data: z.array(event), has_more: z.literal(false) }) }, ...commonErrors },
});
