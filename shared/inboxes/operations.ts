/**
 * The inbox routes' operations (the official SDK's `inboxes.*`): one per route of functions/routes.ts.
 * `{inbox_id}` takes the inbox's id or its address, as the SDK's `inboxId` / `emailAddress`.
 */
import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  deleted,
  id,
  listOf,
  listQuery,
  notFoundResponse,
} from '../platform/http/schemas';
import {
  agentSettings,
  createDraftBody,
  createInboxBody,
  createLabelBody,
  draft,
  draftListItem,
  forwardBody,
  inbox,
  inboxSummary,
  label,
  listThreadsQuery,
  message,
  replyBody,
  searchResult,
  searchThreadsQuery,
  sendDraftBody,
  sentResponse,
  setThreadLabelsBody,
  thread,
  threadLabelList,
  threadLabelsBody,
  threadSummary,
  updateAgentBody,
  updateDraftBody,
  updateInboxBody,
  updateLabelBody,
  updateThreadBody,
} from './model';

const tags = ['Inboxes'];
const inboxRef = /* @__PURE__ */ (() =>
  z.string().check(z.minLength(1), z.maxLength(254), z.regex(/^[^\s/]+$/, 'must be an inbox id or address')))();
const inboxParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef }))();
const threadParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef, thread_id: id }))();
const messageParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef, thread_id: id, email_id: id }))();
const labelParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef, label_id: id }))();
const threadLabelParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef, thread_id: id, label_id: id }))();
const draftParams = /* @__PURE__ */ (() => z.strictObject({ inbox_id: inboxRef, draft_id: id }))();
const notFound = { 404: notFoundResponse };
const labelled = <T extends z.ZodMiniObject>(object: string, schema: T) =>
  z.extend(schema, { object: z.literal(object) });

const INBOX =
  'An inbox is one address of a verified domain of the project with `capabilities.receiving: "enabled"` (422 `invalid_inbox_domain` ' +
  'otherwise); mail to it is kept as threads. One inbox per address (409 `inbox_exists`).';
const SENDS =
  'Sent as POST /emails sends (suppressions, quotas, test mode, events and webhooks), from the inbox address with its `from_name`, ' +
  'into the thread (`direction: "outbound"`). `In-Reply-To` and `References` are set by the service; a custom `In-Reply-To`, ' +
  '`References` or `Reply-To` header is 422. Files as on POST /emails: at most 10, 25 MB of `content` together. ' +
  'Answers `{id, object: "email", thread_id}`: `id` is the email, readable at GET /emails/{id}.';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createInbox',
    summary: 'Create an inbox',
    description:
      `${INBOX} \`forwarding: true\` also gives it a \`receiving_address\` on the deployment's forwarding domain ` +
      '(INBOX_FORWARDING_DOMAIN; 422 `forwarding_unavailable` when the deployment has none): set an existing mailbox to forward there.',
    tags,
    auth: 'api_key',
    body: createInboxBody,
    responses: { 201: { description: 'The new inbox', schema: inbox }, ...commonErrors, 409: conflictResponse },
  }))();
export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listInboxes',
    summary: 'List inboxes, newest first',
    tags,
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of inboxes', schema: listOf(inboxSummary) }, ...commonErrors },
  }))();
export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getInbox',
    summary: 'Retrieve an inbox by id or address',
    description: '`unread` counts unread threads outside spam and trash; `drafts` the drafts.',
    tags,
    auth: 'api_key',
    params: inboxParams,
    responses: { 200: { description: 'The inbox', schema: inbox }, ...commonErrors, ...notFound },
  }))();
export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateInbox',
    summary: 'Update an inbox',
    description: '`name` and/or `from_name` (the display name of mail the inbox sends).',
    tags,
    auth: 'api_key',
    params: inboxParams,
    body: updateInboxBody,
    responses: { 200: { description: 'The inbox', schema: inbox }, ...commonErrors, ...notFound },
  }))();
export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteInbox',
    summary: 'Delete an inbox',
    description:
      'With its threads, labels and drafts (removed in the background; the inbox is 404 at once). The received emails stay in GET /emails/receiving.',
    tags,
    auth: 'api_key',
    params: inboxParams,
    responses: { 200: { description: 'Deleted', schema: deleted('inbox') }, ...commonErrors, ...notFound },
  }))();

export const getAgent = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getInboxAgent',
    summary: "Retrieve an inbox's agent settings",
    description:
      'This service runs no model. Once any setting is given, every `inbox.thread.created` and `inbox.message.received` event ' +
      "(and webhook) carries the settings in `data.object.agent`, so the team's own agent acts through this API.",
    tags,
    auth: 'api_key',
    params: inboxParams,
    responses: { 200: { description: 'The agent settings', schema: agentSettings }, ...commonErrors, ...notFound },
  }))();
