/**
 * The SES events topic's subscriptions: each queue gets the SES event JSON of every send in an SNS
 * envelope (./sns-envelope.ts), filtered on the message body. One list, read by the stack (it
 * subscribes the queues with these filters: lib/constructs/ses-events.ts), the local SES stand-in
 * (local/aws/ses-events.ts) and the sender's test mode (shared/emails/test-mode-send.ts), the
 * last two putting events on the queues as SNS would. Here rather than in functions/workers.ts so
 * that shared/ can read it; functions/workers.ts re-exports it beside the queues.
 */

export interface SesEventSubscription {
  /** a queue of functions/workers.ts */
  queue: string;
  /** SNS's filter policy on the message body (`FilterPolicyScope: MessageBody`): the event types it lets through */
  bodyFilter?: { eventType: readonly string[] };
}

export const sesEventSubscriptions: readonly SesEventSubscription[] = [
  { queue: 'ses-suppression', bodyFilter: { eventType: ['Bounce', 'Complaint'] } },
  { queue: 'ses-events' },
];

/** The queues SNS delivers this SES event to: every subscription whose body filter it passes (an exact `eventType` match, as SNS's string filter). */
export const subscribedQueues = (event: { eventType?: unknown }): string[] =>
  sesEventSubscriptions
    .filter((s) => !s.bodyFilter || s.bodyFilter.eventType.includes(String(event.eventType)))
    .map((s) => s.queue);
