/**
 * Contacts: the people a project mails, with their segments and topic subscriptions.
 *
 * Items (keys in shared/platform/db/keys.ts; the broadcast fan-out reads them, so the attribute names
 * are fixed):
 * - the contact (`CONTACT#<id>`): `email` as given (trimmed), `first_name`, `last_name`,
 *   `unsubscribed`, `properties`, `segment_ids` (its segments) and `topics` (topic id ->
 *   `opt_in`/`opt_out`, explicit choices only; the effective subscription falls back to the
 *   topic's `default_subscription`);
 * - the email claim (`CONTACT_EMAIL#<lower-cased address>` -> `contact_id`): one contact per
 *   address per project, put with attribute_not_exists in the contact's own transaction, moved in
 *   the same transaction when a PATCH changes the address;
 * - one segment member item per segment (`PROJECT#<pid>#SEGMENT#<sid>` / `CONTACT#<cid>`), written
 *   and deleted in the same transaction as the change to `segment_ids`, with a ConditionCheck
 *   that an added segment exists.
 *
 * `properties` are checked against the project's schema (shared/audience/contact-properties.ts) when
 * it has one: create and PATCH read it beside their other reads, and only when the body has values.
 *
 * Every change is one transaction. Changes that depend on what was read (the segment diff, the
 * address move, deletion of the memberships) carry a condition that `segment_ids` and `email`
 * are still what was read, and are re-read and retried when they are not. Other fields are
 * written attribute by attribute (properties and topics key by key), so a concurrent change of
 * another field, such as an unsubscribe, is never overwritten with an old value.
 *
 * After a crash in the middle of a segment deletion (shared/audience/segments.ts), a contact may still
 * list the deleted segment in `segment_ids`; GET /contacts/{id}/segments shows only segments
 * that exist, and a later change of the contact's segments drops the id.
 *
 * Events (Resend's types), each in the transaction of its change, with the contact as GET
 * /contacts/{id} shows it after the change (before it, for a deletion):
 * - `contact.created` by POST /contacts; `contact.deleted` by DELETE;
 * - `contact.updated` by every PATCH /contacts/{id}, and by adding the contact to a segment or
 *   taking it out of one (its `segment_ids` are part of the contact, and of Resend's payload);
 *   adding it to a segment it is already in changes nothing and emits nothing;
 * - `contact.topics.updated` when its topic subscriptions are set: by PATCH /contacts/{id}/topics
 *   (only this event: the route is Resend's for exactly this change), and by a PATCH
 *   /contacts/{id} whose body has `topics` (beside its `contact.updated`), so a subscriber hears
 *   of every subscription change whichever route made it. Its object carries, beside the
 *   contact, `updated_topics`: the subscriptions this request set (Resend's `data.topics`).
 * The one-click unsubscribe (shared/broadcasts/unsubscribe.ts) writes `contact.updated` or
 * `contact.topics.updated` itself. Not emitted: a segment deletion dropping its id from
 * `segment_ids` (shared/audience/segments.ts).
 *
 * An event item holds the whole contact, `properties` included: at most MAX_PROPERTIES values of
 * MAX_PROPERTY_VALUE_LENGTH characters (about 100 KB), like the contact item itself, so it stays
 * within an item's 400 KB and a PATCH with its two events far within a transaction's 4 MB.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  checkExists,
  del,
  getItem,
  isConditionFailed,
  isTransactionConflict,
  put,
  queryPage,
  transact,
  type Item,
  type Page,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { contactCountWrite, contactLimitReached, contactRoom } from '../project/contact-count';
import { eventWrite } from '../events/events';
import { conflict, notFound, unprocessable } from '../platform/errors';
import { newId, nowIso, UUID_PATTERN } from '../platform/ids';
import { pageOf } from '../platform/list-page';
import {
  MAX_PROPERTIES,
  MAX_SEGMENTS_PER_CONTACT,
  segmentRefId,
  segmentRefPath,
  type Contact,
  type ContactTopic,
  type CreateContactInput,
  type PropertyValue,
  type SegmentRecord,
  type Subscription,
  type TopicSubscription,
  type UpdateContactInput,
  type UpdateContactTopicsInput,
} from './model';
import { checkPropertyValues, readPropertySchema } from './contact-properties';
import { toSegmentRecord } from './segments';
import { toTopic } from './topics';

export interface ContactItem {
  type: 'contact';
  project_id: string;
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  properties: Record<string, PropertyValue>;
  segment_ids: string[];
  topics: Record<string, Subscription>;
  created_at: string;
  updated_at: string;
}

export const toContact = (item: ContactItem): Contact => ({
  object: 'contact',
  id: item.id,
  email: item.email,
  first_name: item.first_name ?? null,
  last_name: item.last_name ?? null,
  unsubscribed: item.unsubscribed ?? false,
  properties: item.properties ?? {},
  segment_ids: item.segment_ids ?? [],
  topics: Object.entries(item.topics ?? {})
    .sort(([a], [b]) => a.localeCompare(b)) // topic ids are UUIDv7: oldest topic first
    .map(([id, subscription]) => ({ id, subscription })),
  created_at: item.created_at,
  updated_at: item.updated_at,
});

const missing = () => notFound('Contact', 'contact_id');
const emailTaken = (email: string) =>
  conflict('contact_exists', `A contact with the address ${email} already exists`, 'email');
const unknownReference = (what: 'segment' | 'topic', path: string) =>
  unprocessable([{ code: `unknown_${what}`, message: `no ${what} with this id in this project`, path }]);
/** The failed condition of a contact's write: it was deleted, or its segments or address changed, between our read and our write. */
const changed = { tag: 'contact changed' };

