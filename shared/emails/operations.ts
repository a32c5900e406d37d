import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, conflictResponse, errorEnvelope, id, listOf, listQuery, notFoundResponse, timestamp } from '../platform/http/schemas';
import { address, addresses } from './model';

const TAG = /^[A-Za-z0-9_-]{1,256}$/;
const tag = z.strictObject({
  name: z.string().check(z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters')),
  value: z.string().check(z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters')),
});
const attachment = z.strictObject({
  filename: z.string().check(z.minLength(1), z.maxLength(256)),
  content: z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')),
  content_type: z.optional(z.string().check(z.maxLength(256))),
});

export const MAX_RECIPIENTS = 50;
export const MAX_BATCH = 100;

/** `template.variables`: values by key, a string or a number as the variable is declared. */
const templateRef = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  variables: z.optional(z.record(z.string().check(z.maxLength(64)), z.union([z.string(), z.number().check(z.refine(Number.isFinite, 'must be a finite number'))]))),
});
const FROM_TEMPLATE = 'comes from the template: leave it out when sending with template';

export const sendEmailBody = z
  .strictObject({
    from: z.optional(address),
    to: addresses,
    cc: z.optional(addresses),
    bcc: z.optional(addresses),
    reply_to: z.optional(addresses),
    subject: z.optional(z.string().check(z.minLength(1), z.maxLength(998))),
    html: z.optional(z.string()),
    text: z.optional(z.string()),
    headers: z.optional(z.record(z.string().check(z.regex(/^[!-9;-~]{1,256}$/, 'must be a header name')), z.string().check(z.maxLength(2048)))),
    tags: z.optional(z.array(tag).check(z.maxLength(50))),
    scheduled_at: z.optional(z.iso.datetime({ offset: true })),
    attachments: z.optional(z.array(attachment).check(z.maxLength(20))),
    template: z.optional(templateRef),
  })
  .check(
    // from and subject are required, unless a template is given (it may have them; shared/templates/templates.ts)
    z.superRefine((e, ctx) => {
      if (e.template !== undefined) return;
      for (const field of ['from', 'subject'] as const) {
        if (e[field] === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [field] });
      }
    }),
    z.refine((e) => e.template !== undefined || e.html !== undefined || e.text !== undefined, { message: 'html or text is required', path: ['html'] }),
    z.refine((e) => e.template === undefined || e.html === undefined, { message: `html ${FROM_TEMPLATE}`, path: ['html'] }),
    z.refine((e) => e.template === undefined || e.text === undefined, { message: `text ${FROM_TEMPLATE}`, path: ['text'] }),
    z.refine((e) => [e.to, e.cc ?? [], e.bcc ?? []].flat().length <= MAX_RECIPIENTS, {
      message: `to, cc and bcc together take at most ${MAX_RECIPIENTS} addresses`,
      path: ['to'],
    }),
  );
export type SendEmailInput = z.output<typeof sendEmailBody>;

export const email = z.object({
  object: z.literal('email'),
  id,
  message_id: z.nullable(z.string()),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  reply_to: z.array(z.string()),
  subject: z.string(),
  html: z.nullable(z.string()),
  text: z.nullable(z.string()),
  headers: z.record(z.string(), z.string()),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
  last_event: z.string(),
  scheduled_at: z.nullable(timestamp),
  created_at: timestamp,
  broadcast_id: z.optional(id),
});

const emailParams = z.strictObject({ email_id: id });
const templateNote =
  "With `template: {id, variables?}` (`id` the template's id or alias) the email is the template's published version " +
  'rendered with `variables`: `{{{KEY}}}` inserts a value as it is, `{{KEY}}` HTML-escaped (in html; as it is in text and ' +
  'subject); a declared variable without a value takes its fallback. `html` and `text` must then be left out; `from`, ' +
  "`subject` and `reply_to` default to the template's. 422 (path under `template`): `template_not_found`, " +
  '`template_not_published` (never published), `unknown_template_variable` (not declared), `invalid_template_variable` ' +
  '(not of the declared type), `missing_template_variable` (used, no value, no fallback); a rendered subject must be 1-998 characters (`invalid_subject`).';
