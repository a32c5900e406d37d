/** Every event type of the contract (a module of its own, so schemas can name them without a DynamoDB client). */
export const EVENT_TYPES = [
  'email.queued', 'email.scheduled', 'email.sending', 'email.sent', 'email.delivered', 'email.delivery_delayed',
  'email.bounced', 'email.complained', 'email.opened', 'email.clicked', 'email.failed', 'email.canceled',
  'email.received', 'email.stored',
  'domain.created', 'domain.verified', 'domain.verification_failed', 'domain.updated', 'domain.deleted',
  'api_key.created', 'api_key.revoked',
  'webhook.endpoint.created', 'webhook.endpoint.updated', 'webhook.endpoint.disabled', 'webhook.endpoint.deleted',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
