/**
 * Platform events as outbox items. A change that has an event type puts `eventWrite(...)` into
 * the SAME transaction as the change, so an event exists exactly when its change committed.
 * The table's stream (filtered to `type = "event"` inserts) drives webhook fan-out later; the
 * item format is fixed here.
 *
 * Item: `{PK, SK, type: "event", project_id, event_type, event: <Event envelope>, expires_at}`.
 * The envelope is stored whole under `event` because the item's own `type` names the entity.
 */
import type { Caller } from '../platform/caller';
import { put, queryPage, type WriteAction } from '../platform/db/table';
import * as keys from '../platform/db/keys';
import { API_VERSION } from '../platform/http/api-version';
import type { EventType, PlatformEvent } from './model';
import { resendFields } from './resend-fields';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { liveProjectId } from '../project/test-mode';

export { API_VERSION } from '../platform/http/api-version';
/** Events are retained 30 days (DynamoDB TTL on `expires_at`). */
export const EVENT_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/**
 * The event as it leaves the service (webhook deliveries, GET /events, the webhook event logs):
 * the stored envelope with Resend's flat fields beside `data.object` (./resend-fields.ts). They are
 * derived from the object, so they are not stored: an event item stays the size of its object (each
 * status change of an email writes one, twice as a transaction bills it).
 */
export function withResendFields(event: PlatformEvent): PlatformEvent {
  return { ...event, data: { ...event.data, ...resendFields(event.type, event.data.object) } };
}

export function buildEvent(
  caller: Pick<Caller, 'projectId' | 'livemode'>,
  type: EventType,
  object: object,
): PlatformEvent {
  return {
    object: 'event',
    id: newId(),
    type,
    api_version: API_VERSION,
    created_at: nowIso(),
    livemode: caller.livemode,
    project_id: liveProjectId(caller.projectId), // a test-mode event says so by `livemode`; its item is the twin's (shared/project/test-mode.ts)
    data: { object }, // Resend's flat fields are added when the event leaves the service (withResendFields)
  };
}

/** The outbox write for one event: add it to the transaction of the change that causes it. */
export function eventWrite(
  caller: Pick<Caller, 'projectId' | 'livemode'>,
  type: EventType,
  object: object,
): WriteAction {
  const event = buildEvent(caller, type, object);
  return put({
    ...keys.event(caller.projectId, event.id),
    type: 'event',
    project_id: caller.projectId,
    event_type: type,
    event,
    expires_at: Math.floor(Date.parse(event.created_at) / 1000) + EVENT_RETENTION_SECONDS,
  });
}

/**
 * GET /events: the newest `max` retained events, newest first, one Query. TTL deletion can lag
 * up to a few days, so events past their 30 days are dropped here too.
 */
export async function listEvents(caller: Pick<Caller, 'projectId'>, max: number): Promise<PlatformEvent[]> {
  const { items } = await queryPage(keys.events(caller.projectId), { limit: max });
  const now = Math.floor(clockNow() / 1000);
  return items.filter((item) => item.expires_at > now).map((item) => withResendFields(item.event as PlatformEvent));
}
