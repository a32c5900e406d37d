import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { UUID_PATTERN } from '../platform/ids';
import {
  commonErrors,
  conflictResponse,
  deleted,
  errorEnvelope,
  listOf,
  listQuery,
  notFoundResponse,
} from '../platform/http/schemas';
import { ALIAS, createBody, MAX_VARIABLES, RESERVED_VARIABLES, template, templateSummary, updateBody } from './model';

const templateParams = /* @__PURE__ */ (() =>
  z.strictObject({
    id_or_alias: z
      .string()
      .check(z.refine((v) => UUID_PATTERN.test(v) || ALIAS.test(v), 'must be a template id (UUID) or an alias')),
  }))();

const fieldRules = /* @__PURE__ */ (() =>
  '`name` and `html` are required. `alias` is unique in the project (409 `template_alias_taken`): 1-64 of a-z, 0-9, ' +
  '`.`, `_`, `-`, never shaped like a UUID; paths take the id or the alias. `variables` are `{key, type: string|number, ' +
  `fallback_value?}\` (at most ${MAX_VARIABLES}, keys unique, letters, digits and _; ${RESERVED_VARIABLES.join(', ')} are reserved); ` +
  'the fallback must match the type. A `{{{KEY}}}` / `{{KEY}}` in html, text or subject need not be declared (as on Resend): ' +
  'a send then gives it as a string or a number, or gets 422 `missing_template_variable` naming it. ' +
  '`{{{KEY|fallback}}}` / `{{KEY|fallback}}` (as Resend) render the fallback when neither the send nor the declared `fallback_value` gives a value, or the value is empty: ' +
  'the text after `|` up to the braces, its end spaces trimmed, taken literally (quotes included, no braces), escaped in `{{…}}` like a value. ' +
  'A placeholder whose braces do not pair (`{{{KEY}}`, `{{KEY|x}}}`) is 422 `malformed_placeholder` naming the field. The draft with its published version must fit one item: each at most 150 KB (413 `template_too_large`). ' +
  '`subject` refuses line breaks and control characters (422), and a variable rendered into it has its line breaks and control characters replaced by a space; ' +
  '`from` is one mailbox whose display name holds no address, `,` or `;`; a number `fallback_value` is 0 or a magnitude from 1e-130 to 2^53-1 (what DynamoDB stores as given).')();
const versions =
  'A template is a draft until its first publish; publishing copies the draft to the published version that sending uses. ' +
  'Editing a published template changes only the draft (`has_unpublished_versions: true`) until the next publish.';

const tooLarge = { description: 'The template is too large (`template_too_large`)', schema: errorEnvelope } as const;

export const create = /* @__PURE__ */ (() =>
  defineOperation({
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
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listTemplates',
    summary: 'List templates, newest first',
    description: 'Summaries without the content; `GET /templates/{id_or_alias}` has the whole template.',
    tags: ['Templates'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of templates', schema: listOf(templateSummary) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getTemplate',
    summary: 'Retrieve a template by id or alias',
    description: `The draft's fields, \`status\` and \`published_at\`. ${versions}`,
    tags: ['Templates'],
    auth: 'api_key',
    params: templateParams,
    responses: { 200: { description: 'The template', schema: template }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
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
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteTemplate',
    summary: 'Delete a template',
    description: 'The template and its alias go together; the alias is free again at once. A second delete is 404.',
    tags: ['Templates'],
    auth: 'api_key',
    params: templateParams,
    responses: {
      200: { description: 'The template is gone', schema: deleted('template') },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const publish = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'publishTemplate',
    summary: 'Publish a template',
    description: `Copies the draft to the published version: \`status: published\`, \`published_at\` now. ${versions}`,
    tags: ['Templates'],
    auth: 'api_key',
    params: templateParams,
    responses: {
      200: { description: 'The published template', schema: template },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();

export const duplicate = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'duplicateTemplate',
    summary: 'Duplicate a template',
    description:
      'A new draft with the draft\'s content, named "<name> (copy)", without the alias (aliases are unique) and never published.',
    tags: ['Templates'],
    auth: 'api_key',
    params: templateParams,
    responses: { 201: { description: 'The copy', schema: template }, ...commonErrors, 404: notFoundResponse },
  }))();