export const updateAgent = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateInboxAgent',
    summary: "Update an inbox's agent settings",
    tags,
    auth: 'api_key',
    params: inboxParams,
    body: updateAgentBody,
    responses: {
      200: { description: 'The agent settings', schema: z.extend(agentSettings, { id }) },
      ...commonErrors,
      ...notFound,
    },
  }))();

export const listLabels = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listInboxLabels',
    summary: "List an inbox's labels, by name",
    tags,
    auth: 'api_key',
    params: inboxParams,
    responses: {
      200: { description: 'Every label', schema: z.object({ object: z.literal('list'), data: z.array(label) }) },
      ...commonErrors,
      ...notFound,
    },
  }))();
export const createLabel = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createInboxLabel',
    summary: 'Create a label',
    description:
      'Names are unique per inbox, case-insensitively (409 `label_exists`); at most 100 labels (409 `too_many_labels`). `color` #RRGGBB, else one picked from the name.',
    tags,
    auth: 'api_key',
    params: inboxParams,
    body: createLabelBody,
    responses: {
      201: { description: 'The label', schema: labelled('inbox_label', label) },
      ...commonErrors,
      ...notFound,
      409: conflictResponse,
    },
  }))();
export const updateLabel = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateInboxLabel',
    summary: 'Update a label',
    tags,
    auth: 'api_key',
    params: labelParams,
    body: updateLabelBody,
    responses: {
      200: { description: 'Updated', schema: z.object({ object: z.literal('inbox_label'), id }) },
      ...commonErrors,
      ...notFound,
      409: conflictResponse,
    },
  }))();
export const removeLabel = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteInboxLabel',
    summary: 'Delete a label',
    description: 'Threads lose it.',
    tags,
    auth: 'api_key',
    params: labelParams,
    responses: { 200: { description: 'Deleted', schema: deleted('inbox_label') }, ...commonErrors, ...notFound },
  }))();

export const listThreads = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listInboxThreads',
    summary: "List an inbox's threads, newest activity first",
    description:
      '`folders` (comma-separated; default `inbox,sent,archive`: everything but spam and trash), `labels` (label ids, comma-separated: ' +
      'threads with any of them), `read`. `after`/`before` take a thread id of the list.',
    tags,
    auth: 'api_key',
    params: inboxParams,
    query: listThreadsQuery,
    responses: { 200: { description: 'A page of threads', schema: listOf(thread) }, ...commonErrors, ...notFound },
  }))();
export const searchThreads = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'searchInboxThreads',
    summary: "Search an inbox's threads",
    description:
      '`query`: words (all must match; the last also as a prefix), `"exact phrases"`, `-excluded` words or phrases, over subject, ' +
      'body, addresses and file names (accents and case ignored). `from`, `to`, `cc`, `bcc` (comma-separated, any part of an ' +
      'address), `has_attachment`, `start_date`/`end_date` (inclusive), and the list filters (`folders` default every folder but ' +
      'trash and spam). Threads newest first, each with the newest message that matched (`matched_email_id`) and `highlights`. ' +
      'The index follows new mail within seconds (the inbox-index worker; README "Inboxes").',
    tags,
    auth: 'api_key',
    params: inboxParams,
    query: searchThreadsQuery,
    responses: {
      200: { description: 'A page of matching threads', schema: listOf(searchResult) },
      ...commonErrors,
      ...notFound,
    },
  }))();
export const getThread = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getInboxThread',
    summary: 'Retrieve a thread',
    tags,
    auth: 'api_key',
    params: threadParams,
    responses: { 200: { description: 'The thread', schema: threadSummary }, ...commonErrors, ...notFound },
  }))();
export const updateThread = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateInboxThread',
    summary: 'Mark a thread read or unread, or move it',
    description: '`folder`: `inbox`, `archive`, `spam` or `trash` (a thread in trash is deleted 30 days later).',
    tags,
    auth: 'api_key',
    params: threadParams,
    body: updateThreadBody,
    responses: { 200: { description: 'The thread', schema: threadSummary }, ...commonErrors, ...notFound },
  }))();
export const removeThread = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteInboxThread',
    summary: 'Delete a thread',
    description: 'With its messages (the emails themselves stay in GET /emails and GET /emails/receiving).',
    tags,
    auth: 'api_key',
    params: threadParams,
    responses: { 200: { description: 'Deleted', schema: deleted('inbox_thread') }, ...commonErrors, ...notFound },
  }))();
export const addThreadLabels = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'addInboxThreadLabels',
    summary: 'Add labels to a thread',
    description: '1-10 label ids of the inbox (422 `unknown_label` for another); answers every label of the thread.',
    tags,
    auth: 'api_key',
    params: threadParams,
    body: threadLabelsBody,
    responses: { 200: { description: "The thread's labels", schema: threadLabelList }, ...commonErrors, ...notFound },
  }))();
