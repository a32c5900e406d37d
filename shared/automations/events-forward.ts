/**
 * Which platform events reach the automations, and as what. The outbox's stream consumer (the
 * webhook fan-out, functions/workers/webhook-fanout.ts: a table's stream takes at most two
 * readers, and the segment cleanup is the other) hands each inserted event here; those that can
 * start or resume a run go onto the `automation-events` queue, one message per event and contact,
 * for the matcher (./engine.ts `matchEvent`). Every other event costs nothing more.
 *
 * - `custom_event.sent` (POST /events/send): its name, contact and payload.
 * - System events, named `resend:<type>`, for the contact whose address it is (an address that is
 *   no contact of the project starts nothing): `email.delivered`, `email.opened`, `email.clicked`,
 *   `email.bounced` (each `to` address of the email), `email.received` (its sender),
 *   `contact.created` (the contact), and only those a project's automations have named
 *   (`withoutUnused`: one read per project and stream batch), so mail of a project that uses none
 *   costs no message, invocation or read here. Their payload (`event.*` in steps) is the event's Resend
 *   fields: `email_id`, `from`, `to` (the contact's address), `subject`, ...
 */
import { queue } from '../platform/aws/queues';
import * as keys from '../platform/db/keys';
import { getItem } from '../platform/db/table';
import { bareAddress } from '../emails/record';
import type { AutomationEvent } from './engine';
import { SYSTEM_EVENT_PREFIX } from './model';

/** `enqueue` resolves with the messages SQS did not take: the stream consumer reports their events as failed. */
export const automationEventQueue = /* @__PURE__ */ queue<AutomationEvent>('automation-events', 'return');

/** The platform event types whose events reach the automations. */
export const AUTOMATION_EVENT_TYPES = [
  'custom_event.sent',
  'email.delivered',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.received',
  'contact.created',
] as const;

type Resource = Record<string, unknown>;

const scalars = (object: Resource): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(object).filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v) || v === null),
  );

/** The automation events of one platform event (none for a type that starts nothing). */
export function automationEventsOf(event: {
  projectId: string;
  livemode: boolean;
  id: string;
  type: string;
  createdAt: string;
  object: Resource;
}): AutomationEvent[] {
  const base = { project_id: event.projectId, livemode: event.livemode, id: event.id, created_at: event.createdAt };
  const object = event.object;
  if (event.type === 'custom_event.sent')
    return [
      {
        ...base,
        name: String(object.event),
        contact_id: String(object.contact_id),
        payload: (object.payload as Record<string, unknown>) ?? {},
      },
    ];
  const name = `${SYSTEM_EVENT_PREFIX}${event.type}`;
  if (event.type === 'contact.created')
    return [{ ...base, name, contact_id: String(object.id), payload: { contact_id: object.id, email: object.email } }];
  if (event.type === 'email.received') {
    const from = bareAddress(String(object.from ?? '')).toLowerCase();
    return from ? [{ ...base, name, email: from, payload: { ...scalars(object), email_id: object.id, from } }] : [];
  }
  if (!(AUTOMATION_EVENT_TYPES as readonly string[]).includes(event.type)) return [];
  const to = Array.isArray(object.to) ? object.to.map((a) => bareAddress(String(a)).toLowerCase()) : [];
  return [...new Set(to)].map((address) => ({
    ...base,
    name,
    email: address,
    payload: { ...scalars(object), email_id: object.id, to: address },
  }));
}

/**
 * The events without the system events no automation of their project has named (the project's
 * set, keys.ts `automationSystemEvents`: read once per project, eventually consistent: an
 * automation saved in the last moment may miss an event or two, as one saved a moment later would).
 */
export async function withoutUnused<T extends { message: AutomationEvent }>(events: T[]): Promise<T[]> {
  const projects = [
    ...new Set(events.filter((e) => e.message.name.startsWith(SYSTEM_EVENT_PREFIX)).map((e) => e.message.project_id)),
  ];
  if (!projects.length) return events;
  const inUse = new Map(
    await Promise.all(
      projects.map(async (projectId) => {
        const item = await getItem(keys.automationSystemEvents(projectId), false);
        return [projectId, new Set<string>(item?.names ?? [])] as const;
      }),
    ),
  );
  return events.filter(
    (e) => !e.message.name.startsWith(SYSTEM_EVENT_PREFIX) || inUse.get(e.message.project_id)?.has(e.message.name),
  );
}
