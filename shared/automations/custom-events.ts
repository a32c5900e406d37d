/**
 * Custom events (Resend's `events.*` but `list`, which reads the contract's GET /events, the platform
 * event log): named signals a project sends for one of its contacts, which start and resume
 * automations. Defining one is optional: a name that was never defined can be sent, with any
 * payload. A definition gives the name an id and, optionally, a `schema` that the payloads of
 * later sends must match.
 *
 * Storage: the definition is keyed by its name (keys.customEvent), because every send names it
 * (one GetItem); an id pointer (keys.customEventId) serves the paths that take an id. Both are
 * written in one transaction, the name with attribute_not_exists (409 `event_exists`).
 *
 * A send (POST /events/send) checks the payload against the definition's schema as it is at the
 * send: a declared key's value is coerced to its type where that is lossless (`"42"` -> 42 for a
 * number, `"true"` -> true for a boolean, a number -> its digits for a string, an ISO 8601 date or
 * epoch milliseconds -> an ISO 8601 date-time for a date) and refused otherwise: 422 naming
 * `payload.<key>`, and nothing is sent. Null means no value; keys the schema does not declare pass
 * as they are. The contact is `contact_id`'s (404 when the project has none), or `email`'s, created
 * when the project has no contact with that address (with its `contact.created`). The event is
 * then written as the platform event `custom_event.sent` (GET /events, webhooks): what the
 * automations' matcher reads.
 */
import { createContact, findContact, getContact, toContact } from '../audience/contacts';
import type { Contact } from '../audience/model';
import { eventWrite } from '../events/events';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, put, putItem, transact, update, updateItem, type Item } from '../platform/db/table';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { newId, nowIso, UUID_PATTERN } from '../platform/ids';
import {
  MAX_PAYLOAD_BYTES,
  type CreateCustomEventInput,
  type CustomEvent,
  type EventSchemaMap,
  type EventSchemaType,
  type SendEventInput,
  type SentEvent,
} from './model';

interface CustomEventItem {
  type: 'custom_event';
  project_id: string;
  id: string;
  name: string;
  schema: EventSchemaMap;
  created_at: string;
  updated_at: string | null;
}

const toCustomEvent = (item: CustomEventItem): CustomEvent => ({
  object: 'event',
  id: item.id,
  name: item.name,
  schema: item.schema ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at ?? null,
});

const missing = () => notFound('Event', 'id_or_name');
const nameTaken = (name: string) => conflict('event_exists', `An event named ${name} already exists`, 'name');

/** The definition for an id (a UUID: its pointer, then the definition) or a name (one GetItem). */
async function findDefinition(projectId: string, idOrName: string): Promise<CustomEventItem | undefined> {
  let name = idOrName;
  if (UUID_PATTERN.test(idOrName)) {
    const pointer = await getItem(keys.customEventId(projectId, idOrName));
    if (!pointer) return undefined;
    name = pointer.name as string;
  }
  return getItem<CustomEventItem & Item>(keys.customEvent(projectId, name));
}

async function readDefinition(projectId: string, idOrName: string): Promise<CustomEventItem> {
  const item = await findDefinition(projectId, idOrName);
  if (!item) throw missing();
  return item;
}

export async function createCustomEvent(caller: Caller, input: CreateCustomEventInput): Promise<CustomEvent> {
  const item: CustomEventItem = {
    type: 'custom_event',
    project_id: caller.projectId,
    id: newId(),
    name: input.name,
    schema: input.schema ?? null,
    created_at: nowIso(),
    updated_at: null,
  };
  await transact([
    put({ ...keys.customEvent(caller.projectId, item.name), ...item }, { ifAbsent: () => nameTaken(item.name) }),
    put({
      ...keys.customEventId(caller.projectId, item.id),
      type: 'custom_event_id',
      project_id: caller.projectId,
      name: item.name,
    }),
  ]);
  return toCustomEvent(item);
}

export const getCustomEvent = async (caller: Caller, idOrName: string): Promise<CustomEvent> =>
  toCustomEvent(await readDefinition(caller.projectId, idOrName));

