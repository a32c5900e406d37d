import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, conflictResponse, deleted, errorEnvelope, notFoundResponse } from '../../platform/http/schemas';
import {
  createCustomEventBody,
  customEvent,
  customEventCreated,
  eventSent,
  MAX_EVENT_NAME_LENGTH,
  MAX_PAYLOAD_BYTES,
  MAX_SCHEMA_KEYS,
  sendEventBody,
  SYSTEM_EVENT_PREFIX,
  updateCustomEventBody,
} from '../model';

const eventParams = /* @__PURE__ */ (() =>
  z.strictObject({
    id_or_name: z.string().check(z.minLength(1), z.maxLength(MAX_EVENT_NAME_LENGTH)),
  }))();

const nameRules =
  `A name is 1-${MAX_EVENT_NAME_LENGTH} characters, unique in the project (409 \`event_exists\`), without control characters ` +
  `or \`/\`, never shaped like a UUID (paths take the id or the name), never \`send\`, never beginning \`${SYSTEM_EVENT_PREFIX}\` ` +
  "(the service's system events).";
const schemaRules =
  `\`schema\` is a flat map of payload key -> \`string\`, \`number\`, \`boolean\` or \`date\` (at most ${MAX_SCHEMA_KEYS} keys, ` +
  'letters, digits and _), or null for none.';
const listNote =
  "The Resend SDK's `events.list()` reaches GET /events, which the contract makes the platform event log: definitions are " +
  'read one at a time, by id or name.';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createCustomEvent',
    summary: 'Define a custom event',
    description:
      'Defining an event is optional: any name can be sent (POST /events/send). A definition gives it an id and, with ' +
      `\`schema\`, the payload its sends must match. ${nameRules} ${schemaRules} ${listNote}`,
    tags: ['Custom events'],
    auth: 'api_key',
    body: createCustomEventBody,
    responses: {
      201: { description: 'The new definition', schema: customEventCreated },
      ...commonErrors,
      409: conflictResponse,
    },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getCustomEvent',
    summary: 'Retrieve a custom event definition by id or name',
    tags: ['Custom events'],
    auth: 'api_key',
    params: eventParams,
    responses: { 200: { description: 'The definition', schema: customEvent }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateCustomEvent',
    summary: "Replace a custom event's schema",
    description: `${schemaRules} Sends after the change are checked against the new schema; the name cannot change.`,
    tags: ['Custom events'],
    auth: 'api_key',
    params: eventParams,
    body: updateCustomEventBody,
    responses: {
      200: { description: 'The definition was changed', schema: customEventCreated },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteCustomEvent',
    summary: 'Delete a custom event definition',
    description: 'The name may be sent and defined again afterwards. A second delete is 404.',
    tags: ['Custom events'],
    auth: 'api_key',
    params: eventParams,
    responses: { 200: { description: 'It is gone', schema: deleted('event') }, ...commonErrors, 404: notFoundResponse },
  }))();

export const send = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sendCustomEvent',
    summary: 'Send a custom event for a contact',
    description:
      'Exactly one of `contact_id` (404 when the project has no such contact) and `email` (the contact with that address, ' +
      'created when there is none, with its `contact.created` event; 409 `contact_limit_reached` when the project holds its limit ' +
      'of contacts). When the event is defined with a schema, each declared ' +
      'payload value is coerced to its type where nothing is lost (`"42"` for a number, `"true"` for a boolean, a number ' +
      'for a string, an ISO 8601 date or epoch milliseconds for a date, answered as an ISO 8601 date-time) and otherwise ' +
      'refused: 422 naming `payload.<key>`, and nothing is sent. Null is no value; undeclared keys pass as they are. ' +
      `The payload is at most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON (413). ` +
      `Names beginning \`${SYSTEM_EVENT_PREFIX}\` are 422. The event is recorded as the platform event \`custom_event.sent\` ` +
      '(GET /events, webhooks), with the contact and the checked payload; 202 with its `id`.',
    tags: ['Custom events'],
    auth: 'api_key',
    body: sendEventBody,
    responses: {
      202: { description: 'The event was accepted', schema: eventSent },
      ...commonErrors,
      404: notFoundResponse,
      409: {
        description:
          'The address has no contact yet and the project holds its limit of contacts (`contact_limit_reached`)',
        schema: errorEnvelope,
      },
      413: {
        description: `The body is over 5 MB, or the payload over ${MAX_PAYLOAD_BYTES / 1024} KB (\`payload_too_large\`)`,
        schema: errorEnvelope,
      },
    },
  }))();
