import * as z from 'zod/mini';
import { isAddress } from '../../platform/mail/addresses';
import { defineOperation } from '../../platform/http/operation';
import { UUID_PATTERN } from '../../platform/ids';
import { commonErrors, conflictResponse, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import {
  contact,
  contactTopic,
  createContactBody,
  MAX_PROPERTIES,
  MAX_PROPERTY_VALUE_LENGTH,
  MAX_SEGMENTS_PER_CONTACT,
  MAX_TOPICS_PER_REQUEST,
  membership,
  PROPERTIES_FORMATS,
  segment,
  typedPropertyValue,
  updateContactBody,
  updateContactTopicsBody,
} from '../model';

const contactId = /* @__PURE__ */ (() =>
  z
    .string()
    .check(
      z.refine(
        (v) => UUID_PATTERN.test(v) || isAddress(v),
        "must be a contact id (UUID) or the contact's email address",
      ),
    ))();
const contactParams = /* @__PURE__ */ (() => z.strictObject({ contact_id: contactId }))();
const membershipParams = /* @__PURE__ */ (() => z.strictObject({ contact_id: contactId, segment_id: id }))();

const rules =
  'One contact per address per project, compared case-insensitively (`email` is kept as given, trimmed). ' +
  '`segments` takes `[{id}]` or plain ids; an unknown segment or topic id is 422 naming its path. ' +
  `At most ${MAX_SEGMENTS_PER_CONTACT} segments per contact and ${MAX_TOPICS_PER_REQUEST} topics per request; ` +
  `\`properties\`: at most ${MAX_PROPERTIES} keys (letters, digits, \`_\`), values string (up to ${MAX_PROPERTY_VALUE_LENGTH} characters), number (as DynamoDB stores it: 0 or a magnitude from 1e-130 to ${Number.MAX_SAFE_INTEGER}), boolean or null. ` +
  'Once the project defines contact properties (POST /contact-properties), `properties` must use their keys and types (422 naming `properties.<key>`); until then they are free-form. ' +
  '`first_name` and `last_name` refuse line breaks and control characters (they render into subjects). ' +
  "`topics` in the record are the explicit subscriptions; the effective one falls back to the topic's `default_subscription`.";
const byIdOrEmail = "The path takes the contact's id or its email address (any case).";

/** Contact reads take `properties_format`: Resend's typed form by default (what the SDK's `contacts.get` types), `plain` for the form writes take. */
const readQuery = /* @__PURE__ */ (() => ({ properties_format: z.optional(z.enum(PROPERTIES_FORMATS)) }))();
const contactRead = /* @__PURE__ */ (() =>
  z.extend(contact, {
    properties: z.union([z.record(z.string(), typedPropertyValue), contact.shape.properties]),
  }))();
const readFormat =
  ' `properties` are shown as Resend does, `{key: {type, value}}` (a null value is left out), unless `properties_format=plain` asks for `{key: value}` ' +
  'as POST and PATCH take and answer them.';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createContact',
    summary: 'Create a contact',
    description: `409 \`contact_exists\` when the project already has a contact with this address, \`contact_limit_reached\` when it holds its contact limit (1,000,000 unless the operator set another). \`first_name\` and \`last_name\` refuse bidi controls and characters NFKC turns into @ < > . (422). ${rules}`,
    tags: ['Contacts'],
    auth: 'api_key',
    body: createContactBody,
    responses: { 201: { description: 'The new contact', schema: contact }, ...commonErrors, 409: conflictResponse },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listContacts',
    summary: 'List contacts, newest first',
    description: `\`segment_id\` lists only that segment's members (404 for an unknown segment).${readFormat}`,
    tags: ['Contacts'],
    auth: 'api_key',
    query: z.extend(listQuery, { segment_id: z.optional(id), ...readQuery }),
    responses: {
      200: { description: 'A page of contacts', schema: listOf(contactRead) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listBySegment = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listSegmentContacts',
    summary: 'List the contacts of a segment, newest first',
    description: `The same as \`GET /contacts?segment_id=\`; the path the Resend SDK uses for \`contacts.list({ segmentId })\`.${readFormat}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: z.strictObject({ segment_id: id }),
    query: z.extend(listQuery, readQuery),
    responses: {
      200: { description: "A page of the segment's contacts", schema: listOf(contactRead) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getContact',
    summary: 'Retrieve a contact by id or by email',
    description: byIdOrEmail + readFormat,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    query: z.strictObject(readQuery),
    responses: { 200: { description: 'The contact', schema: contactRead }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateContact',
    summary: 'Update a contact',
    description:
      `\`email\` is required, as the contract says (the Resend SDK's \`contacts.update\` omits it and gets 422); a new ` +
      "address moves the contact's claim on it (409 `contact_exists` when another contact has it). Fields left out stay " +
      'as they are; `first_name`/`last_name` null clear them. `properties` are merged key by key; `segments` replaces the ' +
      `contact's segments; \`topics\` sets the listed subscriptions and leaves the others. ${byIdOrEmail} ${rules}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    body: updateContactBody,
    responses: {
      200: { description: 'The updated contact', schema: contact },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteContact',
    summary: 'Delete a contact',
    description: `Its segment memberships and its claim on the address go with it; a second delete is 404. \`contact\` repeats the id (the Resend shape). ${byIdOrEmail}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    responses: {
      200: {
        description: 'The contact is gone',
        schema: z.object({ object: z.literal('contact'), id, contact: id, deleted: z.literal(true) }),
      },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listSegments = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listContactSegments',
    summary: 'List the segments a contact is in, newest first',
    description: byIdOrEmail,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    query: listQuery,
    responses: {
      200: { description: 'A page of segments', schema: listOf(segment) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const addSegment = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'addContactToSegment',
    summary: 'Add a contact to a segment',
    description:
      `Idempotent: a contact already in the segment stays in it (200 either way). \`id\` is the segment's id (the Resend shape). ` +
      `404 for an unknown contact or segment; 409 \`too_many_segments\` past ${MAX_SEGMENTS_PER_CONTACT} segments. ${byIdOrEmail}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: membershipParams,
    responses: {
      200: { description: 'The contact is in the segment', schema: membership },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const removeSegment = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'removeContactFromSegment',
    summary: 'Remove a contact from a segment',
    description: `The contact stays; 404 when it is not in the segment (also the second time). ${byIdOrEmail}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: membershipParams,
    responses: {
      200: {
        description: 'The contact is no longer in the segment',
        schema: z.extend(membership, { deleted: z.literal(true) }),
      },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listTopics = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listContactTopics',
    summary: "A contact's subscriptions to every topic of the project, newest topic first",
    description: `\`subscription\` is the effective one: the contact's explicit choice, else the topic's \`default_subscription\`. ${byIdOrEmail}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    query: listQuery,
    responses: {
      200: { description: "A page of topics with the contact's subscription", schema: listOf(contactTopic) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const updateTopics = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateContactTopics',
    summary: "Set a contact's subscriptions to topics",
    description:
      'The body is `{topics: [{id, subscription}]}` or the bare array (as the Resend SDK sends it). The listed subscriptions are ' +
      `set, the others stay; at most ${MAX_TOPICS_PER_REQUEST}; an unknown topic is 422 naming its path. Answers the contact. ${byIdOrEmail}`,
    tags: ['Contacts'],
    auth: 'api_key',
    params: contactParams,
    body: updateContactTopicsBody,
    responses: { 200: { description: 'The contact', schema: contact }, ...commonErrors, 404: notFoundResponse },
  }))();
