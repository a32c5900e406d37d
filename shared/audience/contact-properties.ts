/**
 * Contact properties: the project's typed schema of the contacts' `properties` (Resend's
 * `/contact-properties`). Each property has a `key` (unique in the project), a `type` (`string` or
 * `number`, fixed at creation) and a `fallback_value` that broadcasts render when a contact has no
 * value for the key.
 *
 * Storage: the whole schema is ONE item (keys.contactProperties: a map key -> {id, type,
 * fallback_value, created_at}, at most MAX_PROPERTIES entries, a few KB), for three reasons:
 * 1. a contact write reads it with one GetItem in the read round trip it already makes
 *    (DESIGN.md's budget), and each broadcast fan-out page with one GetItem;
 * 2. key uniqueness and the limit hold in one conditional write: every change reads the item and
 *    puts it back with a condition on its `version` (absent for the first property), so two
 *    concurrent creates of one key, or of the 50th and 51st, cannot both pass; the loser re-reads
 *    and gets its 409;
 * 3. an id lookup is a search of at most 50 entries of that item (no id -> key claim item).
 *
 * Rules (decisions the contract leaves open, also in the README and the OpenAPI descriptions):
 * - A project with NO properties defined keeps free-form `properties` on its contacts (any key,
 *   string, number, boolean or null), as before this schema existed. Once it has one, contact
 *   creates and PATCHes (and whatever else goes through shared/audience/contacts.ts) are validated:
 *   a key not in the schema, or a value not of its type, is 422 naming `properties.<key>`; null is
 *   allowed for any key (no value: the fallback applies).
 * - The validation reads the schema as it is at the write; no transaction ties the two (a PATCH can
 *   already use all 100 actions), so a value written while its property is being changed may carry
 *   the old rule. Nothing breaks: readers take values as stored.
 * - Deleting a property in use is allowed (as on Resend): the contacts' values stay (a delete
 *   touches one item, never an unbounded number of contacts), reads still show them, and a
 *   broadcast still renders them; only the fallback goes. Re-creating the key validates later writes.
 * - No events: Resend has no contact property event types.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  getItem,
  isConditionFailed,
  putItem,
  type Item,
  type Page,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { pageOf } from '../platform/list-page';
import type { Values } from '../templates/render';
import {
  MAX_PROPERTIES,
  type Contact,
  type ContactPropertyRecord,
  type CreateContactPropertyInput,
  type PropertiesFormat,
  type PropertyType,
  type PropertyValue,
  type UpdateContactPropertyInput,
} from './model';

export interface PropertyDefinition {
  id: string;
  type: PropertyType;
  fallback_value: string | number | null;
  created_at: string;
}

/** The schema: property key -> its definition. Empty when the project has defined none. */
export type PropertySchema = Record<string, PropertyDefinition>;

interface SchemaItem extends Item {
  type: 'contact_properties';
  project_id: string;
  properties: PropertySchema;
  /** bumped by every change: the condition of the next one */
  version: number;
}

const toRecord = (key: string, p: PropertyDefinition): ContactPropertyRecord => ({
  object: 'contact_property',
  id: p.id,
  key,
  type: p.type,
  fallback_value: p.fallback_value ?? null,
  created_at: p.created_at,
});

const missing = () => notFound('Contact property', 'contact_property_id');
/** The failed condition of a schema write: it changed between our read and our write. */
const changed = { tag: 'contact property schema changed' };

async function readSchemaItem(projectId: string): Promise<SchemaItem | undefined> {
  return getItem<SchemaItem>(keys.contactProperties(projectId));
}

/** The project's schema (one GetItem); empty when it has none. */
export async function readPropertySchema(projectId: string): Promise<PropertySchema> {
  return (await readSchemaItem(projectId))?.properties ?? {};
}

/** Reads the schema, changes it, and puts it back if nobody changed it meanwhile (five tries). */
async function changeSchema<T>(
  projectId: string,
  step: (schema: PropertySchema) => { schema: PropertySchema; result: T },
): Promise<T> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    const current = await readSchemaItem(projectId);
    const { schema, result } = step({ ...(current?.properties ?? {}) });
    const item: SchemaItem = {
      ...keys.contactProperties(projectId),
      type: 'contact_properties',
      project_id: projectId,
      properties: schema,
      version: (current?.version ?? 0) + 1,
    };
    const write: WriteAction = {
      kind: 'Put',
      params: current
        ? {
            Item: item,
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': current.version },
          }
        : { Item: item, ConditionExpression: 'attribute_not_exists(PK)' },
      onConditionFailed: changed,
    };
    try {
      await putItem(write);
      return result;
    } catch (error) {
      if (!isConditionFailed(error, changed.tag)) throw error;
    }
  }
  throw conflict('concurrent_update', 'The contact properties kept changing during the request; try again');
}

const findById = (schema: PropertySchema, propertyId: string): [string, PropertyDefinition] | undefined =>
  Object.entries(schema).find(([, p]) => p.id === propertyId);

