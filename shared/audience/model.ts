/**
 * The audience feature's model: topics, segments and contacts as the API shows them, the
 * subscription and visibility values, the contact limits, and what the create and update routes
 * take; the record and input types are derived from these schemas. The stored items (ContactItem,
 * TopicItem) stay with the logic that writes them.
 */
import * as z from 'zod/mini';
import { BARE_ADDRESS, MAX_ADDRESS_LENGTH, nameProblem } from '../platform/mail/addresses';
import { dynamoNumber, headerSafe, id, timestamp } from '../platform/http/schemas';

// Topics

export const SUBSCRIPTIONS = ['opt_in', 'opt_out'] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];
export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const topicName = /* @__PURE__ */ (() => z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))();
const topicDescription = /* @__PURE__ */ (() => z.nullable(z.string().check(z.trim(), z.maxLength(1000))))();

export const topic = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('topic'),
    id,
    name: z.string(),
    description: z.nullable(z.string()),
    default_subscription: z.enum(SUBSCRIPTIONS),
    visibility: z.enum(VISIBILITIES),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type Topic = z.output<typeof topic>;

export const createTopicBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: topicName,
    description: z.optional(topicDescription),
    default_subscription: z.enum(SUBSCRIPTIONS),
    visibility: z.optional(z.enum(VISIBILITIES)),
  }))();
export type CreateTopicInput = z.output<typeof createTopicBody>;

const fixed = /* @__PURE__ */ (() =>
  z
    .unknown()
    .check(
      z.refine(() => false, 'default_subscription is fixed when the topic is created; create a new topic instead'),
    ))();
export const updateTopicBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      id: z.optional(id),
      name: z.optional(topicName),
      description: z.optional(topicDescription),
      visibility: z.optional(z.enum(VISIBILITIES)),
      default_subscription: z.optional(fixed),
    })
    .check(
      z.refine((b) => b.name !== undefined || b.description !== undefined || b.visibility !== undefined, {
        message: 'give at least one of name, description, visibility',
      }),
    ))();
export type UpdateTopicInput = z.output<typeof updateTopicBody>;

// Segments

export const segment = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('segment'), id, name: z.string(), created_at: timestamp }))();
export type SegmentRecord = z.output<typeof segment>;

/** What POST /segments and PATCH /segments/{segment_id} take. */
export const segmentBody = /* @__PURE__ */ (() =>
  z.strictObject({ name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)) }))();

// Contacts

/**
 * Limits of a contact. Deleting a contact removes its email claim and every membership in one
 * transaction, and a PATCH that replaces all its segments removes and adds memberships (with a
 * ConditionCheck per added segment) and checks every topic in the body, also in one transaction:
 * 3 + 25 + 2 x 25 + 20 = 98 actions, under DynamoDB's 100.
 */
export const MAX_SEGMENTS_PER_CONTACT = 25;
export const MAX_TOPICS_PER_REQUEST = 20;
export const MAX_PROPERTIES = 50;
export const MAX_PROPERTY_VALUE_LENGTH = 2000;
/** Property keys are usable as template variables (`{{{plan}}}`): letters, digits and `_`, not starting with a digit. */
export const PROPERTY_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export type PropertyValue = string | number | boolean | null;

/** A contact's address, as every body that names a contact by address takes it. */
export const contactEmail = /* @__PURE__ */ (() =>
  z.string().check(z.trim(), z.maxLength(MAX_ADDRESS_LENGTH), z.regex(BARE_ADDRESS, 'must be an email address')))();
// names render into broadcast subjects ({{{FIRST_NAME}}}): no line breaks or control characters,
// no bidi controls and no look-alikes of @ < > . (shared/platform/mail/addresses.ts, nameProblem)
const personName = /* @__PURE__ */ (() =>
  z.nullable(
    z.string().check(
      z.trim(),
      z.maxLength(256),
      headerSafe,
      z.superRefine((value, ctx) => {
        const problem = nameProblem(value);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
      }),
    ),
  ))();
const propertyValue = /* @__PURE__ */ (() =>
  z.nullable(z.union([z.string().check(z.maxLength(MAX_PROPERTY_VALUE_LENGTH)), dynamoNumber, z.boolean()])))();
const properties = /* @__PURE__ */ (() =>
  z
    .record(
      z
        .string()
        .check(z.regex(PROPERTY_KEY, 'property names are 1-64 letters, digits or _, not starting with a digit')),
      propertyValue,
    )
    .check(z.refine((p) => Object.keys(p).length <= MAX_PROPERTIES, `at most ${MAX_PROPERTIES} properties`)))();

/** No id twice in one list: the issue names the second occurrence. */
const uniqueIds = <T>(idOf: (item: T) => string, pathOf: (i: number, item: T) => (string | number)[]) =>
  z.superRefine<T[]>((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      const value = idOf(item);
      if (seen.has(value))
        ctx.addIssue({ code: 'custom', message: `${value} is listed twice`, path: pathOf(i, item), input: item });
      seen.add(value);
    });
  });

/** `[{id}]` as the contract says, or plain id strings, as the Resend SDK sends in places. */
export type SegmentRef = string | { id: string };
export const segmentRefId = (ref: SegmentRef): string => (typeof ref === 'string' ? ref : ref.id);
/** Where a reference sits in the body, for the 422 that names an unknown one. */
export const segmentRefPath = (i: number, ref: SegmentRef): string =>
  typeof ref === 'string' ? `segments.${i}` : `segments.${i}.id`;
