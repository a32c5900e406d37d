/**
 * Topics: what a contact can subscribe to or opt out of (a newsletter, product updates). A
 * contact's effective subscription is its explicit one (the contact item's `topics` map), else
 * the topic's `default_subscription`, which is fixed when the topic is created. Broadcasts with a
 * topic skip contacts whose effective subscription is `opt_out`.
 *
 * Deleting a topic leaves the explicit subscriptions in the contacts' maps: readers ignore them,
 * because the topic is gone and ids (UUIDv7) are never reused.
 *
 * Events (Resend's types) go in the transaction of their change, with the topic as GET
 * /topics/{id} shows it: `topic.created`, `topic.updated` (after the change) and `topic.deleted`
 * (as it was). Update and delete read the topic first (one GetItem, DESIGN.md's one read before
 * the write) because the event needs the whole topic and a transaction returns no item.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { eventWrite } from '../events/events';
import { del, getItem, put, queryPage, transact, update, type Item, type PageRequest } from '../platform/db/table';
import { unprocessable, notFound } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import type { CreateTopicInput, Topic, UpdateTopicInput } from './model';

export interface TopicItem extends Omit<Topic, 'object'> {
  type: 'topic';
  project_id: string;
}

export const toTopic = (item: Item): Topic => ({
  object: 'topic',
  id: item.id,
  name: item.name,
  description: item.description ?? null,
  default_subscription: item.default_subscription,
  visibility: item.visibility,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

const missing = () => notFound('Topic', 'topic_id');

export async function createTopic(caller: Caller, input: CreateTopicInput): Promise<Topic> {
  const now = nowIso();
  const item: TopicItem = {
    type: 'topic',
    project_id: caller.projectId,
    id: newId(),
    name: input.name,
    description: input.description ?? null,
    default_subscription: input.default_subscription,
    visibility: input.visibility ?? 'private',
    created_at: now,
    updated_at: now,
  };
  await transact([
    put({ ...keys.topic(caller.projectId, item.id), ...item }),
    eventWrite(caller, 'topic.created', toTopic(item)),
  ]);
  return toTopic(item);
}

async function readTopic(caller: Caller, topicId: string): Promise<Item> {
  const item = await getItem(keys.topic(caller.projectId, topicId));
  if (!item) throw missing();
  return item;
}

export const getTopic = async (caller: Caller, topicId: string): Promise<Topic> =>
  toTopic(await readTopic(caller, topicId));

export async function listTopics(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.topics(caller.projectId), page);
  return { records: items.map(toTopic), hasMore };
}

/** Name, description and visibility; `default_subscription` is fixed (the schema refuses it). */
export async function updateTopic(caller: Caller, topicId: string, input: UpdateTopicInput): Promise<Topic> {
  if (input.id !== undefined && input.id !== topicId) {
    throw unprocessable([{ code: 'id_mismatch', message: 'must be the id in the path', path: 'id' }]);
  }
  const item = await readTopic(caller, topicId);
  const set: Item = { updated_at: nowIso() };
  if (input.name !== undefined) set.name = input.name;
  if (input.description !== undefined) set.description = input.description;
  if (input.visibility !== undefined) set.visibility = input.visibility;
  const topic = toTopic({ ...item, ...set });
  await transact([
    update(keys.topic(caller.projectId, topicId), { set, condition: { expression: 'attribute_exists(PK)' } }, missing), // deleted since the read: 404
    eventWrite(caller, 'topic.updated', topic),
  ]);
  return topic;
}

/** Deletes the topic with `topic.deleted` (the topic as it was read). */
export async function deleteTopic(caller: Caller, topicId: string): Promise<void> {
  const item = await readTopic(caller, topicId);
  await transact([
    del(keys.topic(caller.projectId, topicId), { ifExists: missing }), // a concurrent delete loses here: 404, one event
    eventWrite(caller, 'topic.deleted', toTopic(item)),
  ]);
}