/** Runs a read-then-write step again when the contact changed in between, or a concurrent transaction got in the way (five tries). */
async function retrying<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    try {
      return await step();
    } catch (error) {
      if (!isConditionFailed(error, changed.tag) && !isTransactionConflict(error)) throw error;
    }
  }
  throw conflict('concurrent_update', 'The contact kept changing during the request; try again');
}

/** The contact for an id (UUID) or an address (any case); undefined when there is none in this project. */
export async function findContact(projectId: string, idOrEmail: string): Promise<ContactItem | undefined> {
  if (UUID_PATTERN.test(idOrEmail)) return getItem<ContactItem & Item>(keys.contact(projectId, idOrEmail));
  const claim = await getItem(keys.contactEmail(projectId, idOrEmail.trim()));
  return claim ? getItem<ContactItem & Item>(keys.contact(projectId, claim.contact_id)) : undefined;
}

async function readContact(projectId: string, idOrEmail: string): Promise<ContactItem> {
  const item = await findContact(projectId, idOrEmail);
  if (!item) throw missing();
  return item;
}

export const emailClaim = (projectId: string, contactId: string, email: string) => ({
  ...keys.contactEmail(projectId, email),
  type: 'contact_email',
  project_id: projectId,
  contact_id: contactId,
});

export const member = (projectId: string, segmentId: string, contactId: string) => ({
  ...keys.segmentMember(projectId, segmentId, contactId),
  type: 'segment_member',
  project_id: projectId,
  segment_id: segmentId,
  contact_id: contactId,
});

/** A ConditionCheck per topic of the body: an unknown one is 422 naming `<prefix><index>.id`. */
const topicChecks = (projectId: string, topics: TopicSubscription[], prefix: string): WriteAction[] =>
  topics.map((t, i) => checkExists(keys.topic(projectId, t.id), () => unknownReference('topic', `${prefix}${i}.id`)));

export interface ContactChange {
  /** whole attributes to set */
  set: Partial<ContactItem>;
  /** properties to set, key by key */
  properties?: Record<string, PropertyValue>;
  /** explicit subscriptions to set, topic by topic */
  topics?: Record<string, Subscription>;
  /** the values read that the change depends on: it fails (`changed`) when they are no longer so */
  expect?: Partial<Pick<ContactItem, 'segment_ids' | 'email'>>;
}

/** The UpdateItem of a contact: only the given attributes, map entries by their path. */
export function contactUpdate(projectId: string, contactId: string, change: ContactChange): WriteAction {
  const names: Record<string, string> = {};
  const values: Item = {};
  const sets: string[] = [];
  Object.entries(change.set).forEach(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    sets.push(`#a${i} = :a${i}`);
  });
  for (const [map, entries, tag] of [
    ['properties', change.properties, 'p'],
    ['topics', change.topics, 't'],
  ] as const) {
    if (!entries || Object.keys(entries).length === 0) continue; // an unused name would fail the request
    names[`#${map}`] = map;
    Object.entries(entries).forEach(([key, value], i) => {
      names[`#${tag}${i}`] = key;
      values[`:${tag}${i}`] = value;
      sets.push(`#${map}.#${tag}${i} = :${tag}${i}`);
    });
  }
  const conditions = ['attribute_exists(PK)'];
  Object.entries(change.expect ?? {}).forEach(([name, value], i) => {
    names[`#e${i}`] = name;
    values[`:e${i}`] = value;
    conditions.push(`#e${i} = :e${i}`);
  });
  return {
    kind: 'Update',
    params: {
      Key: keys.contact(projectId, contactId),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    onConditionFailed: changed,
  };
}

