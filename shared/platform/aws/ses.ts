/**
 * The one SES v2 client of a process (endpoint from AWS_ENDPOINT_URL_SESV2 locally) and the
 * naming of what the service creates in SES.
 *
 * Each domain gets a configuration set of its own, `es-<domain id>`: open/click tracking, the
 * custom redirect (tracking) domain and the TLS policy are configuration-set settings in SES,
 * and the contract makes them per-domain settings. Sends from a domain use its set, whose event
 * destination publishes to the SES events topic (SES_EVENTS_TOPIC_ARN on AWS).
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { guarded } from './call-guard';

// Pure: a bundle that imports this module without using the client (a handler that only reads
// domains, or looks one up for sending) leaves the SES client out, some 60 KB.
export const sesClient = /* @__PURE__ */ guarded('ses', new SESv2Client({}));

/**
 * The client sends go through: one attempt only. The SDK would retry a throttled send on its own,
 * outside the account's send-rate limiter (shared/send-rate.ts), and its retries would land in the
 * seconds other senders hold; a throttled send goes back to the queue and takes a new slot instead.
 */
export const sesSendClient = /* @__PURE__ */ guarded('ses', new SESv2Client({ maxAttempts: 1 }));

/** The region every SES resource lives in (DESIGN.md: the domain's `region`). */
export const SES_REGION = 'ap-southeast-2';

export const configurationSetName = (domainId: string): string => `es-${domainId}`;

/** SES error names that mean "this will never succeed as sent", as opposed to throttling or a fault. */
export const PERMANENT_SEND_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'SendingPausedException',
  'BadRequestException',
  'NotFoundException',
]);
