import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { UUID_PATTERN } from '../platform/ids';
import { commonErrors, conflictResponse, deleted, errorEnvelope, id, listOf, listQuery, notFoundResponse, timestamp } from '../platform/http/schemas';
import { address, addresses } from '../emails/operations';

/** 1-64 of lower-case letters, digits, `.`, `_`, `-`; never shaped like a UUID, which the paths read as an id. */
export const ALIAS = /^[a-z0-9._-]{1,64}$/;
/** The key syntax shared/templates/render.ts substitutes: `{{{KEY}}}` / `{{KEY}}`. */
export const VARIABLE_KEY = /^[A-Za-z0-9_]{1,64}$/;
/** As Resend: these names are kept for contact data and may not be declared. */
export const RESERVED_VARIABLES = ['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'contact', 'this'];
export const MAX_VARIABLES = 50;

const alias = z.string().check(
  z.regex(ALIAS, 'must be 1-64 lower-case letters, digits, ".", "_" or "-"'),
  z.refine((value) => !UUID_PATTERN.test(value), 'must not look like a UUID (paths read a UUID as a template id)'),
);
const name = z.string().check(z.trim(), z.minLength(1), z.maxLength(256));
const subject = z.string().check(z.minLength(1), z.maxLength(998));
const html = z.string().check(z.minLength(1));

const variable = z
  .strictObject({
    key: z.string().check(
      z.regex(VARIABLE_KEY, 'must be 1-64 letters, digits or _'),
      z.refine((key) => !RESERVED_VARIABLES.includes(key), `is reserved (${RESERVED_VARIABLES.join(', ')})`),
    ),
    type: z.enum(['string', 'number']),
    fallback_value: z.optional(z.nullable(z.union([z.string().check(z.maxLength(10_000)), z.number().check(z.refine(Number.isFinite, 'must be a finite number'))]))),
  })
  .check(
    z.refine((v) => v.fallback_value === undefined || v.fallback_value === null || typeof v.fallback_value === v.type, {
      message: "must match the variable's type",
      path: ['fallback_value'],
    }),
  );

const variables = z.array(variable).check(
  z.maxLength(MAX_VARIABLES),
  z.superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((v, index) => {
      if (seen.has(v.key)) ctx.addIssue({ code: 'custom', message: `duplicate variable key "${v.key}"`, path: [index, 'key'], input: v.key });
      seen.add(v.key);
    });
  }),
);

const fields = {
  name,
  alias: z.optional(z.nullable(alias)),
  from: z.optional(z.nullable(address)),
  subject: z.optional(z.nullable(subject)),
  reply_to: z.optional(z.nullable(addresses)),
  html,
  text: z.optional(z.nullable(z.string())),
  variables: z.optional(z.nullable(variables)),
};

export const createBody = z.strictObject(fields);
export type CreateTemplateInput = z.output<typeof createBody>;

export const updateBody = z
  .strictObject({ ...fields, name: z.optional(name), html: z.optional(html) })
  .check(z.refine((body) => Object.values(body).some((v) => v !== undefined), { message: 'give at least one field to change' }));
export type UpdateTemplateInput = z.output<typeof updateBody>;

export const templateVariable = z.object({
  key: z.string(),
  type: z.enum(['string', 'number']),
  fallback_value: z.nullable(z.union([z.string(), z.number()])),
  created_at: timestamp,
  updated_at: timestamp,
});

export const template = z.object({
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
});

export const templateSummary = z.object({
  object: z.literal('template'),
  id,
  name: z.string(),
  alias: z.nullable(z.string()),
  status: z.enum(['draft', 'published']),
  published_at: z.nullable(timestamp),
  has_unpublished_versions: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
});

const templateParams = z.strictObject({
  id_or_alias: z.string().check(z.refine((v) => UUID_PATTERN.test(v) || ALIAS.test(v), 'must be a template id (UUID) or an alias')),
});

