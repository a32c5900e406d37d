import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors } from '../platform/http/schemas';
import { event } from './model';

export const MAX_LISTED_EVENTS = 1000;

/**
 * What GET /events says to a caller of the Resend SDK's `events.list`, which lists custom event
 * definitions on Resend: here the contract makes GET /events the platform event log, so its
 * pagination is refused by name rather than ignored.
 */
export const EVENT_LOG_NOT_DEFINITIONS =
  'GET /events is the platform event log of the contract (no parameters, not paginated, has_more always false), which ' +
  "the Resend SDK's events.list() reads; custom event definitions are read one at a time: GET /events/{id_or_name}.";

/** The SDK's `events.list` pagination: refused by name rather than ignored, so no caller takes the event log for its custom events. */
const refusedParameter = /* @__PURE__ */ (() =>
  z.optional(
    z
      .never({ error: `GET /events takes no parameters. ${EVENT_LOG_NOT_DEFINITIONS}` })
      .check(z.meta({ description: 'Not a parameter: 422 (the list is not paginated)' })),
  ))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listEvents',
    summary: 'List project events',
    description:
      `The newest ${MAX_LISTED_EVENTS} events of the last 30 days (events expire after 30 days), newest first, in one response: ` +
      'as the contract says, this list is not paginated and `has_more` is always false. Events carry ids and metadata, never bodies: ' +
      '`data.object` of an `email.*` event is the email without `html`, `text` and `headers` (GET /emails/{email_id} has them), so 1,000 events stay far under the 6 MB a response may be. ' +
      "The contract lists no parameters, so every query parameter is a 422 naming it: `limit`, `after` and `before` (what the Resend SDK's " +
      '`events.list`, a list of custom event definitions on Resend, sends) with a message that says so; any other as unrecognized. ' +
      "The SDK's `events.list()` without options reaches this route and gets the event log, not custom event definitions " +
      '(GET /events/{id_or_name} reads one). ' +
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
  }))();
