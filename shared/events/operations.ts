import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors } from '../platform/http/schemas';
import { event } from './model';

export const MAX_LISTED_EVENTS = 1000;

/**
 * What this service says to a caller of Resend's custom events (the SDK's `events.create`, `send`,
 * `get`, `list`, `update`, `remove`): their paths (POST /events, /events/send, /events/{name})
 * answer it through the fallback (functions/routes.ts `unsupportedRoutes`), and GET /events
 * answers it to the pagination the SDK's `events.list` sends.
 */
export const CUSTOM_EVENTS_UNSUPPORTED =
  "Resend's custom events (the SDK's events.create, send, get, list, update and remove) are not supported here. " +
  'What is: GET /events, the platform event log of the contract (no parameters, not paginated, has_more always false), and webhooks, which deliver the same events.';

/** The SDK's `events.list` pagination: refused by name rather than ignored, so no caller takes the event log for its custom events. */
const refusedParameter = z.optional(
  z
    .never({ error: `GET /events takes no parameters. ${CUSTOM_EVENTS_UNSUPPORTED}` })
    .check(z.meta({ description: 'Not a parameter: 422 (the list is not paginated)' })),
);

export const list = defineOperation({
  operationId: 'listEvents',
  summary: 'List project events',
  description:
    `The newest ${MAX_LISTED_EVENTS} events of the last 30 days (events expire after 30 days), newest first, in one response: ` +
    'as the contract says, this list is not paginated and `has_more` is always false. Events carry ids and metadata, never bodies: ' +
    '`data.object` of an `email.*` event is the email without `html`, `text` and `headers` (GET /emails/{email_id} has them), so 1,000 events stay far under the 6 MB a response may be. ' +
    "The contract lists no parameters, so every query parameter is a 422 naming it: `limit`, `after` and `before` (what the Resend SDK's " +
    '`events.list`, a list of custom event definitions, sends) with a message that says what is supported here; any other as unrecognized. ' +
    "The SDK's `events.list()` without options reaches this route and gets the event log, not custom events. " +
    '`object` is `list`, as on every other list of the API.',
  tags: ['Events'],
  auth: 'api_key',
  query: z.strictObject({ limit: refusedParameter, after: refusedParameter, before: refusedParameter }),
  responses: {
    200: {
      description: 'The events',
      schema: z.object({ object: z.literal('list'), data: z.array(event), has_more: z.literal(false) }),
    },
    ...commonErrors,
  },
});
