import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  cursorListQuery,
  deleted,
  id,
  listOf,
  listQuery,
  notFoundResponse,
} from '../platform/http/schemas';
import {
  broadcast,
  broadcastRecipient,
  createBody,
  RECIPIENT_BOUNCE_TYPES,
  RECIPIENT_EVENT_TYPES,
  scheduledAt,
  updateBody,
} from './model';

const params = /* @__PURE__ */ (() => z.strictObject({ broadcast_id: id }))();
const tags = ['Broadcasts'];
const notDraft = {
  description: 'The broadcast is not a draft (`broadcast_not_draft`) or cannot be canceled in its state',
  schema: conflictResponse.schema,
};
const tooLarge = {
  description: 'The broadcast is over 350 KB, the size limit of one email (`broadcast_too_large`)',
  schema: conflictResponse.schema,
};

const placeholders =
  'html, text, subject and preview_text may use `{{{FIRST_NAME}}}`, `{{{LAST_NAME}}}`, `{{{EMAIL}}}` (or `{{{contact.first_name}}}`, `{{{contact.last_name}}}`, `{{{contact.email}}}`), ' +
  '`{{{RESEND_UNSUBSCRIBE_URL}}}` and contact properties by key (`{{{plan}}}` or `{{{contact.plan}}}`: the value of the contact, else the `fallback_value` of the property), ' +
  '`{{KEY}}` HTML-escaped in html. `{{{KEY|fallback}}}` (as Resend) renders the fallback for a contact whose value is missing or empty: the text after `|` up to the braces, ' +
  'its end spaces trimmed, taken literally (quotes included, no braces), escaped in `{{…}}` like a value. ' +
  "A placeholder without a fallback whose key is none of these is 422 `unresolvable_placeholder` naming the field (in a project without contact properties, any key may be a contact's free-form property and is taken); " +
  'one whose braces do not pair (`{{{FIRST_NAME|there}}`) is 422 `malformed_placeholder`. ';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createBroadcast',
    summary: 'Create a broadcast',
    description:
      'A draft to the segment `segment_id`, optionally only to the contacts subscribed to `topic_id`. `html` or `text` is required. ' +
      '`send: true` sends it right away; `scheduled_at` (also without `send`) schedules it, as in POST /broadcasts/{broadcast_id}/send. The segment and topic must exist (422 naming the field). ' +
      placeholders +
      '`subject` refuses line breaks and control characters (422); in the subject each value has its line breaks and control characters replaced by a space. ' +
      '`from` is one mailbox whose display name holds no address, `,` or `;`.',
    tags,
    auth: 'api_key',
    body: createBody,
    responses: { 201: { description: 'The new broadcast', schema: broadcast }, ...commonErrors, 413: tooLarge },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listBroadcasts',
    summary: 'List broadcasts, newest first',
    tags,
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of broadcasts', schema: listOf(broadcast) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getBroadcast',
    summary: 'Retrieve a broadcast, with its counters',
    description:
      '`counters`: `recipients` contacts of the segment handled so far, `sent` emails handed to the send pipeline (each email has its own status, ' +
      'with `broadcast_id`), `skipped` (unsubscribed, opted out of the topic, suppressed, or deleted since), `failed` (no email could be made, e.g. over the size limit).',
    tags,
    auth: 'api_key',
    params,
    responses: { 200: { description: 'The broadcast', schema: broadcast }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateBroadcast',
    summary: 'Update a draft broadcast',
    description: `${placeholders}Only the fields the request gives are checked.`,
    tags,
    auth: 'api_key',
    params,
    body: updateBody,
    responses: {
      200: { description: 'The broadcast', schema: broadcast },
      ...commonErrors,
      404: notFoundResponse,
      409: notDraft,
      413: tooLarge,
    },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteBroadcast',
    summary: 'Delete a draft broadcast',
    tags,
    auth: 'api_key',
    params,
    responses: {
      200: { description: 'The broadcast is gone', schema: deleted('broadcast') },
      ...commonErrors,
      404: notFoundResponse,
      409: notDraft,
    },
  }))();

export const send = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sendBroadcast',
    summary: 'Send or schedule a draft broadcast',
    description:
      'Without `scheduled_at` (or with a time already past) the broadcast is `queued` and fans out at once; otherwise `scheduled` (at most 30 days ahead). ' +
      '`scheduled_at` is ISO 8601 with an offset, or English natural language as Resend takes it (`in 1 hour`, `tomorrow at 9am`, optionally ending with a zone: ' +
      "`EST`, `+10:00`, `America/New_York`; without one, UTC), counted from the request's arrival; the broadcast shows the ISO instant (UTC). A phrase that cannot be read is 422 `invalid_scheduled_at`. " +
      'The `from` domain must be a sending domain of the project (verified, for live keys): 422 otherwise. Only a draft can be sent (409).',
    tags,
    auth: 'api_key',
    params,
    body: z.strictObject({ scheduled_at: z.optional(scheduledAt) }),
    responses: {
      200: { description: 'The broadcast, queued or scheduled', schema: broadcast },
      ...commonErrors,
      404: notFoundResponse,
      409: notDraft,
    },
  }))();

