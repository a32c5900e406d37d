/**
 * Who may get mail scoped to a topic: the broadcast fan-out's rule (shared/broadcasts/fanout.ts)
 * and a transactional send's `topic_id` (shared/emails/sender.ts) use the same one. A leaf module:
 * the sender bundles it without the audience features.
 */
import * as keys from '../platform/db/keys';
import { batchGet, getItem, type Item } from '../platform/db/table';

/** A contact's effective subscription: its explicit one, else the topic's default. */
export function subscribedTo(contact: Item, topic: Item): boolean {
  const explicit = (contact.topics as Record<string, string> | undefined)?.[topic.id as string];
  return (explicit ?? topic.default_subscription) === 'opt_in';
}

/**
 * The recipients (bare, lower-cased addresses) of an email scoped to `topicId` who must not get
 * it: a contact of the project that opted out of the topic (explicitly, or by the topic's
 * `opt_out` default) or unsubscribed from everything; an address that is no contact follows the
 * topic's default. `undefined` when the topic no longer exists. Two round trips: the topic with the
 * addresses' contact claims, then the contacts.
 */
export async function topicOptOuts(
  projectId: string,
  topicId: string,
  addresses: string[],
): Promise<Set<string> | undefined> {
  const unique = [...new Set(addresses)];
  const [topic, claims] = await Promise.all([
    getItem(keys.topic(projectId, topicId)),
    batchGet(unique.map((address) => keys.contactEmail(projectId, address))),
  ]);
  if (!topic) return undefined;
  const contactOf = new Map(claims.map((claim) => [String(claim.SK), String(claim.contact_id)]));
  const contacts = contactOf.size
    ? await batchGet([...contactOf.values()].map((contactId) => keys.contact(projectId, contactId)))
    : [];
  const byId = new Map(contacts.map((contact) => [String(contact.id), contact]));
  const out = new Set<string>();
  for (const address of unique) {
    const contact = byId.get(contactOf.get(keys.contactEmail(projectId, address).SK) ?? '');
    const gets = contact
      ? !contact.unsubscribed && subscribedTo(contact, topic)
      : topic.default_subscription === 'opt_in';
    if (!gets) out.add(address);
  }
  return out;
}
