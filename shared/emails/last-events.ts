/**
 * The `last_event` values the service writes (the API's schema documents a string; GET /emails'
 * `status` takes one). A module of its own: the console's Emails screen imports it without the schemas.
 */
export const LAST_EVENTS = [
  'queued',
  'scheduled',
  'sending',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'canceled',
  'suppressed',
] as const;
export type LastEvent = (typeof LAST_EVENTS)[number];
