/**
 * Resend's flat event fields. Our events keep the contract's envelope (`data.object` holds the
 * resource); `data` also carries, beside `object`, the fields Resend puts in `data`, so a webhook
 * handler written against the `resend` SDK's `WebhookEventPayload` types reads the same paths
 * (`data.email_id`, `data.bounce.subType`, `data.click.ipAddress`...). Derived from the resource
 * alone when the event is built (./events.ts), so every event of a type has them.
 *
 * Types Resend does not have (`email.queued`, `api_key.*`, `webhook.endpoint.*`, `project.*`) get
 * none; `email.*` types of ours that Resend lacks (`email.queued`, `email.sending`,
 * `email.canceled`) still get the email fields, which cost nothing to read.
 */
import type { EventType } from './model';

type Fields = Record<string, unknown>;
type Resource = Record<string, any>;

/** `[{name, value}]` (the contract's tags) as Resend's `{name: value}` record. */
const tagRecord = (tags: unknown): Record<string, string> =>
  Array.isArray(tags)
    ? Object.fromEntries(tags.map((tag: { name: string; value: string }) => [tag.name, tag.value]))
    : {};

/** `"Acme <hi@acme.dev>"` -> `hi@acme.dev` */
const bareAddress = (address: unknown): string => {
  const text = String(address ?? '');
  return /<([^<>]+)>\s*$/.exec(text)?.[1] ?? text.trim();
};

function sentEmailFields(type: EventType, email: Resource): Fields {
  const fields: Fields = {
    email_id: email.id,
    created_at: email.created_at,
    from: email.from,
    to: email.to,
    subject: email.subject,
    message_id: email.message_id ?? null,
    tags: tagRecord(email.tags),
    ...(email.broadcast_id ? { broadcast_id: email.broadcast_id } : {}),
    ...(email.template_id ? { template_id: email.template_id } : {}),
  };
  if (type === 'email.bounced' && email.bounce) {
    const diagnostic = email.bounce.recipients?.find((r: Resource) => r.diagnosticCode)?.diagnosticCode;
    fields.bounce = {
      type: email.bounce.type,
      subType: email.bounce.subtype,
      message: diagnostic ?? `${email.bounce.type} bounce (${email.bounce.subtype})`,
    };
  }
  if (type === 'email.clicked' && email.click) {
    fields.click = {
      ipAddress: email.click.ip_address ?? null,
      link: email.click.link,
      timestamp: email.click.timestamp,
      userAgent: email.click.user_agent ?? null,
    };
  }
  if (type === 'email.failed') fields.failed = { reason: email.failure_reason ?? email.failure?.reason ?? 'unknown' };
  if (type === 'email.suppressed' && email.suppressed)
    fields.suppressed = { type: email.suppressed.reason, message: email.suppressed.message };
  return fields;
}

function receivedEmailFields(email: Resource): Fields {
  return {
    email_id: email.id,
    created_at: email.created_at,
    from: bareAddress(email.from),
    to: email.to,
    cc: email.cc,
    bcc: email.bcc,
    received_for: email.received_for,
    message_id: email.message_id,
    subject: email.subject,
    attachments: (email.attachments ?? []).map((a: Resource) => ({
      id: a.id,
      filename: a.filename,
      content_type: a.content_type,
      content_disposition: a.content_disposition,
      content_id: a.content_id,
    })),
  };
}

const domainFields = (domain: Resource): Fields => ({
  id: domain.id,
  name: domain.name,
  status: domain.status,
  created_at: domain.created_at,
  region: domain.region,
  records: domain.records,
});

/**
 * `contact.*`: Resend's ContactEventData. Audiences are segments here, so `audience_id` is the
 * first of the contact's `segment_ids`, null when it is in no segment.
 */
const contactFields = (contact: Resource): Fields => ({
  id: contact.id,
  audience_id: contact.segment_ids?.[0] ?? null,
  segment_ids: contact.segment_ids ?? [],
  created_at: contact.created_at,
  updated_at: contact.updated_at,
  email: contact.email,
  first_name: contact.first_name ?? null,
  last_name: contact.last_name ?? null,
  unsubscribed: contact.unsubscribed ?? false,
});

/**
 * `contact.topics.updated`: Resend lists the topics changed in this update with their new
 * subscription. The contact alone cannot tell which changed, so its writer adds them to the object
 * as `updated_topics` (shared/audience/contacts.ts); without them, all its explicit subscriptions.
 */
const contactTopicsFields = (contact: Resource): Fields => ({
  email: contact.email,
  topics: (contact.updated_topics ?? contact.topics ?? []).map((t: Resource) => ({
    id: t.id,
    subscription: t.subscription,
  })),
});

/** `suppression.*`: our `source` is Resend's `origin`; `source_id` the email that bounced or complained, null for a manual entry. */
const suppressionFields = (suppression: Resource): Fields => ({
  id: suppression.id,
  email: suppression.email,
  origin: suppression.source,
  source_id: suppression.message_id ?? null,
  created_at: suppression.created_at,
});

/** `topic.*`: Resend's TopicEventData; `deleted` only on topic.deleted (the object is the topic as it was). */
const topicFields = (type: EventType, topic: Resource): Fields => ({
  id: topic.id,
  name: topic.name,
  description: topic.description ?? null,
  default_subscription: topic.default_subscription,
  deleted: type === 'topic.deleted',
  created_at: topic.created_at,
  updated_at: topic.updated_at,
});

/** The flat fields of an event of `type` about `object` (none for types Resend does not have). */
export function resendFields(type: EventType, object: object): Fields {
  const resource = object as Resource;
  if (type === 'email.received' || type === 'email.stored') return receivedEmailFields(resource);
  if (type.startsWith('email.')) return sentEmailFields(type, resource);
  if (type.startsWith('domain.')) return domainFields(resource);
  if (type === 'contact.topics.updated') return contactTopicsFields(resource);
  if (type.startsWith('contact.')) return contactFields(resource);
  if (type.startsWith('suppression.')) return suppressionFields(resource);
  if (type.startsWith('topic.')) return topicFields(type, resource);
  return {};
}