const idempotencyNote =
  'With an `Idempotency-Key` header (1-256 characters), the same key and body within 24 h replays the first response ' +
  'and sends nothing new; the same key with another body is 409 `invalid_idempotent_request`. A replay answers only ids of ' +
  'emails that were written.';

export const send = defineOperation({
  operationId: 'sendEmail',
  summary: 'Send an email',
  description:
    'Stores the email as `queued` (or `scheduled` when `scheduled_at` is in the future) and sends it through SES from the ' +
    "sender's verified domain. Live keys need a verified domain; test keys (`es_test_`) may use any domain of the " +
    'project and never reach SES. `html` or `text` must have content, after rendering a template (422 `missing_content`). ' +
    "The sender checks the From domain again: an email whose domain is no longer the project's, enabled and (live) verified " +
    'ends `failed` with the reason, without reaching SES; deleting a domain cancels its emails still waiting. ' +
    templateNote +
    ' ' +
    idempotencyNote,
  tags: ['Emails'],
  auth: 'api_key',
  scope: 'sending_access',
  body: sendEmailBody,
  responses: { 200: { description: 'The email is accepted', schema: z.object({ id }) }, ...commonErrors, 409: conflictResponse },
});

export const sendBatch = defineOperation({
  operationId: 'sendBatchEmails',
  summary: 'Send up to 100 emails at once',
  description:
    'Strict: every email is validated first; one invalid email refuses the whole batch (422, paths start with its index). ' +
    'All or nothing: the emails are written together or none is (a batch over one DynamoDB transaction is staged and ' +
    'committed by one write). ' +
    'Each email may use a `template` as in POST /emails; each distinct template is read once. ' +
    idempotencyNote,
  tags: ['Emails'],
  auth: 'api_key',
  scope: 'sending_access',
  body: z.array(sendEmailBody).check(z.minLength(1), z.maxLength(MAX_BATCH)),
  responses: { 200: { description: 'The emails are accepted', schema: z.object({ data: z.array(z.object({ id })) }) }, ...commonErrors, 409: conflictResponse },
});

export const get = defineOperation({
  operationId: 'getEmail',
  summary: 'Retrieve an email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: { 200: { description: 'The email', schema: email }, ...commonErrors, 404: notFoundResponse },
});

export const list = defineOperation({
  operationId: 'listEmails',
  summary: 'List emails, newest first',
  tags: ['Emails'],
  auth: 'api_key',
  query: listQuery,
  responses: { 200: { description: 'A page of emails', schema: listOf(email) }, ...commonErrors },
});

export const update = defineOperation({
  operationId: 'updateEmail',
  summary: 'Reschedule a scheduled email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  body: z.strictObject({ scheduled_at: z.iso.datetime({ offset: true }) }),
  responses: {
    200: { description: 'The email, rescheduled', schema: z.object({ object: z.literal('email'), id }) },
    ...commonErrors,
    404: notFoundResponse,
    409: { description: 'The email is not scheduled (any more)', schema: errorEnvelope },
  },
});

export const cancel = defineOperation({
  operationId: 'cancelEmail',
  summary: 'Cancel a scheduled email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: {
    200: { description: 'The email is canceled', schema: z.object({ object: z.literal('email'), id }) },
    ...commonErrors,
    404: notFoundResponse,
    409: { description: 'The email is not scheduled (any more)', schema: errorEnvelope },
  },
});

const retryError = z.object({ name: z.string(), message: z.string(), statusCode: z.number(), errors: z.record(z.string(), z.unknown()) });
export const retry = defineOperation({
  operationId: 'retryEmail',
  summary: 'Re-queue a failed email',
  description:
    'Allowed only when `last_event` is `failed`: the email goes back to `queued` and is sent again. ' +
    'As the contract says, the 404 and 409 bodies carry `errors` as an object, e.g. `{"code":"email_not_retryable","last_event":"delivered"}`.',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: {
    200: { description: 'The email, re-queued', schema: email },
    ...commonErrors,
    404: { description: 'No such email', schema: retryError },
    409: { description: 'The email is not in a retryable state', schema: retryError },
  },
});
