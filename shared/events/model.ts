/**
 * The events feature's model: every event type of the contract, and the event object as GET /events
 * and webhook payloads show it. Zod and the platform's shared schemas only (no DynamoDB client), so
 * any feature's schema can name the event types.
 */
import * as z from 'zod/mini';
import { API_VERSION } from '../platform/http/api-version';
import { id, timestamp } from '../platform/http/schemas';

export const EVENT_TYPES = [
  'email.queued',
  'email.scheduled',
  'email.sending',
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.canceled',
  'email.suppressed',
  'email.received',
  'email.stored',
  'domain.created',
  'domain.verified',
  'domain.verification_failed',
  'domain.updated',
  'domain.deleted',
  // in the holder's project: another project proved it controls the domain's DNS (shared/domains/claims.ts)
  'domain.claim_started',
  // a kept DMARC report with sources failing DMARC for the domain above DMARC_FAILURE_ALERT_MESSAGES (shared/deliverability/ingest.ts)
  'domain.dmarc_failures',
  // a rule of the domain's compliance check changed status since its last check (shared/deliverability/compliance.ts)
  'domain.compliance_changed',
  // the audience (Resend's types): contacts, their topic subscriptions, topics, the suppression list
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.topics.updated',
  'topic.created',
  'topic.updated',
  'topic.deleted',
  'suppression.added',
  'suppression.removed',
  'api_key.created',
  'api_key.revoked',
  'webhook.endpoint.created',
  'webhook.endpoint.updated',
  'webhook.endpoint.disabled',
  'webhook.endpoint.deleted',
  'project.sending_paused',
  'project.sending_resumed',
  // POST /events/send (shared/automations/custom-events.ts): what starts and resumes automations
  'custom_event.sent',
  // inboxes (shared/inboxes): what a team's own agent acts on, with the inbox's agent settings; and the search index's feed
  'inbox.thread.created',
  'inbox.message.received',
  'inbox.message.sent',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const event = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('event'),
    id,
    type: z.enum(EVENT_TYPES),
    api_version: z.literal(API_VERSION),
    created_at: timestamp,
    livemode: z.boolean(),
    project_id: id,
    // the contract's `object`, and beside it Resend's flat fields for the types Resend has (./resend-fields.ts)
    data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
  }))();

/**
 * An event as stored and sent: the schema's type, except that `data.object` is any object (the
 * resources' interfaces have no index signature, so they would not pass as a record).
 */
export type PlatformEvent = Omit<z.output<typeof event>, 'data'> & {
  data: { object: object } & Record<string, unknown>;
};