export async function createContactProperty(
  caller: Caller,
  input: CreateContactPropertyInput,
): Promise<ContactPropertyRecord> {
  return changeSchema(caller.projectId, (schema) => {
    if (schema[input.key])
      throw conflict('contact_property_exists', `A contact property with the key ${input.key} already exists`, 'key');
    if (Object.keys(schema).length >= MAX_PROPERTIES)
      throw conflict('too_many_properties', `A project has at most ${MAX_PROPERTIES} contact properties`, 'key');
    const definition: PropertyDefinition = {
      id: newId(),
      type: input.type,
      fallback_value: input.fallback_value ?? null,
      created_at: nowIso(),
    };
    return { schema: { ...schema, [input.key]: definition }, result: toRecord(input.key, definition) };
  });
}

export async function getContactProperty(caller: Caller, propertyId: string): Promise<ContactPropertyRecord> {
  const found = findById(await readPropertySchema(caller.projectId), propertyId);
  if (!found) throw missing();
  return toRecord(...found);
}

/** Newest first, paged in memory like every list (ids are UUIDv7): the whole schema is one item of at most MAX_PROPERTIES. */
export async function listContactProperties(caller: Caller, page: PageRequest): Promise<Page<ContactPropertyRecord>> {
  const schema = await readPropertySchema(caller.projectId);
  return pageOf(
    Object.entries(schema).map(([key, p]) => toRecord(key, p)),
    page,
  );
}

/** Only the fallback changes (`key` and `type` are fixed); it must be of the property's type. */
export async function updateContactProperty(
  caller: Caller,
  propertyId: string,
  input: UpdateContactPropertyInput,
): Promise<ContactPropertyRecord> {
  return changeSchema(caller.projectId, (schema) => {
    const found = findById(schema, propertyId);
    if (!found) throw missing();
    const [key, current] = found;
    const fallback = input.fallback_value === undefined ? current.fallback_value : input.fallback_value;
    if (fallback !== null && typeof fallback !== current.type) {
      throw unprocessable([
        { code: 'invalid_type', message: `must be a ${current.type}, the type of ${key}`, path: 'fallback_value' },
      ]);
    }
    const definition = { ...current, fallback_value: fallback };
    return { schema: { ...schema, [key]: definition }, result: toRecord(key, definition) };
  });
}

/** Removes the property from the schema; contacts keep their values for its key (see the module comment). */
export async function deleteContactProperty(caller: Caller, propertyId: string): Promise<void> {
  await changeSchema(caller.projectId, (schema) => {
    const found = findById(schema, propertyId);
    if (!found) throw missing();
    const { [found[0]]: _removed, ...rest } = schema;
    return { schema: rest, result: undefined };
  });
}

/**
 * Checks a contact write's `properties` against the schema: nothing when the project has none
 * (free-form); else every key must be in it and every value of its type or null. All problems at
 * once, each naming `properties.<key>`.
 */
export function checkPropertyValues(schema: PropertySchema, values: Record<string, PropertyValue> | undefined): void {
  if (!values || Object.keys(schema).length === 0) return;
  const errors: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(values)) {
    const definition = schema[key];
    if (!definition)
      errors.push({
        code: 'unknown_property',
        message: 'no contact property with this key in this project (POST /contact-properties defines one)',
        path: `properties.${key}`,
      });
    else if (value !== null && typeof value !== definition.type)
      errors.push({
        code: 'invalid_type',
        message: `must be a ${definition.type} (or null)`,
        path: `properties.${key}`,
      });
  }
  if (errors.length) throw unprocessable(errors);
}

/** The template variables of a contact's properties: its values, and the schema's fallback for each key it has no value for. */
export function propertyVariables(schema: PropertySchema, values: Record<string, PropertyValue> | undefined): Values {
  const variables: Values = { ...values };
  for (const [key, definition] of Object.entries(schema)) {
    if ((variables[key] === undefined || variables[key] === null) && definition.fallback_value !== null)
      variables[key] = definition.fallback_value;
  }
  return variables;
}

export type TypedProperties = Record<
  string,
  { type: 'string' | 'number' | 'boolean'; value: string | number | boolean }
>;

/**
 * A contact's `properties` as reads show them: plain (`{key: value}`, what writes take) or Resend's
 * `{key: {type, value}}`, the type taken from the stored value (so no schema read; values written
 * under the schema have its type). A null is "no value": Resend's form leaves the key out.
 */
export function formatProperties(
  values: Record<string, PropertyValue>,
  format: PropertiesFormat,
): Record<string, PropertyValue> | TypedProperties {
  if (format === 'plain') return values;
  const typed: TypedProperties = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === null) continue;
    typed[key] = { type: typeof value as 'string' | 'number' | 'boolean', value };
  }
  return typed;
}

/** A contact as a read answers it: `properties` in the asked format, Resend's by default. */
export const contactInFormat = (contact: Contact, format: PropertiesFormat = 'resend') => ({
  ...contact,
  properties: formatProperties(contact.properties, format),
});
