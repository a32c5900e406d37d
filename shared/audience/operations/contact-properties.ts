import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  deleted,
  id,
  listOf,
  listQuery,
  notFoundResponse,
} from '../../platform/http/schemas';
import {
  contactProperty,
  createContactPropertyBody,
  MAX_PROPERTIES,
  MAX_PROPERTY_VALUE_LENGTH,
  updateContactPropertyBody,
} from '../model';

const propertyParams = /* @__PURE__ */ (() => z.strictObject({ contact_property_id: id }))();
const rules =
  "The project's schema of contact `properties`. While a project has none, contacts take free-form properties (any key; " +
  'string, number, boolean or null). Once it has one, a contact create or PATCH whose `properties` has a key not in the ' +
  'schema, or a value not of its type, is 422 naming `properties.<key>` (null is allowed: no value). Broadcasts render ' +
  "`{{{KEY}}}` with the contact's value, else the property's `fallback_value`. " +
  `At most ${MAX_PROPERTIES} properties per project; keys are 1-64 letters, digits or \`_\`, not starting with a digit; ` +
  `a string fallback has at most ${MAX_PROPERTY_VALUE_LENGTH} characters.`;

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createContactProperty',
    summary: 'Create a contact property',
    description: `\`fallback_value\` must be of \`type\` (or null). 409 \`contact_property_exists\` for a key the project has, \`too_many_properties\` past ${MAX_PROPERTIES}. ${rules}`,
    tags: ['Contact properties'],
    auth: 'api_key',
    body: createContactPropertyBody,
    responses: {
      201: { description: 'The new property', schema: contactProperty },
      ...commonErrors,
      409: conflictResponse,
    },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listContactProperties',
    summary: 'List contact properties, newest first',
    tags: ['Contact properties'],
    auth: 'api_key',
    query: listQuery,
    responses: {
      200: { description: 'A page of contact properties', schema: listOf(contactProperty) },
      ...commonErrors,
    },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getContactProperty',
    summary: 'Retrieve a contact property',
    tags: ['Contact properties'],
    auth: 'api_key',
    params: propertyParams,
    responses: {
      200: { description: 'The property', schema: contactProperty },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateContactProperty',
    summary: "Update a contact property's fallback",
    description:
      "Only `fallback_value` changes (`key` and `type` are fixed: 422); it must be of the property's type or null.",
    tags: ['Contact properties'],
    auth: 'api_key',
    params: propertyParams,
    body: updateContactPropertyBody,
    responses: {
      200: { description: 'The updated property', schema: contactProperty },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteContactProperty',
    summary: 'Delete a contact property',
    description:
      "Allowed while contacts have values for its key (as on Resend): the values stay on the contacts, reads show them and broadcasts render them; only the fallback goes. If it was the project's last property, contacts take free-form properties again. A second delete is 404.",
    tags: ['Contact properties'],
    auth: 'api_key',
    params: propertyParams,
    responses: {
      200: { description: 'The property is gone', schema: deleted('contact_property') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