export const setThreadLabels = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'setInboxThreadLabels',
    summary: "Replace a thread's labels",
    description: '0-10 label ids of the inbox.',
    tags,
    auth: 'api_key',
    params: threadParams,
    body: setThreadLabelsBody,
    responses: { 200: { description: "The thread's labels", schema: threadLabelList }, ...commonErrors, ...notFound },
  }))();
export const removeThreadLabel = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'removeInboxThreadLabel',
    summary: 'Remove a label from a thread',
    tags,
    auth: 'api_key',
    params: threadLabelParams,
    responses: { 200: { description: "The thread's labels", schema: threadLabelList }, ...commonErrors, ...notFound },
  }))();

export const listMessages = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listInboxThreadEmails',
    summary: "List a thread's emails, oldest first",
    description:
      "The conversation with bodies: an inbound message's are its received email's, an outbound one's its email's content. Bodies of one " +
      'answer take at most 5 MB (4 MB per message); past it `truncated` is true and the whole message is at GET /emails/receiving/{id} ' +
      '(`raw`) or GET /emails/{id}. Attachments download through those routes too (the message id is the email id).',
    tags,
    auth: 'api_key',
    params: threadParams,
    query: listQuery,
    responses: { 200: { description: 'A page of messages', schema: listOf(message) }, ...commonErrors, ...notFound },
  }))();
export const getMessage = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getInboxThreadEmail',
    summary: 'Retrieve an email of a thread',
    tags,
    auth: 'api_key',
    params: messageParams,
    responses: { 200: { description: 'The message', schema: message }, ...commonErrors, ...notFound },
  }))();
export const reply = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'replyInboxThreadEmail',
    summary: 'Reply to an email of a thread',
    description:
      `To the original's Reply-To, else its sender (a message the inbox sent: its \`to\`); \`reply_all\` adds its other \`to\` and \`cc\`; ` +
      `at most 50 recipients. Subject \`Re: <original>\` unless given. ${SENDS}`,
    tags,
    auth: 'api_key',
    params: messageParams,
    body: replyBody,
    responses: { 200: { description: 'The email sent', schema: sentResponse }, ...commonErrors, ...notFound },
  }))();
export const forward = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'forwardInboxThreadEmail',
    summary: 'Forward an email of a thread',
    description:
      "The original's attachments travel with it (counted in the limits; one sent from a URL cannot: 422), its text below a " +
      `"Forwarded message" header. Subject \`Fwd: <original>\` unless given. ${SENDS}`,
    tags,
    auth: 'api_key',
    params: messageParams,
    body: forwardBody,
    responses: { 200: { description: 'The email sent', schema: sentResponse }, ...commonErrors, ...notFound },
  }))();

export const listDrafts = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listInboxDrafts',
    summary: "List an inbox's drafts, newest first",
    tags,
    auth: 'api_key',
    params: inboxParams,
    query: listQuery,
    responses: {
      200: { description: 'A page of drafts', schema: listOf(draftListItem) },
      ...commonErrors,
      ...notFound,
    },
  }))();
export const createDraft = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createInboxDraft',
    summary: 'Create a draft',
    description:
      'Standalone, or a reply with `thread_id` and `reply_to_email_id` (one per email: when there is one, 200 with it). html and text ' +
      'take at most 300 KB together; files (content, or a `path` downloaded now) at most 10 and 25 MB (422 for an empty or unreadable one).',
    tags,
    auth: 'api_key',
    params: inboxParams,
    body: createDraftBody,
    responses: {
      201: { description: 'The new draft', schema: draft },
      200: { description: 'The reply draft already there for that email', schema: draft },
      ...commonErrors,
      ...notFound,
    },
  }))();
export const getDraft = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getInboxDraft',
    summary: 'Retrieve a draft',
    tags,
    auth: 'api_key',
    params: draftParams,
    responses: { 200: { description: 'The draft', schema: draft }, ...commonErrors, ...notFound },
  }))();
export const updateDraft = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateInboxDraft',
    summary: 'Update a draft',
    description: '`attachments` replaces every file (`[]` or null removes them).',
    tags,
    auth: 'api_key',
    params: draftParams,
    body: updateDraftBody,
    responses: { 200: { description: 'The draft', schema: draft }, ...commonErrors, ...notFound },
  }))();
export const removeDraft = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteInboxDraft',
    summary: 'Delete a draft',
    tags,
    auth: 'api_key',
    params: draftParams,
    responses: { 200: { description: 'Deleted', schema: deleted('inbox_draft') }, ...commonErrors, ...notFound },
  }))();
export const sendDraft = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sendInboxDraft',
    summary: 'Send a draft',
    description: `A reply draft goes into its thread (to the original's sender unless it has \`to\`), a standalone one starts a thread in \`sent\` (it needs \`to\` and \`subject\`). The draft is gone once sent. ${SENDS}`,
    tags,
    auth: 'api_key',
    params: draftParams,
    body: sendDraftBody,
    responses: { 200: { description: 'The email sent', schema: sentResponse }, ...commonErrors, ...notFound },
  }))();