const segments = /* @__PURE__ */ (() =>
  z.array(z.union([id, z.strictObject({ id })])).check(
    z.maxLength(MAX_SEGMENTS_PER_CONTACT),
    uniqueIds<SegmentRef>(segmentRefId, (i, ref) => (typeof ref === 'string' ? [i] : [i, 'id'])),
  ))();

const topicSubscription = /* @__PURE__ */ (() => z.strictObject({ id, subscription: z.enum(SUBSCRIPTIONS) }))();
export type TopicSubscription = z.output<typeof topicSubscription>;
const topics = /* @__PURE__ */ (() =>
  z.array(topicSubscription).check(
    z.maxLength(MAX_TOPICS_PER_REQUEST),
    uniqueIds<TopicSubscription>(
      (t) => t.id,
      (i) => [i, 'id'],
    ),
  ))();

const contactFields = /* @__PURE__ */ (() => ({
  email: contactEmail,
  first_name: z.optional(personName),
  last_name: z.optional(personName),
  unsubscribed: z.optional(z.boolean()),
  properties: z.optional(properties),
  segments: z.optional(segments),
  topics: z.optional(topics),
}))();

export const contact = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('contact'),
    id,
    email: z.string(),
    first_name: z.nullable(z.string()),
    last_name: z.nullable(z.string()),
    unsubscribed: z.boolean(),
    properties: z.record(z.string(), propertyValue),
    segment_ids: z.array(id),
    topics: z.array(z.object({ id, subscription: z.enum(SUBSCRIPTIONS) })),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type Contact = z.output<typeof contact>;

export const contactTopic = /* @__PURE__ */ (() =>
  z.object({
    id,
    name: z.string(),
    description: z.nullable(z.string()),
    subscription: z.enum(SUBSCRIPTIONS),
  }))();
export type ContactTopic = z.output<typeof contactTopic>;

export const createContactBody = /* @__PURE__ */ (() => z.strictObject(contactFields))();
export type CreateContactInput = z.output<typeof createContactBody>;
export const updateContactBody = /* @__PURE__ */ (() => z.strictObject(contactFields))();
export type UpdateContactInput = z.output<typeof updateContactBody>;

// The SDK's bare array is read as `{topics: [...]}`, so a 422 names `topics.0.id` in either form (the SDK's own field name).
export const updateContactTopicsBody = /* @__PURE__ */ (() =>
  z.pipe(
    z.transform((input: unknown) => (Array.isArray(input) ? { topics: input } : input)),
    z.strictObject({ topics }),
  ))();
export type UpdateContactTopicsInput = z.output<typeof updateContactTopicsBody>;

/** A contact's membership of a segment, as POST and DELETE /contacts/{contact_id}/segments/{segment_id} answer it. */
export const membership = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('contact_segment'), id, contact_id: id, segment_id: id }))();

// Contact properties (the project's schema of `properties`: shared/audience/contact-properties.ts)

export const PROPERTY_TYPES = ['string', 'number'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

const propertyKey = /* @__PURE__ */ (() =>
  z.string().check(z.regex(PROPERTY_KEY, 'property keys are 1-64 letters, digits or _, not starting with a digit')))();
const fallbackValue = /* @__PURE__ */ (() =>
  z.nullable(z.union([z.string().check(z.maxLength(MAX_PROPERTY_VALUE_LENGTH)), dynamoNumber])))();

export const contactProperty = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('contact_property'),
    id,
    key: z.string(),
    type: z.enum(PROPERTY_TYPES),
    fallback_value: z.nullable(z.union([z.string(), z.number()])),
    created_at: timestamp,
  }))();
export type ContactPropertyRecord = z.output<typeof contactProperty>;

/** What POST /contact-properties takes (the Resend SDK's `contactProperties.create`); `fallback_value` must be of `type`. */
export const createContactPropertyBody = /* @__PURE__ */ (() =>
  z.strictObject({ key: propertyKey, type: z.enum(PROPERTY_TYPES), fallback_value: z.optional(fallbackValue) }).check(
    z.refine((b) => b.fallback_value === undefined || b.fallback_value === null || typeof b.fallback_value === b.type, {
      message: 'must be of the property type',
      path: ['fallback_value'],
    }),
  ))();
export type CreateContactPropertyInput = z.output<typeof createContactPropertyBody>;

/** What PATCH /contact-properties/{id} takes: only the fallback (`key` and `type` are fixed; the SDK sends only `fallback_value`). */
export const updateContactPropertyBody = /* @__PURE__ */ (() =>
  z.strictObject({ fallback_value: z.optional(fallbackValue) }))();
export type UpdateContactPropertyInput = z.output<typeof updateContactPropertyBody>;

/** A contact's value as Resend's contact reads show it: `{type, value}` (`boolean` only in projects without a schema). */
export const typedPropertyValue = /* @__PURE__ */ (() =>
  z.object({
    type: z.enum(['string', 'number', 'boolean']),
    value: z.union([z.string(), z.number(), z.boolean()]),
  }))();

/** How contact reads show `properties`: Resend's `{key: {type, value}}` (the default) or the plain `{key: value}` that writes take. */
export const PROPERTIES_FORMATS = ['resend', 'plain'] as const;
export type PropertiesFormat = (typeof PROPERTIES_FORMATS)[number];