/** A write with property values to check against the project's schema (shared/audience/contact-properties.ts). */
const hasProperties = (
  properties: Record<string, PropertyValue> | undefined,
): properties is Record<string, PropertyValue> => properties !== undefined && Object.keys(properties).length > 0;

const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** `contact.topics.updated`: the contact, and the subscriptions the request set (Resend lists only those). */
export const topicsUpdatedEvent = (
  caller: Pick<Caller, 'projectId' | 'livemode'>,
  contact: Contact,
  set: TopicSubscription[],
): WriteAction =>
  eventWrite(caller, 'contact.topics.updated', {
    ...contact,
    updated_topics: set.map(({ id, subscription }) => ({ id, subscription })),
  });

export async function createContact(caller: Caller, input: CreateContactInput): Promise<Contact> {
  const projectId = caller.projectId;
  const now = nowIso();
  const segments = input.segments ?? [];
  const topics = input.topics ?? [];
  const item: ContactItem = {
    type: 'contact',
    project_id: projectId,
    id: newId(),
    email: input.email,
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    unsubscribed: input.unsubscribed ?? false,
    properties: input.properties ?? {},
    segment_ids: segments.map(segmentRefId),
    topics: Object.fromEntries(topics.map((t) => [t.id, t.subscription])),
    created_at: now,
    updated_at: now,
  };
  // the project's property schema is the one read before the write, and only when there are values to check;
  // it and the contact counters are read side by side (one round trip of waiting, not two)
  const [schema, { limit, room }] = await Promise.all([
    hasProperties(input.properties) ? readPropertySchema(projectId) : undefined,
    contactRoom(projectId),
  ]);
  if (schema) checkPropertyValues(schema, input.properties!);
  if (room < 1) throw contactLimitReached(limit);
  await transact([
    ...segments.map((ref, i) =>
      checkExists(keys.segment(projectId, segmentRefId(ref)), () =>
        unknownReference('segment', segmentRefPath(i, ref)),
      ),
    ),
    ...topicChecks(projectId, topics, 'topics.'),
    put({ ...keys.contact(projectId, item.id), ...item }),
    put(emailClaim(projectId, item.id, item.email), { ifAbsent: () => emailTaken(item.email) }),
    ...item.segment_ids.map((segmentId) => put(member(projectId, segmentId, item.id))),
    eventWrite(caller, 'contact.created', toContact(item)),
    contactCountWrite(projectId, 1), // GET /usage (./contact-count.ts)
  ]);
  return toContact(item);
}

export async function getContact(caller: Caller, idOrEmail: string): Promise<Contact> {
  return toContact(await readContact(caller.projectId, idOrEmail));
}

/** GET /contacts: every contact, or with `segment_id` the segment's members; newest first. */
export async function listContacts(
  caller: Caller,
  page: PageRequest & { segment_id?: string },
): Promise<Page<Contact>> {
  if (page.segment_id) return listSegmentContacts(caller, page.segment_id, page);
  const { items, hasMore } = await queryPage<ContactItem & Item>(keys.contacts(caller.projectId), page);
  return { items: items.map(toContact), hasMore };
}

/** A page of the segment's member partition (Query), then its contacts (BatchGet), in member order. */
export async function listSegmentContacts(
  caller: Caller,
  segmentId: string,
  page: PageRequest,
): Promise<Page<Contact>> {
  const projectId = caller.projectId;
  const [segment, members] = await Promise.all([
    getItem(keys.segment(projectId, segmentId)),
    queryPage(keys.segmentMembers(projectId, segmentId), page),
  ]);
  if (!segment) throw notFound('Segment', 'segment_id');
  const found = await batchGet<ContactItem & Item>(members.items.map((m) => keys.contact(projectId, m.contact_id)));
  const byId = new Map(found.map((c) => [c.id, c]));
  const items = members.items.flatMap((m) => (byId.has(m.contact_id) ? [toContact(byId.get(m.contact_id)!)] : []));
  return { items, hasMore: members.hasMore };
}

