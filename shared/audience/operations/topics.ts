import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, deleted, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import { createTopicBody, topic, updateTopicBody } from '../model';

const topicParams = /* @__PURE__ */ (() => z.strictObject({ topic_id: id }))();
const rules =
  "A contact's effective subscription to a topic is its explicit one (`topics` on the contact), else the topic's " +
  '`default_subscription`, which is fixed when the topic is created. Broadcasts with a `topic_id` skip contacts whose ' +
  'effective subscription is `opt_out`.';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createTopic',
    summary: 'Create a topic',
    description: `\`default_subscription\` is required and cannot be changed later; \`visibility\` defaults to \`private\`. ${rules}`,
    tags: ['Topics'],
    auth: 'api_key',
    body: createTopicBody,
    responses: { 201: { description: 'The new topic', schema: topic }, ...commonErrors },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listTopics',
    summary: 'List topics, newest first',
    tags: ['Topics'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of topics', schema: listOf(topic) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getTopic',
    summary: 'Retrieve a topic',
    tags: ['Topics'],
    auth: 'api_key',
    params: topicParams,
    responses: { 200: { description: 'The topic', schema: topic }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateTopic',
    summary: 'Update a topic',
    description:
      'At least one of `name`, `description`, `visibility`. `default_subscription` cannot change (422). `id` may be ' +
      "repeated in the body (the Resend SDK sends it) and must then be the path's id.",
    tags: ['Topics'],
    auth: 'api_key',
    params: topicParams,
    body: updateTopicBody,
    responses: { 200: { description: 'The updated topic', schema: topic }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteTopic',
    summary: 'Delete a topic',
    description:
      'Contacts keep their explicit subscriptions to the deleted topic in their `topics`; they are ignored (the topic is ' +
      'gone and its id is never reused). A second delete is 404.',
    tags: ['Topics'],
    auth: 'api_key',
    params: topicParams,
    responses: {
      200: { description: 'The topic is gone', schema: deleted('topic') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