export const cancel = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'cancelBroadcast',
    summary: 'Cancel a scheduled, queued or sending broadcast',
    description:
      'A broadcast that is sending stops before its next page of recipients; emails already handed to the send pipeline go out. Other states: 409.',
    tags,
    auth: 'api_key',
    params,
    responses: {
      200: { description: 'The broadcast, canceled', schema: broadcast },
      ...commonErrors,
      404: notFoundResponse,
      409: notDraft,
    },
  }))();

export const duplicate = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'duplicateBroadcast',
    summary: 'Copy a broadcast into a new draft',
    tags,
    auth: 'api_key',
    params,
    responses: { 201: { description: 'The new draft', schema: broadcast }, ...commonErrors, 404: notFoundResponse },
  }))();

export const listRecipients = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listBroadcastRecipients',
    summary: "List a broadcast's recipients, each with its email's status",
    description:
      'One entry per contact of the segment the fan-out has handled so far (none for a draft), newest contact first; `id` is the contact id, the cursor of `after` and `before`. ' +
      '`outcome` is `sent`, `skipped` or `failed`, as the counters count them, with `reason` for the last two (`unsubscribed`, `topic_opt_out`, `suppressed`, `contact_deleted`; ' +
      "`email_too_large`, `daily_quota_exceeded`, `monthly_quota_exceeded`). `status` is the email's `last_event` (as GET /emails/{email_id} shows it) for a sent recipient, " +
      '`skipped` or `failed` for one that got no email, and null once the email is past its retention (its `email_id` stays). ' +
      'The entries are kept 90 days after the fan-out; then the list is empty (the broadcast keeps its counters). ' +
      "`email` narrows the list to the project's contact with that address (any case): at most one entry. " +
      '`type` (which the Resend SDK requires: one of its event types, or `all`) and `bounce_type` are accepted and not applied: every recipient comes with its `status` to filter on, so each `type` lists what `all` lists.',
    tags,
    auth: 'api_key',
    params,
    query: z.extend(listQuery, {
      type: z.optional(z.enum(['all', ...RECIPIENT_EVENT_TYPES])),
      email: z.optional(z.string().check(z.minLength(1), z.maxLength(254))),
      bounce_type: z.optional(z.enum(RECIPIENT_BOUNCE_TYPES)),
    }),
    responses: {
      200: { description: "A page of the broadcast's recipients", schema: listOf(broadcastRecipient) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

const tokenParams = /* @__PURE__ */ (() =>
  z.strictObject({ token: z.string().check(z.minLength(1), z.maxLength(512)) }))();

export const unsubscribePage = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'unsubscribePage',
    summary: 'The page behind an unsubscribe link',
    description:
      'No key: the signed token is the credential. Shows what a POST would do and a button that does it; a GET never changes anything (link scanners follow links).',
    tags: ['Unsubscribe'],
    auth: 'none',
    params: tokenParams,
    responses: {
      200: { description: 'An HTML page', contentType: 'text/html', schema: z.string() },
      404: notFoundResponse,
    },
  }))();

export const unsubscribe = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'unsubscribe',
    summary: 'One-click unsubscribe (RFC 8058)',
    description:
      "No key: the signed token is the credential. Unsubscribes the contact from the broadcast's topic (its subscription becomes `opt_out`), or, for a broadcast without a topic, " +
      'from everything (`unsubscribed: true`). Any body is ignored (mail clients send `List-Unsubscribe=One-Click`). Repeating it changes nothing.',
    tags: ['Unsubscribe'],
    auth: 'none',
    params: tokenParams,
    responses: {
      200: { description: 'An HTML confirmation', contentType: 'text/html', schema: z.string() },
      404: notFoundResponse,
    },
  }))();

const linkId = /* @__PURE__ */ (() =>
  z.string().check(z.regex(/^[0-9a-f]{16}$/, 'must be the id of a link of this broadcast')))();

export const listClickedLinks = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listBroadcastClickedLinks',
    summary: 'How often each link of a broadcast was clicked',
    description:
      "From SES's Click events (on AWS when the sending domain tracks clicks; locally `click@simulator.amazonses.com`): `clicks` every click, " +
      "`unique_clicks` each recipient's first on the link (a recipient's first 25 links are told apart; past them every click counts as unique). " +
      'Most clicked first; `id` is an opaque cursor for `after` / `before` (a hash of the URL), as Resend says.',
    tags,
    auth: 'api_key',
    params,
    // the cursor is a link's id (16 hex digits), not a resource id
    query: cursorListQuery(linkId),
    responses: {
      200: {
        description: 'A page of links',
        schema: listOf(z.object({ id: z.string(), url: z.string(), clicks: z.number(), unique_clicks: z.number() })),
      },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
