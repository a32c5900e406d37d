/**
 * The `last_event` values the service writes for an email (the API's schema documents a string;
 * GET /emails' `status` takes one): the platform's, with the mail shapes, so the emails model and
 * the console's Emails screen take it from one place (the console without the schemas).
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