/** Replaces the schema (null: none). Sends after it are checked against the new one. */
export async function updateCustomEvent(
  caller: Caller,
  idOrName: string,
  schema: EventSchemaMap,
): Promise<CustomEvent> {
  const item = await readDefinition(caller.projectId, idOrName);
  const next: CustomEventItem = { ...item, schema, updated_at: nowIso() };
  await updateItem(
    update(
      keys.customEvent(caller.projectId, item.name),
      {
        set: { schema: next.schema, updated_at: next.updated_at },
        // deleted (or deleted and defined again) since the read: 404
        condition: { expression: '#id = :id', names: { '#id': 'id' }, values: { ':id': item.id } },
      },
      missing,
    ),
  );
  return toCustomEvent(next);
}

/** Deletes the definition and its id pointer; the name may then be defined again. A second delete is 404. */
export async function deleteCustomEvent(caller: Caller, idOrName: string): Promise<string> {
  const item = await readDefinition(caller.projectId, idOrName);
  await transact([
    del(keys.customEvent(caller.projectId, item.name), {
      ifUnchanged: { expected: { id: item.id }, onChanged: missing },
    }),
    del(keys.customEventId(caller.projectId, item.id)),
  ]);
  return item.id;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** `value` as `type`, where that loses nothing; undefined when it cannot be. */
function coerce(value: unknown, type: EventSchemaType): unknown {
  switch (type) {
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return undefined;
    case 'number':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return undefined;
    case 'date': {
      const ms =
        typeof value === 'number' && Number.isFinite(value)
          ? value
          : typeof value === 'string' && ISO_DATE.test(value)
            ? Date.parse(value)
            : Number.NaN;
      return Number.isNaN(ms) || Math.abs(ms) > 8.64e15 ? undefined : new Date(ms).toISOString();
    }
    default:
      return undefined;
  }
}

/** The payload with its declared values coerced to their types; 422 naming every value that is not one. */
export function checkPayload(schema: EventSchemaMap, payload: Record<string, unknown>): Record<string, unknown> {
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    const message = `An event's payload may be at most ${MAX_PAYLOAD_BYTES / 1024} KB of JSON`;
    throw new ApiError(413, 'validation_error', message, [{ code: 'payload_too_large', message, path: 'payload' }]);
  }
  if (!schema) return payload;
  const problems: ErrorDetail[] = [];
  const checked: Record<string, unknown> = { ...payload };
  for (const [key, type] of Object.entries(schema)) {
    const value = payload[key];
    if (value === undefined || value === null) continue;
    const coerced = coerce(value, type);
    if (coerced === undefined)
      problems.push({
        code: 'invalid_payload_value',
        message: `must be a ${type}${type === 'date' ? ' (ISO 8601, or epoch milliseconds)' : ''}, as the event's schema says`,
        path: `payload.${key}`,
      });
    else checked[key] = coerced;
  }
  if (problems.length) throw unprocessable(problems);
  return checked;
}

/** The contact with this address, created when the project has none (a concurrent send creating it too: the one made). */
async function contactByEmail(caller: Caller, email: string): Promise<Contact> {
  const found = await findContact(caller.projectId, email);
  if (found) return toContact(found);
  try {
    return await createContact(caller, { email });
  } catch (error) {
    if (error instanceof ApiError && error.statusCode === 409) return getContact(caller, email);
    throw error;
  }
}

async function contactById(caller: Caller, contactId: string): Promise<Contact> {
  const found = await findContact(caller.projectId, contactId);
  if (!found) throw notFound('Contact', 'contact_id');
  return toContact(found);
}

/** POST /events/send: checks the payload, finds (or creates) the contact, writes `custom_event.sent`. */
export async function sendEvent(caller: Caller, input: SendEventInput): Promise<SentEvent> {
  const definition = await getItem<CustomEventItem & Item>(keys.customEvent(caller.projectId, input.event));
  const payload = checkPayload(definition?.schema ?? null, input.payload ?? {});
  const contact = input.contact_id
    ? await contactById(caller, input.contact_id)
    : await contactByEmail(caller, input.email as string);
  const sent: SentEvent = {
    object: 'custom_event',
    id: newId(),
    event: input.event,
    contact_id: contact.id,
    email: contact.email,
    payload,
  };
  await putItem(eventWrite(caller, 'custom_event.sent', sent));
  return sent;
}