/**
 * PATCH /contacts/{id_or_email}. `email` is required (the contract); fields left out stay.
 * `properties` merge key by key, `segments` replaces the contact's segments, `topics` sets the
 * listed subscriptions. One transaction: the contact, the address claim when the address changes
 * (not when only its case does), the memberships of the segment diff with a ConditionCheck per
 * added segment, a ConditionCheck per topic, and the events (`contact.updated`, and
 * `contact.topics.updated` with `topics`): at most 98 + 2 = 100 actions (the arithmetic of
 * MAX_SEGMENTS_PER_CONTACT in ./model.ts, plus the two events), DynamoDB's limit.
 */
export async function updateContact(caller: Caller, idOrEmail: string, input: UpdateContactInput): Promise<Contact> {
  const projectId = caller.projectId;
  return retrying(async () => {
    // the property schema in the same read round trip as the contact, when there are values to check
    const [current, schema] = await Promise.all([
      readContact(projectId, idOrEmail),
      hasProperties(input.properties) ? readPropertySchema(projectId) : undefined,
    ]);
    if (schema) checkPropertyValues(schema, input.properties);
    const now = nowIso();
    const change: ContactChange = { set: { email: input.email, updated_at: now }, expect: { email: current.email } };
    const next: ContactItem = { ...current, email: input.email, updated_at: now };
    const actions: WriteAction[] = [];

    if (!sameAddress(input.email, current.email)) {
      actions.push(
        del(keys.contactEmail(projectId, current.email), {
          ifUnchanged: { expected: { contact_id: current.id }, onChanged: changed },
        }),
        put(emailClaim(projectId, current.id, input.email), { ifAbsent: () => emailTaken(input.email) }),
      );
    }
    for (const field of ['first_name', 'last_name', 'unsubscribed'] as const) {
      if (input[field] === undefined) continue;
      change.set[field] = input[field] as never;
      next[field] = input[field] as never;
    }
    if (input.properties) {
      next.properties = { ...current.properties, ...input.properties };
      if (Object.keys(next.properties).length > MAX_PROPERTIES) {
        throw unprocessable([
          {
            code: 'too_big',
            message: `a contact has at most ${MAX_PROPERTIES} properties (${Object.keys(next.properties).length} with these)`,
            path: 'properties',
          },
        ]);
      }
      change.properties = input.properties;
    }
    if (input.topics) {
      change.topics = Object.fromEntries(input.topics.map((t) => [t.id, t.subscription]));
      next.topics = { ...current.topics, ...change.topics };
      actions.push(...topicChecks(projectId, input.topics, 'topics.'));
    }
    if (input.segments) {
      const wanted = input.segments.map(segmentRefId);
      const added = new Set(wanted.filter((id) => !current.segment_ids.includes(id)));
      change.set.segment_ids = wanted;
      change.expect!.segment_ids = current.segment_ids;
      next.segment_ids = wanted;
      input.segments.forEach((ref, i) => {
        const segmentId = segmentRefId(ref);
        if (!added.has(segmentId)) return;
        actions.push(
          checkExists(keys.segment(projectId, segmentId), () => unknownReference('segment', segmentRefPath(i, ref))),
          put(member(projectId, segmentId, current.id)),
        );
      });
      for (const segmentId of current.segment_ids) {
        if (!wanted.includes(segmentId)) actions.push(del(keys.segmentMember(projectId, segmentId, current.id)));
      }
    }
    const contact = toContact(next);
    await transact([
      contactUpdate(projectId, current.id, change),
      ...actions,
      eventWrite(caller, 'contact.updated', contact),
      ...(input.topics ? [topicsUpdatedEvent(caller, contact, input.topics)] : []),
    ]);
    return contact;
  });
}

/** Deletes the contact, its address claim and its memberships in one transaction, with `contact.deleted` (the contact as it was): at most 3 + MAX_SEGMENTS_PER_CONTACT actions. */
export async function deleteContact(caller: Caller, idOrEmail: string): Promise<{ id: string }> {
  const projectId = caller.projectId;
  return retrying(async () => {
    const current = await readContact(projectId, idOrEmail);
    await transact([
      del(keys.contact(projectId, current.id), {
        ifUnchanged: { expected: { email: current.email, segment_ids: current.segment_ids }, onChanged: changed },
      }),
      del(keys.contactEmail(projectId, current.email)),
      ...current.segment_ids.map((segmentId) => del(keys.segmentMember(projectId, segmentId, current.id))),
      eventWrite(caller, 'contact.deleted', toContact(current)),
      contactCountWrite(projectId, -1),
    ]);
    return { id: current.id };
  });
}

export interface Membership {
  object: 'contact_segment';
  id: string;
  contact_id: string;
  segment_id: string;
}