const fieldRules =
  '`name` and `html` are required. `alias` is unique in the project (409 `template_alias_taken`): 1-64 of a-z, 0-9, ' +
  '`.`, `_`, `-`, never shaped like a UUID; paths take the id or the alias. `variables` are `{key, type: string|number, ' +
  `fallback_value?}\` (at most ${MAX_VARIABLES}, keys unique, letters, digits and _; ${RESERVED_VARIABLES.join(', ')} are reserved); ` +
  'the fallback must match the type. Every `{{{KEY}}}` / `{{KEY}}` in html, text and subject must be a declared variable ' +
  '(422 `undeclared_template_variable`). The draft with its published version must fit one item: each at most 150 KB (413 `template_too_large`).';
const versions =
  'A template is a draft until its first publish; publishing copies the draft to the published version that sending uses. ' +
  'Editing a published template changes only the draft (`has_unpublished_versions: true`) until the next publish.';

const tooLarge = { description: 'The template is too large (`template_too_large`)', schema: errorEnvelope } as const;

export const create = defineOperation({
  operationId: 'createTemplate',
  summary: 'Create a template',
  description: `Creates a draft (\`status: draft\`). ${fieldRules} ${versions}`,
  tags: ['Templates'],
  auth: 'api_key',
  body: createBody,
  responses: {
    201: { description: 'The new template', schema: template },
    ...commonErrors,
    409: conflictResponse,
    413: tooLarge,
  },
});

export const list = defineOperation({
  operationId: 'listTemplates',
  summary: 'List templates, newest first',
  description: 'Summaries without the content; `GET /templates/{id_or_alias}` has the whole template.',
  tags: ['Templates'],
  auth: 'api_key',
  query: listQuery,
  responses: { 200: { description: 'A page of templates', schema: listOf(templateSummary) }, ...commonErrors },
});

export const get = defineOperation({
  operationId: 'getTemplate',
  summary: 'Retrieve a template by id or alias',
  description: `The draft's fields, \`status\` and \`published_at\`. ${versions}`,
  tags: ['Templates'],
  auth: 'api_key',
  params: templateParams,
  responses: { 200: { description: 'The template', schema: template }, ...commonErrors, 404: notFoundResponse },
});

export const update = defineOperation({
  operationId: 'updateTemplate',
  summary: "Update a template's draft",
  description: `At least one field; \`null\` clears an optional one (\`alias: null\` frees the alias). \`variables\` replaces the whole list. ${fieldRules} ${versions}`,
  tags: ['Templates'],
  auth: 'api_key',
  params: templateParams,
  body: updateBody,
  responses: {
    200: { description: 'The template', schema: template },
    ...commonErrors,
    404: notFoundResponse,
    409: conflictResponse,
    413: tooLarge,
  },
});

export const remove = defineOperation({
  operationId: 'deleteTemplate',
  summary: 'Delete a template',
  description: 'The template and its alias go together; the alias is free again at once. A second delete is 404.',
  tags: ['Templates'],
  auth: 'api_key',
  params: templateParams,
  responses: { 200: { description: 'The template is gone', schema: deleted('template') }, ...commonErrors, 404: notFoundResponse, 409: conflictResponse },
});

export const publish = defineOperation({
  operationId: 'publishTemplate',
  summary: 'Publish a template',
  description: `Copies the draft to the published version: \`status: published\`, \`published_at\` now. ${versions}`,
  tags: ['Templates'],
  auth: 'api_key',
  params: templateParams,
  responses: { 200: { description: 'The published template', schema: template }, ...commonErrors, 404: notFoundResponse, 409: conflictResponse },
});

export const duplicate = defineOperation({
  operationId: 'duplicateTemplate',
  summary: 'Duplicate a template',
  description: 'A new draft with the draft\'s content, named "<name> (copy)", without the alias (aliases are unique) and never published.',
  tags: ['Templates'],
  auth: 'api_key',
  params: templateParams,
  responses: { 201: { description: 'The copy', schema: template }, ...commonErrors, 404: notFoundResponse },
});
