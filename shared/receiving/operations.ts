import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, id, listOf, listQuery, notFoundResponse } from '../platform/http/schemas';
import { attachment, receivedEmail, receivedEmailSummary } from './model';

const emailParams = /* @__PURE__ */ (() => z.strictObject({ email_id: id }))();
/** Resend's `html_format`: only `cid`, which is what `html` always holds here (no data: URIs). */
const getQuery = /* @__PURE__ */ (() => z.strictObject({ html_format: z.optional(z.enum(['cid'])) }))();
const attachmentParams = /* @__PURE__ */ (() => z.strictObject({ email_id: id, attachment_id: id }))();

const RECEIVING =
  'Mail sent to any address of a verified domain with `capabilities.receiving: "enabled"` (its `Receiving` MX record points at SES); ' +
  'mail for a domain that has not verified is dropped, as SES does. ' +
  "Addresses are `Name <address>` or the bare address; `received_for` lists the envelope recipients of this project's domains; " +
  "`spam_verdict` and `virus_verdict` are SES's (`disabled` where nothing scanned, as in the local runtime). " +
  'Kept for the retention of the inbound bucket (30 days unless configured otherwise).';

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listReceivedEmails',
    summary: 'List received emails, newest first',
    description: `${RECEIVING} List items leave out \`html\`, \`text\`, \`headers\` and \`raw\`.`,
    tags: ['Receiving'],
    auth: 'api_key',
    query: listQuery,
    responses: {
      200: { description: 'A page of received emails', schema: listOf(receivedEmailSummary) },
      ...commonErrors,
    },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getReceivedEmail',
    summary: 'Retrieve a received email',
    description:
      `${RECEIVING} \`raw.download_url\` downloads the message exactly as it arrived (\`message/rfc822\`) until \`raw.expires_at\` (1 hour). ` +
      '`headers` holds every header by its lower-cased name (repeated headers joined by a newline); `html` keeps `cid:` references to inline attachments ' +
      "(Resend's `html_format=cid`; `data_uri` is not offered).",
    tags: ['Receiving'],
    auth: 'api_key',
    params: emailParams,
    query: getQuery,
    responses: {
      200: { description: 'The received email', schema: receivedEmail },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const listAttachments = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listReceivedEmailAttachments',
    summary: "List a received email's attachments",
    description:
      'In message order (`after`/`before` take an attachment id of this email); each with a `download_url` valid until `expires_at` (1 hour).',
    tags: ['Receiving'],
    auth: 'api_key',
    params: emailParams,
    query: listQuery,
    responses: {
      200: { description: 'A page of attachments', schema: listOf(attachment) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const getAttachment = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getReceivedEmailAttachment',
    summary: 'Retrieve an attachment of a received email',
    description:
      'With a `download_url` valid until `expires_at` (1 hour) that serves the attachment under its own file name and content type.',
    tags: ['Receiving'],
    auth: 'api_key',
    params: attachmentParams,
    responses: { 200: { description: 'The attachment', schema: attachment }, ...commonErrors, 404: notFoundResponse },
  }))();