/** Puts the contact in the segment (idempotent): 404 for an unknown segment, 409 past MAX_SEGMENTS_PER_CONTACT. */
export async function addContactToSegment(caller: Caller, idOrEmail: string, segmentId: string): Promise<Membership> {
  const projectId = caller.projectId;
  return retrying(async () => {
    const current = await readContact(projectId, idOrEmail);
    const already = current.segment_ids.includes(segmentId);
    if (!already && current.segment_ids.length >= MAX_SEGMENTS_PER_CONTACT) {
      throw conflict(
        'too_many_segments',
        `A contact can be in at most ${MAX_SEGMENTS_PER_CONTACT} segments`,
        'segment_id',
      );
    }
    const next = { ...current, segment_ids: [...current.segment_ids, segmentId], updated_at: nowIso() };
    await transact([
      checkExists(keys.segment(projectId, segmentId), () => notFound('Segment', 'segment_id')),
      put(member(projectId, segmentId, current.id)),
      // already a member: the contact stays as it is, and there is no change to announce
      ...(already
        ? []
        : [
            contactUpdate(projectId, current.id, {
              set: { segment_ids: next.segment_ids, updated_at: next.updated_at },
              expect: { segment_ids: current.segment_ids },
            }),
            eventWrite(caller, 'contact.updated', toContact(next)),
          ]),
    ]);
    return { object: 'contact_segment', id: segmentId, contact_id: current.id, segment_id: segmentId };
  });
}

/** Takes the contact out of the segment; 404 when it is not in it. The contact stays. */
export async function removeContactFromSegment(
  caller: Caller,
  idOrEmail: string,
  segmentId: string,
): Promise<Membership & { deleted: true }> {
  const projectId = caller.projectId;
  return retrying(async () => {
    const current = await readContact(projectId, idOrEmail);
    if (!current.segment_ids.includes(segmentId)) throw notFound('Segment membership', 'segment_id');
    const next = {
      ...current,
      segment_ids: current.segment_ids.filter((id) => id !== segmentId),
      updated_at: nowIso(),
    };
    await transact([
      contactUpdate(projectId, current.id, {
        set: { segment_ids: next.segment_ids, updated_at: next.updated_at },
        expect: { segment_ids: current.segment_ids },
      }),
      del(keys.segmentMember(projectId, segmentId, current.id)),
      eventWrite(caller, 'contact.updated', toContact(next)),
    ]);
    return { object: 'contact_segment', id: segmentId, contact_id: current.id, segment_id: segmentId, deleted: true };
  });
}

/** The segments the contact is in (one BatchGet of at most MAX_SEGMENTS_PER_CONTACT); ids of deleted segments are dropped. */
export async function listContactSegments(
  caller: Caller,
  idOrEmail: string,
  page: PageRequest,
): Promise<Page<SegmentRecord>> {
  const current = await readContact(caller.projectId, idOrEmail);
  const segments = await batchGet(current.segment_ids.map((segmentId) => keys.segment(caller.projectId, segmentId)));
  return pageOf(segments.map(toSegmentRecord), page);
}

/** Every topic of the project (a page of them) with the contact's effective subscription. */
export async function listContactTopics(
  caller: Caller,
  idOrEmail: string,
  page: PageRequest,
): Promise<Page<ContactTopic>> {
  const [current, topics] = await Promise.all([
    readContact(caller.projectId, idOrEmail),
    queryPage(keys.topics(caller.projectId), page),
  ]);
  return {
    items: topics.items.map(toTopic).map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      subscription: current.topics?.[t.id] ?? t.default_subscription,
    })),
    hasMore: topics.hasMore,
  };
}

/** Sets the listed subscriptions (topic by topic; the others stay); a ConditionCheck per topic, and `contact.topics.updated`. */
export async function updateContactTopics(
  caller: Caller,
  idOrEmail: string,
  input: UpdateContactTopicsInput,
): Promise<Contact> {
  const projectId = caller.projectId;
  return retrying(async () => {
    const current = await readContact(projectId, idOrEmail);
    const topics = Object.fromEntries(input.topics.map((t) => [t.id, t.subscription]));
    const contact = toContact({ ...current, topics: { ...current.topics, ...topics }, updated_at: nowIso() });
    await transact([
      contactUpdate(projectId, current.id, { set: { updated_at: contact.updated_at }, topics }),
      ...topicChecks(projectId, input.topics, 'topics.'),
      topicsUpdatedEvent(caller, contact, input.topics),
    ]);
    return contact;
  });
}
