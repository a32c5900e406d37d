/**
 * The templates feature's model: the template as the API shows it (whole and as a list summary),
 * what create and update take, and the stored item. The record types are derived from the
 * schemas; the stored item, which no schema describes, is declared beside them.
 */
import * as z from 'zod/mini';
import { addresses, fromAddress } from '../platform/mail/schemas';
import { UUID_PATTERN } from '../platform/ids';
import { dynamoNumber, headerSafe, id, timestamp } from '../platform/http/schemas';

/** 1-64 of lower-case letters, digits, `.`, `_`, `-`; never shaped like a UUID, which the paths read as an id. */
export const ALIAS = /^[a-z0-9._-]{1,64}$/;
/** The key syntax shared/templates/render.ts substitutes: `{{{KEY}}}` / `{{KEY}}`. */
export const VARIABLE_KEY = /^[A-Za-z0-9_]{1,64}$/;
/** As Resend: these names are kept for contact data and may not be declared. */
export const RESERVED_VARIABLES = ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'contact', 'this'];
export const MAX_VARIABLES = 50;

const alias = /* @__PURE__ */ (() =>
  z.string().check(
    z.regex(ALIAS, 'must be 1-64 lower-case letters, digits, ".", "_" or "-"'),
    z.refine((value) => !UUID_PATTERN.test(value), 'must not look like a UUID (paths read a UUID as a template id)'),
  ))();
const name = /* @__PURE__ */ (() => z.string().check(z.trim(), z.minLength(1), z.maxLength(256)))();
const subject = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(998), headerSafe))();
const html = /* @__PURE__ */ (() => z.string().check(z.minLength(1)))();

const variable = /* @__PURE__ */ (() =>
  z
    .strictObject({
      key: z.string().check(
        z.regex(VARIABLE_KEY, 'must be 1-64 letters, digits or _'),
        z.refine((key) => !RESERVED_VARIABLES.includes(key), `is reserved (${RESERVED_VARIABLES.join(', ')})`),
      ),
      type: z.enum(['string', 'number']),
      fallback_value: z.optional(z.nullable(z.union([z.string().check(z.maxLength(10_000)), dynamoNumber]))),
    })
    .check(
      z.refine(
        (v) => v.fallback_value === undefined || v.fallback_value === null || typeof v.fallback_value === v.type,
        {
          message: "must match the variable's type",
          path: ['fallback_value'],
        },
      ),
    ))();

const variables = /* @__PURE__ */ (() =>
  z.array(variable).check(
    z.maxLength(MAX_VARIABLES),
    z.superRefine((list, ctx) => {
      const seen = new Set<string>();
      list.forEach((v, index) => {
        if (seen.has(v.key))
          ctx.addIssue({
            code: 'custom',
            message: `duplicate variable key "${v.key}"`,
            path: [index, 'key'],
            input: v.key,
          });
        seen.add(v.key);
      });
    }),
  ))();

const fields = /* @__PURE__ */ (() => ({
  name,
  alias: z.optional(z.nullable(alias)),
  from: z.optional(z.nullable(fromAddress)),
  subject: z.optional(z.nullable(subject)),
  reply_to: z.optional(z.nullable(addresses)),
  html,
  text: z.optional(z.nullable(z.string())),
  variables: z.optional(z.nullable(variables)),
}))();

export const createBody = /* @__PURE__ */ (() => z.strictObject(fields))();
export type CreateTemplateInput = z.output<typeof createBody>;

export const updateBody = /* @__PURE__ */ (() =>
  z.strictObject({ ...fields, name: z.optional(name), html: z.optional(html) }).check(
    z.refine((body) => Object.values(body).some((v) => v !== undefined), {
      message: 'give at least one field to change',
    }),
  ))();
export type UpdateTemplateInput = z.output<typeof updateBody>;

export const templateVariable = /* @__PURE__ */ (() =>
  z.object({
    key: z.string(),
    type: z.enum(['string', 'number']),
    fallback_value: z.nullable(z.union([z.string(), z.number()])),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type TemplateVariable = z.output<typeof templateVariable>;

export const template = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('template'),
    id,
    name: z.string(),
    alias: z.nullable(z.string()),
    status: z.enum(['draft', 'published']),
    from: z.nullable(z.string()),
    subject: z.nullable(z.string()),
    reply_to: z.nullable(z.array(z.string())),
    html: z.string(),
    text: z.nullable(z.string()),
    variables: z.array(templateVariable),
    published_at: z.nullable(timestamp),
    has_unpublished_versions: z.boolean(),
    current_version_id: id,
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type TemplateRecord = z.output<typeof template>;

export const templateSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('template'),
    id,
    name: z.string(),
    alias: z.nullable(z.string()),
    status: z.enum(['draft', 'published']),
    published_at: z.nullable(timestamp),
    has_unpublished_versions: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  }))();

/** What sending uses: the content of one version. */
export type TemplateContent = Pick<TemplateRecord, 'from' | 'subject' | 'reply_to' | 'html' | 'text' | 'variables'>;

export interface PublishedVersion extends TemplateContent {
  version_id: string;
}

/** The stored item (keys.template): the draft's fields at the top level, the published snapshot under `published`. */
export interface TemplateItem extends TemplateContent {
  id: string;
  project_id: string;
  name: string;
  alias: string | null;
  version_id: string;
  status: TemplateRecord['status'];
  published?: PublishedVersion;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}
