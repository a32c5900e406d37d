import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, deleted, id, listOf, listQuery, notFoundResponse, timestamp } from '../../platform/http/schemas';

export const SUBSCRIPTIONS = ['opt_in', 'opt_out'] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];
export const VISIBILITIES = ['public', 'private'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const description = z.nullable(z.string().check(z.trim(), z.maxLength(1000)));

export const topic = z.object({
  object: z.literal('topic'),
  id,
  name: z.string(),
  description: z.nullable(z.string()),
  default_subscription: z.enum(SUBSCRIPTIONS),
  visibility: z.enum(VISIBILITIES),
  created_at: timestamp,
  updated_at: timestamp,
});

const topicParams = z.strictObject({ topic_id: id });
const rules =
  "A contact's effective subscription to a topic is its explicit one (`topics` on the contact), else the topic's " +
  '`default_subscription`, which is fixed when the topic is created. Broadcasts with a `topic_id` skip contacts whose ' +
  'effective subscription is `opt_out`.';

export const create = defineOperation({
  operationId: 'createTopic',
  summary: 'Create a topic',
  description: `\`default_subscription\` is required and cannot be changed later; \`visibility\` defaults to \`private\`. ${rules}`,
  tags: ['Topics'],
  auth: 'api_key',
  body: z.strictObject({
    name,
    description: z.optional(description),
    default_subscription: z.enum(SUBSCRIPTIONS),
    visibility: z.optional(z.enum(VISIBILITIES)),
  }),
  responses: { 201: { description: 'The new topic', schema: topic }, ...commonErrors },
});
export type CreateTopicInput = z.output<typeof create.body>;

export const list = defineOperation({
  operationId: 'listTopics',
  summary: 'List topics, newest first',
  tags: ['Topics'],
  auth: 'api_key',
  query: listQuery,
  responses: { 200: { description: 'A page of topics', schema: listOf(topic) }, ...commonErrors },
});

export const get = defineOperation({
  operationId: 'getTopic',
  summary: 'Retrieve a topic',
  tags: ['Topics'],
  auth: 'api_key',
  params: topicParams,
  responses: { 200: { description: 'The topic', schema: topic }, ...commonErrors, 404: notFoundResponse },
});

const fixed = z.unknown().check(z.refine(() => false, 'default_subscription is fixed when the topic is created; create a new topic instead'));

export const update = defineOperation({
  operationId: 'updateTopic',
  summary: 'Update a topic',
  description:
    'At least one of `name`, `description`, `visibility`. `default_subscription` cannot change (422). `id` may be ' + "repeated in the body (the Resend SDK sends it) and must then be the path's id.",
  tags: ['Topics'],
  auth: 'api_key',
  params: topicParams,
  body: z
    .strictObject({
      id: z.optional(id),
      name: z.optional(name),
      description: z.optional(description),
      visibility: z.optional(z.enum(VISIBILITIES)),
      default_subscription: z.optional(fixed),
    })
    .check(
      z.refine((b) => b.name !== undefined || b.description !== undefined || b.visibility !== undefined, {
        message: 'give at least one of name, description, visibility',
      }),
    ),
  responses: { 200: { description: 'The updated topic', schema: topic }, ...commonErrors, 404: notFoundResponse },
});
export type UpdateTopicInput = z.output<typeof update.body>;

export const remove = defineOperation({
  operationId: 'deleteTopic',
  summary: 'Delete a topic',
  description: 'Contacts keep their explicit subscriptions to the deleted topic in their `topics`; they are ignored (the topic is ' + 'gone and its id is never reused). A second delete is 404.',
  tags: ['Topics'],
  auth: 'api_key',
  params: topicParams,
  responses: { 200: { description: 'The topic is gone', schema: deleted('topic') }, ...commonErrors, 404: notFoundResponse },
});
