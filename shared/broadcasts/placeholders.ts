/**
 * What a broadcast's placeholders mean (shared/templates/render.ts has the syntax): the values one
 * contact's email renders with, and the check create and update run on html, text, subject and
 * preview_text.
 *
 * A key resolves when it is one of the contact's fields (`FIRST_NAME`, `LAST_NAME`, `EMAIL`, or
 * Resend's `contact.first_name`, `contact.last_name`, `contact.email`), `RESEND_UNSUBSCRIBE_URL`,
 * or a contact property of the project's schema (`plan` or `contact.plan`). A placeholder with a
 * `|fallback` always resolves. A project without a schema keeps free-form contact properties, so
 * any key may be one of them: there only unpaired braces are refused. A property deleted after
 * the broadcast was written renders its contact's value if it has one, else nothing, as before.
 */
import { propertyVariables, readPropertySchema, type PropertySchema } from '../audience/contact-properties';
import type { Item } from '../platform/db/table';
import { unprocessable } from '../platform/errors';
import { placeholderProblems, placeholdersIn, type Values } from '../templates/render';

const CONTACT_FIELDS = ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'contact.first_name', 'contact.last_name', 'contact.email'];
const BUILT_IN = new Set([...CONTACT_FIELDS, 'RESEND_UNSUBSCRIBE_URL']);

/** The values a contact's email renders with (see the module comment). */
export function contactValues(contact: Item, schema: PropertySchema, unsubscribeUrl: string): Values {
  const properties = propertyVariables(schema, contact.properties); // the contact's values, else the schema's fallbacks
  const values: Values = { ...properties };
  for (const [key, value] of Object.entries(properties)) values[`contact.${key}`] = value;
  const first = (contact.first_name as string | null) ?? '';
  const last = (contact.last_name as string | null) ?? '';
  const email = contact.email as string;
  return {
    ...values,
    FIRST_NAME: first,
    LAST_NAME: last,
    EMAIL: email,
    'contact.first_name': first,
    'contact.last_name': last,
    'contact.email': email,
    RESEND_UNSUBSCRIBE_URL: unsubscribeUrl,
  };
}

/** The fields of a broadcast that render (preview_text goes in front of the html). */
type RenderedFields = Partial<Record<'subject' | 'preview_text' | 'html' | 'text', string | null>>;

/**
 * 422 naming each placeholder of the rendered fields `input` gives that no contact could fill:
 * unpaired braces, or a key that is neither built in nor a property of the project's schema,
 * without a fallback. Reads the schema (one GetItem) only when some key needs it.
 */
export async function checkPlaceholders(projectId: string, input: RenderedFields): Promise<void> {
  const fields: RenderedFields = {
    subject: input.subject,
    preview_text: input.preview_text,
    html: input.html,
    text: input.text,
  };
  const texts = Object.values(fields).join('\n');
  const needsSchema = placeholdersIn(texts).some(
    (p) => !p.malformed && p.fallback === undefined && !BUILT_IN.has(p.key),
  );
  const schema = needsSchema ? await readPropertySchema(projectId) : {};
  const freeForm = Object.keys(schema).length === 0;
  const resolvable = (key: string) =>
    BUILT_IN.has(key) || freeForm || Object.hasOwn(schema, key.replace(/^contact\./, ''));
  const problems = placeholderProblems(
    fields,
    resolvable,
    'is no contact field, contact property of this project or RESEND_UNSUBSCRIBE_URL',
  );
  if (problems.length) throw unprocessable(problems);
}
