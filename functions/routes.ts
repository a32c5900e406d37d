/**
 * The route table: the whole API surface in one list. The CDK stack makes one Lambda per entry
 * (with exactly the table actions listed) and an API Gateway route for it; the local runtime
 * dispatches HTTP requests through the same list to the same handler modules; the OpenAPI
 * document is generated from it. A request no entry matches goes to `fallbackRoute` (the
 * `$default` route on AWS): 405 when the path exists with other methods, 404 otherwise.
 */
import type { Operation } from '../shared/platform/http/operation';
import { matchPath } from '../shared/platform/http/paths';
import { type Needs, ROUTE_TIMEOUT_SECONDS, type TableAction } from './needs';
import { API_KEY_HASH_PK_PATTERN, RATE_WINDOW_PK_PATTERN, REQUEST_LOG_PK_PATTERN } from '../shared/platform/db/keys';
import * as apiKeyOps from '../shared/access/operations/api-keys';
import * as projectOps from '../shared/project/operations';
import * as broadcastOps from '../shared/broadcasts/operations';
import * as contactOps from '../shared/audience/operations/contacts';
import * as importOps from '../shared/audience/operations/imports';
import * as contactPropertyOps from '../shared/audience/operations/contact-properties';
import * as domainOps from '../shared/domains/operations';
import * as deliverabilityOps from '../shared/deliverability/operations';
import * as emailOps from '../shared/emails/operations';
import * as eventOps from '../shared/events/operations';
import * as customEventOps from '../shared/automations/operations/custom-events';
import * as automationOps from '../shared/automations/operations/automations';
import * as logOps from '../shared/logs/operations';
import * as oauthOps from '../shared/access/operations/oauth';
import * as receivingOps from '../shared/receiving/operations';
import * as inboxOps from '../shared/inboxes/operations';
import { INDEX_MEMORY_MB } from '../shared/inboxes/model';
import * as segmentOps from '../shared/audience/operations/segments';
import * as serviceOps from '../shared/platform/http/service-operations';
import * as suppressionOps from '../shared/suppressions/operations';
import * as templateOps from '../shared/templates/operations';
import * as topicOps from '../shared/audience/operations/topics';
import * as webhookOps from '../shared/webhooks/operations';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Route {
  method: HttpMethod;
  /** API Gateway route syntax */
  path: string;
  /** module under functions/, without extension, exporting `handler` */
  handler: string;
  operation: Operation;
  /** what the function may do on AWS (functions/needs.ts), besides the API-key GetItem every authenticated route gets */
  needs: Needs;
  /** gets PUBLIC_API_URL, the API's base URL (the OAuth metadata's issuer) */
  publicApiUrl?: boolean;
  /** gets INBOX_FORWARDING_DOMAIN, the domain of the inboxes' forwarding addresses, when the deployment has one */
  forwardingDomain?: boolean;
  /** gets REPORTS_DOMAIN, the domain of the domains' DMARC and TLS report addresses, when the deployment has one */
  reportsDomain?: boolean;
  /** the function's bundle carries the console's built files (functions/dashboard/build.ts) */
  consoleAssets?: boolean;
  /** the function's timeout when ROUTE_TIMEOUT_SECONDS (10 s) is too short; HTTP API waits 30 s at most */
  timeoutSeconds?: number;
  /** the function's memory when ROUTE_MEMORY_MB is not right for it (functions/needs.ts `routeMemoryMb`) */
  memoryMb?: number;
}

/** A route's Lambda timeout, on AWS and in the local runtime. */
export const routeTimeoutSeconds = (route: Pick<Route, 'timeoutSeconds'>): number => route.timeoutSeconds ?? ROUTE_TIMEOUT_SECONDS;

/**
 * POST /emails/batch is the heaviest write of the API: up to 100 emails and ~5 MB, which past one
 * transaction are staged, committed and published (three passes over the bytes, shared/emails/emails.ts).
 * Locally, on a busy 2-core machine, that took 8-12 s of 10; on AWS DynamoDB throttling can stretch it
 * the same way. Below HTTP API's 30 s, with room for a cold start. DELETE /segments/{id} gets the same:
 * it removes up to 1,000 memberships before it answers (shared/audience/segments.ts).
 */
const BATCH_TIMEOUT_SECONDS = 25;
/**
 * The domain routes that call SES's control plane (POST /domains makes up to ten calls: identity,
 * configuration set, event destination, MAIL FROM, the project's tenant and its associations). Those
 * APIs take a few requests a second per account and the SDK backs off when throttled, so 10 s is
 * tight on AWS; locally, on a busy 2-core machine, POST /domains and its verify outlived 10 s.
 */
const SES_CONTROL_TIMEOUT_SECONDS = 25;
/** What creating a domain calls in SES (POST /domains, and the verify that completes a domain claim with the same code). */
const DOMAIN_CREATE_SES: readonly `ses:${string}`[] = [
  'ses:CreateConfigurationSet',
  'ses:CreateConfigurationSetEventDestination',
  'ses:CreateEmailIdentity',
  'ses:PutEmailIdentityMailFromAttributes',
  'ses:GetEmailIdentity',
  'ses:DeleteEmailIdentity',
  'ses:DeleteConfigurationSet',
  // the project's SES tenant (shared/domains/tenants.ts)
  'ses:CreateTenant',
  'ses:TagResource', // CreateTenant carries the project's id as a tag: tag on create needs TagResource too
  'ses:GetTenant',
  'ses:UpdateReputationEntityPolicy',
  'ses:CreateTenantResourceAssociation',
];

/**
 * The send queues an inbox's reply, forward or sent draft reaches only as POST /emails reaches them (the same
 * acceptEmails and sendQueueOf): in test mode, and with a `path` attachment.
 */
const PATH_UNTESTED = {
  'sqs:SendMessage:attachment-fetch': "a `path` attachment: the fetch stage, as POST /emails' (test/api/attachments.test.ts)",
};
const INBOX_SEND_UNTESTED = {
  ...PATH_UNTESTED,
  'sqs:SendMessage:send-test':
    "a test-mode send: the queue POST /emails' sendQueueOf picks, as a test-mode reply reaches it (test/api/inboxes.test.ts)",
};

export const routes: readonly Route[] = [
  { method: 'GET', path: '/health', handler: 'health', operation: serviceOps.health, needs: {} },
  { method: 'GET', path: '/openapi.json', handler: 'openapi', operation: serviceOps.openapi, needs: {} },
  // The web console and the OAuth consent page: static files, no key (functions/dashboard/serve.ts); `{proxy+}` is the rest of the path
  { method: 'GET', path: '/dashboard', handler: 'dashboard/serve', operation: serviceOps.dashboard, needs: {}, consoleAssets: true },
  { method: 'GET', path: '/dashboard/{proxy+}', handler: 'dashboard/serve', operation: serviceOps.dashboardFile, needs: {}, consoleAssets: true },

  // The calling key's project: limits, quotas, usage (shared/project/settings.ts)
  // ses:GetReputationEntity: what SES says of the project's tenant (shared/domains/tenants.ts tenantReputation)
  { method: 'GET', path: '/project', handler: 'project/get', operation: projectOps.get, needs: { table: ['GetItem', 'BatchGetItem', 'Query'], ses: ['ses:GetReputationEntity'] } },
  { method: 'GET', path: '/usage', handler: 'project/usage', operation: projectOps.usage, needs: { table: ['GetItem', 'BatchGetItem', 'Query'] } },
  { method: 'POST', path: '/api-keys', handler: 'api-keys/create', operation: apiKeyOps.create, needs: { table: ['PutItem'] } },
  { method: 'GET', path: '/api-keys', handler: 'api-keys/list', operation: apiKeyOps.list, needs: { table: ['Query', 'BatchGetItem'] } }, // BatchGetItem: the keys' last use, on their hash items
  { method: 'PATCH', path: '/api-keys/{api_key_id}', handler: 'api-keys/update', operation: apiKeyOps.update, needs: { table: ['UpdateItem', 'BatchGetItem'] } },
  { method: 'DELETE', path: '/api-keys/{api_key_id}', handler: 'api-keys/delete', operation: apiKeyOps.remove, needs: { table: ['GetItem', 'DeleteItem', 'PutItem'] } },

  { method: 'POST', path: '/segments', handler: 'segments/create', operation: segmentOps.create, needs: { table: ['PutItem'] } },
  { method: 'GET', path: '/segments', handler: 'segments/list', operation: segmentOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/segments/{segment_id}', handler: 'segments/get', operation: segmentOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/segments/{segment_id}', handler: 'segments/update', operation: segmentOps.update, needs: { table: ['UpdateItem'] } },
  // deleting a segment also removes its memberships (Query the members, BatchGet their contacts, update them)
  // up to 1,000 memberships removed in the request: at 10 s, clean-clone runs on two busy cores timed out
  {
    method: 'DELETE',
    path: '/segments/{segment_id}',
    handler: 'segments/delete',
    operation: segmentOps.remove,
    needs: { table: ['DeleteItem', 'Query', 'BatchGetItem', 'UpdateItem'] },
    timeoutSeconds: BATCH_TIMEOUT_SECONDS,
  },

  // Contacts (`{contact_id}` takes the contact's id or its email address)
  // GetItem: the contact property schema, when the body has `properties` (shared/audience/contact-properties.ts)
  { method: 'POST', path: '/contacts', handler: 'contacts/create', operation: contactOps.create, needs: { table: ['GetItem', 'PutItem', 'ConditionCheckItem', 'UpdateItem', 'BatchGetItem'] } }, // UpdateItem: the contact counter; BatchGetItem: the count under the contact limit
  { method: 'GET', path: '/contacts', handler: 'contacts/list', operation: contactOps.list, needs: { table: ['Query', 'GetItem', 'BatchGetItem'] } },
  { method: 'GET', path: '/contacts/{contact_id}', handler: 'contacts/get', operation: contactOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/contacts/{contact_id}', handler: 'contacts/update', operation: contactOps.update, needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem'] } },
  { method: 'DELETE', path: '/contacts/{contact_id}', handler: 'contacts/delete', operation: contactOps.remove, needs: { table: ['GetItem', 'DeleteItem', 'PutItem', 'UpdateItem'] } }, // UpdateItem: the contact counter
  { method: 'GET', path: '/contacts/{contact_id}/segments', handler: 'contacts/list-segments', operation: contactOps.listSegments, needs: { table: ['GetItem', 'BatchGetItem'] } },
  { method: 'POST', path: '/contacts/{contact_id}/segments/{segment_id}', handler: 'contacts/add-segment', operation: contactOps.addSegment, needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'ConditionCheckItem'] } },
  { method: 'DELETE', path: '/contacts/{contact_id}/segments/{segment_id}', handler: 'contacts/remove-segment', operation: contactOps.removeSegment, needs: { table: ['GetItem', 'UpdateItem', 'DeleteItem', 'PutItem'] } },
  { method: 'GET', path: '/contacts/{contact_id}/topics', handler: 'contacts/list-topics', operation: contactOps.listTopics, needs: { table: ['GetItem', 'Query'] } },
  { method: 'PATCH', path: '/contacts/{contact_id}/topics', handler: 'contacts/update-topics', operation: contactOps.updateTopics, needs: { table: ['GetItem', 'UpdateItem', 'ConditionCheckItem', 'PutItem'] } },
  // Contact imports (a CSV in the content bucket, written by the contact-imports worker of functions/workers.ts; literal `/contacts/imports` wins over `/contacts/{contact_id}`)
  // POST: an inline file is put in the bucket; an upload's file is headed and its first bytes read (GetObject)
  { method: 'POST', path: '/contacts/imports', handler: 'contacts/imports/create', operation: importOps.create, needs: { table: ['PutItem', 'ConditionCheckItem', 'GetItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem'], queues: ['contact-imports'], contentBucket: 'read-write', untested: { 'dynamodb:DeleteItem': "releases the project's running import when the import's message could not be queued (SQS refusing a send)" } } },
  // a presigned PUT for a file larger than a request: signing it needs the PutObject the URL grants; nothing is stored
  { method: 'POST', path: '/contacts/imports/uploads', handler: 'contacts/imports/create-upload', operation: importOps.createUpload, needs: { contentBucket: 'write' } },
  { method: 'GET', path: '/contacts/imports', handler: 'contacts/imports/list', operation: importOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/contacts/imports/{import_id}', handler: 'contacts/imports/get', operation: importOps.get, needs: { table: ['GetItem'] } },
  { method: 'GET', path: '/segments/{segment_id}/contacts', handler: 'contacts/list-by-segment', operation: contactOps.listBySegment, needs: { table: ['GetItem', 'Query', 'BatchGetItem'] } },

  // Topics
  { method: 'POST', path: '/topics', handler: 'topics/create', operation: topicOps.create, needs: { table: ['PutItem'] } },
  { method: 'GET', path: '/topics', handler: 'topics/list', operation: topicOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/topics/{topic_id}', handler: 'topics/get', operation: topicOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/topics/{topic_id}', handler: 'topics/update', operation: topicOps.update, needs: { table: ['GetItem', 'UpdateItem', 'PutItem'] } },
  { method: 'DELETE', path: '/topics/{topic_id}', handler: 'topics/delete', operation: topicOps.remove, needs: { table: ['GetItem', 'DeleteItem', 'PutItem'] } },

  // Contact properties: the project's schema of contact `properties`, one item read and put back whole (shared/audience/contact-properties.ts)
  { method: 'POST', path: '/contact-properties', handler: 'contact-properties/create', operation: contactPropertyOps.create, needs: { table: ['GetItem', 'PutItem'] } },
  { method: 'GET', path: '/contact-properties', handler: 'contact-properties/list', operation: contactPropertyOps.list, needs: { table: ['GetItem'] } },
  { method: 'GET', path: '/contact-properties/{contact_property_id}', handler: 'contact-properties/get', operation: contactPropertyOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/contact-properties/{contact_property_id}', handler: 'contact-properties/update', operation: contactPropertyOps.update, needs: { table: ['GetItem', 'PutItem'] } },
  { method: 'DELETE', path: '/contact-properties/{contact_property_id}', handler: 'contact-properties/delete', operation: contactPropertyOps.remove, needs: { table: ['GetItem', 'PutItem'] } },

  // Domains
  {
    method: 'POST', path: '/domains', handler: 'domains/create', operation: domainOps.create,
    needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'], ses: DOMAIN_CREATE_SES },
    timeoutSeconds: SES_CONTROL_TIMEOUT_SECONDS,
    reportsDomain: true, // the records suggest the report addresses (shared/domains/report-addresses.ts)
  },
  { method: 'GET', path: '/domains', handler: 'domains/list', operation: domainOps.list, needs: { table: ['Query'] }, reportsDomain: true },
  { method: 'GET', path: '/domains/{domain_id}', handler: 'domains/get', operation: domainOps.get, needs: { table: ['GetItem'] }, reportsDomain: true },
  {
    method: 'PATCH', path: '/domains/{domain_id}', handler: 'domains/update', operation: domainOps.update,
    needs: { table: ['GetItem', 'UpdateItem', 'PutItem'], ses: ['ses:PutConfigurationSetDeliveryOptions', 'ses:PutConfigurationSetSendingOptions', 'ses:PutConfigurationSetTrackingOptions', 'ses:UpdateConfigurationSetEventDestination'] },
    timeoutSeconds: SES_CONTROL_TIMEOUT_SECONDS,
    reportsDomain: true, // the records suggest the report addresses (shared/domains/report-addresses.ts)
  },
  {
    method: 'DELETE', path: '/domains/{domain_id}', handler: 'domains/delete', operation: domainOps.remove,
    // Query, BatchGetItem, UpdateItem: cancelling the emails still waiting to go out from the domain
    needs: { table: ['GetItem', 'DeleteItem', 'PutItem', 'Query', 'BatchGetItem', 'UpdateItem'], ses: ['ses:GetEmailIdentity', 'ses:DeleteEmailIdentity', 'ses:DeleteConfigurationSet'] },
    timeoutSeconds: SES_CONTROL_TIMEOUT_SECONDS,
  },
  {
    method: 'POST',
    path: '/domains/{domain_id}/verify',
    handler: 'domains/verify',
    operation: domainOps.verify,
    needs: { table: ['GetItem', 'UpdateItem', 'PutItem'], ses: ['ses:GetEmailIdentity'] },
    timeoutSeconds: SES_CONTROL_TIMEOUT_SECONDS,
    reportsDomain: true,
  },
  // A domain's DMARC and TLS reports and its compliance check (shared/deliverability/): the domain (GetItem), its reports or the project's reputation counts (Query), its drop counts (GetItem)
  { method: 'GET', path: '/domains/{domain_id}/dmarc', handler: 'domains/dmarc', operation: deliverabilityOps.dmarc, needs: { table: ['GetItem', 'Query'] }, reportsDomain: true },
  // UpdateItem, PutItem: the check's statuses and domain.compliance_changed when a rule changed (one transaction)
  { method: 'GET', path: '/domains/{domain_id}/compliance', handler: 'domains/compliance', operation: deliverabilityOps.compliance, needs: { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem'] }, reportsDomain: true },
  { method: 'GET', path: '/domains/{domain_id}/tls-reports', handler: 'domains/tls-reports', operation: deliverabilityOps.tlsReports, needs: { table: ['GetItem', 'Query'] }, reportsDomain: true },
  // Domain claims (shared/domains/claims.ts): the verify that completes one deletes the holder's domain and creates the claimant's, as DELETE and POST /domains do
  { method: 'POST', path: '/domains/claim', handler: 'domains/claim-create', operation: domainOps.claim, needs: { table: ['GetItem', 'PutItem', 'UpdateItem'] } },
  { method: 'GET', path: '/domains/{domain_id}/claim', handler: 'domains/claim-get', operation: domainOps.getClaim, needs: { table: ['GetItem'] } },
  {
    method: 'POST', path: '/domains/{domain_id}/claim/verify', handler: 'domains/claim-verify', operation: domainOps.verifyClaim,
    // Query: the holder's emails since the claim started and its waiting ones; BatchGetItem, UpdateItem: canceling those
    needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'Query', 'BatchGetItem'], ses: DOMAIN_CREATE_SES,
      untested: { 'ses:GetTenant': "the claimant's tenant made by an earlier attempt that died before recording it (shared/domains/tenants.ts); POST /domains runs the same code" },
    },
    timeoutSeconds: SES_CONTROL_TIMEOUT_SECONDS,
    reportsDomain: true, // the records suggest the report addresses (shared/domains/report-addresses.ts)
  },

  // Suppressions (the path takes an id or an address; the suppression writer adds bounce and complaint entries)
  { method: 'POST', path: '/suppressions', handler: 'suppressions/create', operation: suppressionOps.create, needs: { table: ['PutItem', 'GetItem'] } },
  { method: 'GET', path: '/suppressions', handler: 'suppressions/list', operation: suppressionOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/suppressions/{id_or_email}', handler: 'suppressions/get', operation: suppressionOps.get, needs: { table: ['GetItem'] } },
  { method: 'DELETE', path: '/suppressions/{id_or_email}', handler: 'suppressions/delete', operation: suppressionOps.remove, needs: { table: ['GetItem', 'DeleteItem', 'PutItem'] } },
  // Resend's batches: one BatchGet of the named entries, then transactions of whole entries, each with its event
  { method: 'POST', path: '/suppressions/batch/add', handler: 'suppressions/batch-add', operation: suppressionOps.batchAdd, needs: { table: ['BatchGetItem', 'PutItem'] } },
  { method: 'POST', path: '/suppressions/batch/remove', handler: 'suppressions/batch-remove', operation: suppressionOps.batchRemove, needs: { table: ['BatchGetItem', 'DeleteItem', 'PutItem'] } },

  // Emails
  { method: 'POST', path: '/emails', handler: 'emails/send', operation: emailOps.send, needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'], queues: ['send', 'send-test', 'attachment-fetch'], contentBucket: 'write' } },
  { method: 'POST', path: '/emails/batch', handler: 'emails/send-batch', operation: emailOps.sendBatch, needs: { table: ['GetItem', 'PutItem', 'BatchGetItem', 'DeleteItem', 'UpdateItem'], queues: ['send', 'send-test', 'attachment-fetch'], contentBucket: 'write' }, timeoutSeconds: BATCH_TIMEOUT_SECONDS },
  // BatchGetItem: with a filter, the emails its index entries name (shared/emails/list-filters.ts)
  { method: 'GET', path: '/emails', handler: 'emails/list', operation: emailOps.list, needs: { table: ['Query', 'BatchGetItem'] } },
  // the project's daily counters, a range Query per shard (shared/emails/metrics.ts)
  { method: 'GET', path: '/emails/metrics', handler: 'emails/metrics', operation: emailOps.metrics, needs: { table: ['Query'] } },
  { method: 'GET', path: '/emails/{email_id}', handler: 'emails/get', operation: emailOps.get, needs: { table: ['GetItem'], contentBucket: 'read' } },
  // the email's content lists them; each one's size (a path one once fetched) and a presigned GET
  { method: 'GET', path: '/emails/{email_id}/attachments', handler: 'emails/list-attachments', operation: emailOps.listAttachments, needs: { table: ['GetItem'], contentBucket: 'read' } },
  { method: 'GET', path: '/emails/{email_id}/attachments/{attachment_id}', handler: 'emails/get-attachment', operation: emailOps.getAttachment, needs: { table: ['GetItem'], contentBucket: 'read' } },
  { method: 'PATCH', path: '/emails/{email_id}', handler: 'emails/update', operation: emailOps.update, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'POST', path: '/emails/{email_id}/cancel', handler: 'emails/cancel', operation: emailOps.cancel, needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
  // share links (shared/emails/share.ts): the first share makes the links' key, sealed; GET /share/{token} only opens it
  { method: 'POST', path: '/emails/{email_id}/share', handler: 'emails/share', operation: emailOps.share, needs: { table: ['GetItem', 'PutItem'], secretsKey: 'encrypt-decrypt', untested: { 'kms:Decrypt:secrets': 'opening a links key another process made: locally the first share of a runtime makes it and keeps it; GET /share/{token} opens it (test/api/email-share.test.ts)' } }, publicApiUrl: true },
  { method: 'DELETE', path: '/emails/{email_id}/share', handler: 'emails/unshare', operation: emailOps.unshare, needs: { table: ['UpdateItem'] } },
  { method: 'POST', path: '/emails/{email_id}/retry', handler: 'emails/retry', operation: emailOps.retry, needs: {
      table: ['GetItem', 'UpdateItem', 'PutItem'],
      queues: ['send', 'send-test', 'attachment-fetch'],
      contentBucket: 'read',
      untested: { 'sqs:SendMessage:send-test': "a failed test-mode email: test mode fails an email only at the fetch stage (a refused `path`), whose retry goes back there; the queue is picked by the same sendQueueOf as POST /emails' (test/unit/send-queue.test.ts)" },
    },
  },

  // Receiving (mail to receiving-enabled domains, stored by the inbound worker of functions/workers.ts; literal
  // `/emails/receiving` wins over `/emails/{email_id}` on API Gateway and in the local gateway)
  { method: 'GET', path: '/emails/receiving', handler: 'emails/receiving/list', operation: receivingOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/emails/receiving/{email_id}', handler: 'emails/receiving/get', operation: receivingOps.get, needs: { table: ['GetItem'], inboundBucket: 'read' } },
  { method: 'GET', path: '/emails/receiving/{email_id}/attachments', handler: 'emails/receiving/list-attachments', operation: receivingOps.listAttachments, needs: { table: ['GetItem'], inboundBucket: 'read' } },
  { method: 'GET', path: '/emails/receiving/{email_id}/attachments/{attachment_id}', handler: 'emails/receiving/get-attachment', operation: receivingOps.getAttachment, needs: { table: ['GetItem'], inboundBucket: 'read' } },

  // Inboxes (Resend's inboxes.*; shared/inboxes): threads filed by the inbound worker, searched through the index the inbox-index
  // worker keeps; `{inbox_id}` is the inbox's id or address. Literal `/threads/search` wins over `/threads/{thread_id}`.
  { method: 'POST', path: '/inboxes', handler: 'inboxes/create', operation: inboxOps.create, needs: { table: ['GetItem', 'PutItem'] }, forwardingDomain: true }, // GetItem: the domain's claim and the domain
  { method: 'GET', path: '/inboxes', handler: 'inboxes/list', operation: inboxOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/inboxes/{inbox_id}', handler: 'inboxes/get', operation: inboxOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/inboxes/{inbox_id}', handler: 'inboxes/update', operation: inboxOps.update, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'DELETE', path: '/inboxes/{inbox_id}', handler: 'inboxes/delete', operation: inboxOps.remove, needs: { table: ['GetItem', 'DeleteItem'] } },
  { method: 'GET', path: '/inboxes/{inbox_id}/agent', handler: 'inboxes/get-agent', operation: inboxOps.getAgent, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/inboxes/{inbox_id}/agent', handler: 'inboxes/update-agent', operation: inboxOps.updateAgent, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'GET', path: '/inboxes/{inbox_id}/labels', handler: 'inboxes/list-labels', operation: inboxOps.listLabels, needs: { table: ['GetItem', 'Query'] } },
  { method: 'POST', path: '/inboxes/{inbox_id}/labels', handler: 'inboxes/create-label', operation: inboxOps.createLabel, needs: { table: ['GetItem', 'Query', 'PutItem'] } },
  { method: 'PATCH', path: '/inboxes/{inbox_id}/labels/{label_id}', handler: 'inboxes/update-label', operation: inboxOps.updateLabel, needs: { table: ['GetItem', 'Query', 'UpdateItem'] } },
  { method: 'DELETE', path: '/inboxes/{inbox_id}/labels/{label_id}', handler: 'inboxes/delete-label', operation: inboxOps.removeLabel, needs: { table: ['GetItem', 'DeleteItem'] } },
  // the folders' GSI1 partitions (Query), the page's threads (BatchGet), the inbox's labels (Query)
  { method: 'GET', path: '/inboxes/{inbox_id}/threads', handler: 'inboxes/list-threads', operation: inboxOps.listThreads, needs: { table: ['GetItem', 'Query', 'BatchGetItem'] } },
  { method: 'GET', path: '/inboxes/{inbox_id}/threads/search', handler: 'inboxes/search-threads', operation: inboxOps.searchThreads, needs: { table: ['GetItem', 'Query', 'BatchGetItem'], inboundBucket: 'read', contentBucket: 'read' }, memoryMb: INDEX_MEMORY_MB },
  { method: 'GET', path: '/inboxes/{inbox_id}/threads/{thread_id}', handler: 'inboxes/get-thread', operation: inboxOps.getThread, needs: { table: ['GetItem', 'Query'] } },
  { method: 'PATCH', path: '/inboxes/{inbox_id}/threads/{thread_id}', handler: 'inboxes/update-thread', operation: inboxOps.updateThread, needs: { table: ['GetItem', 'UpdateItem', 'Query'] } },
  { method: 'DELETE', path: '/inboxes/{inbox_id}/threads/{thread_id}', handler: 'inboxes/delete-thread', operation: inboxOps.removeThread, needs: { table: ['GetItem', 'DeleteItem', 'UpdateItem', 'Query'] } },
  { method: 'POST', path: '/inboxes/{inbox_id}/threads/{thread_id}/labels', handler: 'inboxes/add-thread-labels', operation: inboxOps.addThreadLabels, needs: { table: ['GetItem', 'Query', 'UpdateItem'] } },
  { method: 'PUT', path: '/inboxes/{inbox_id}/threads/{thread_id}/labels', handler: 'inboxes/set-thread-labels', operation: inboxOps.setThreadLabels, needs: { table: ['GetItem', 'Query', 'UpdateItem'] } },
  { method: 'DELETE', path: '/inboxes/{inbox_id}/threads/{thread_id}/labels/{label_id}', handler: 'inboxes/remove-thread-label', operation: inboxOps.removeThreadLabel, needs: { table: ['GetItem', 'Query', 'UpdateItem'] } },
  // bodies: an inbound message's received email (BatchGet; a large body in the inbound bucket), an outbound one's content object
  { method: 'GET', path: '/inboxes/{inbox_id}/threads/{thread_id}/emails', handler: 'inboxes/list-messages', operation: inboxOps.listMessages, needs: { table: ['GetItem', 'Query', 'BatchGetItem'], inboundBucket: 'read', contentBucket: 'read' } },
  { method: 'GET', path: '/inboxes/{inbox_id}/threads/{thread_id}/emails/{email_id}', handler: 'inboxes/get-message', operation: inboxOps.getMessage, needs: { table: ['GetItem', 'BatchGetItem'], inboundBucket: 'read', contentBucket: 'read' } },
  // an email as POST /emails accepts it (its grants), with its place in the thread in the same transaction
  { method: 'POST', path: '/inboxes/{inbox_id}/threads/{thread_id}/emails/{email_id}/reply', handler: 'inboxes/reply', operation: inboxOps.reply, needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'], queues: ['send', 'send-test', 'attachment-fetch'], contentBucket: 'write', untested: PATH_UNTESTED } },
  // the original's attachments: the received email's (inbound bucket) or the sent email's (content bucket)
  { method: 'POST', path: '/inboxes/{inbox_id}/threads/{thread_id}/emails/{email_id}/forward', handler: 'inboxes/forward', operation: inboxOps.forward, needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'], queues: ['send', 'send-test', 'attachment-fetch'], inboundBucket: 'read', contentBucket: 'read-write', untested: INBOX_SEND_UNTESTED } },
  { method: 'GET', path: '/inboxes/{inbox_id}/drafts', handler: 'inboxes/list-drafts', operation: inboxOps.listDrafts, needs: { table: ['GetItem', 'Query'] } },
  // the draft's files go to the content bucket (a `path` one downloaded first)
  { method: 'POST', path: '/inboxes/{inbox_id}/drafts', handler: 'inboxes/create-draft', operation: inboxOps.createDraft, needs: { table: ['GetItem', 'PutItem', 'UpdateItem'], contentBucket: 'write' } },
  { method: 'GET', path: '/inboxes/{inbox_id}/drafts/{draft_id}', handler: 'inboxes/get-draft', operation: inboxOps.getDraft, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/inboxes/{inbox_id}/drafts/{draft_id}', handler: 'inboxes/update-draft', operation: inboxOps.updateDraft, needs: { table: ['GetItem', 'UpdateItem'], contentBucket: 'write' } },
  { method: 'DELETE', path: '/inboxes/{inbox_id}/drafts/{draft_id}', handler: 'inboxes/delete-draft', operation: inboxOps.removeDraft, needs: { table: ['GetItem', 'DeleteItem', 'UpdateItem'] } },
  { method: 'POST', path: '/inboxes/{inbox_id}/drafts/{draft_id}/send', handler: 'inboxes/send-draft', operation: inboxOps.sendDraft, needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem', 'DeleteItem'], queues: ['send', 'send-test', 'attachment-fetch'], contentBucket: 'read-write', untested: INBOX_SEND_UNTESTED } },

  // Templates (the path takes an id or an alias: an alias costs one more GetItem)
  { method: 'POST', path: '/templates', handler: 'templates/create', operation: templateOps.create, needs: { table: ['PutItem'] } },
  { method: 'GET', path: '/templates', handler: 'templates/list', operation: templateOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/templates/{id_or_alias}', handler: 'templates/get', operation: templateOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/templates/{id_or_alias}', handler: 'templates/update', operation: templateOps.update, needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
  { method: 'DELETE', path: '/templates/{id_or_alias}', handler: 'templates/delete', operation: templateOps.remove, needs: { table: ['GetItem', 'DeleteItem'] } },
  { method: 'POST', path: '/templates/{id_or_alias}/publish', handler: 'templates/publish', operation: templateOps.publish, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'POST', path: '/templates/{id_or_alias}/duplicate', handler: 'templates/duplicate', operation: templateOps.duplicate, needs: { table: ['GetItem', 'PutItem'] } },

  // OAuth (public clients with PKCE; the token, revocation and metadata routes take no key and answer RFC 6749 errors)
  { method: 'GET', path: '/.well-known/oauth-authorization-server', handler: 'oauth/metadata', operation: oauthOps.metadata, needs: {}, publicApiUrl: true },
  { method: 'POST', path: '/oauth/clients', handler: 'oauth/create-client', operation: oauthOps.createClient, needs: { table: ['PutItem'] } },
  { method: 'GET', path: '/oauth/clients', handler: 'oauth/list-clients', operation: oauthOps.listClients, needs: { table: ['Query'] } },
  { method: 'DELETE', path: '/oauth/clients/{oauth_client_id}', handler: 'oauth/delete-client', operation: oauthOps.deleteClient, needs: { table: ['GetItem', 'DeleteItem', 'Query'] } },
  { method: 'GET', path: '/oauth/authorize', handler: 'oauth/authorize', operation: oauthOps.authorize, needs: { table: ['GetItem', 'PutItem'] } },
  { method: 'POST', path: '/oauth/token', handler: 'oauth/token', operation: oauthOps.token, needs: { table: ['BatchGetItem', 'DeleteItem', 'ConditionCheckItem', 'PutItem', 'UpdateItem', 'GetItem'] } }, // GetItem: a reused refresh token revokes its grant
  { method: 'POST', path: '/oauth/revoke', handler: 'oauth/revoke', operation: oauthOps.revoke, needs: { table: ['GetItem', 'DeleteItem'] } },
  // BatchGetItem: the clients' lookup items, for Resend's `client {name, logo_uri}`
  { method: 'GET', path: '/oauth/grants', handler: 'oauth/list-grants', operation: oauthOps.listGrants, needs: { table: ['Query', 'BatchGetItem'] } },
  { method: 'DELETE', path: '/oauth/grants/{grant_id}', handler: 'oauth/delete-grant', operation: oauthOps.deleteGrant, needs: { table: ['GetItem', 'DeleteItem'] } },

  // Broadcasts (sending is the broadcast-fanout worker's, one page of the segment per message; functions/workers.ts)
  { method: 'POST', path: '/broadcasts', handler: 'broadcasts/create', operation: broadcastOps.create, needs: { table: ['BatchGetItem', 'GetItem', 'PutItem', 'ConditionCheckItem'], queues: ['broadcast-fanout'] } },
  { method: 'GET', path: '/broadcasts', handler: 'broadcasts/list', operation: broadcastOps.list, needs: { table: ['Query', 'BatchGetItem'] } },
  { method: 'GET', path: '/broadcasts/{broadcast_id}', handler: 'broadcasts/get', operation: broadcastOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/broadcasts/{broadcast_id}', handler: 'broadcasts/update', operation: broadcastOps.update, needs: { table: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'] } },
  { method: 'DELETE', path: '/broadcasts/{broadcast_id}', handler: 'broadcasts/delete', operation: broadcastOps.remove, needs: { table: ['GetItem', 'DeleteItem'] } },
  { method: 'POST', path: '/broadcasts/{broadcast_id}/send', handler: 'broadcasts/send', operation: broadcastOps.send, needs: { table: ['GetItem', 'UpdateItem', 'ConditionCheckItem'], queues: ['broadcast-fanout'] } },
  { method: 'POST', path: '/broadcasts/{broadcast_id}/cancel', handler: 'broadcasts/cancel', operation: broadcastOps.cancel, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'POST', path: '/broadcasts/{broadcast_id}/duplicate', handler: 'broadcasts/duplicate', operation: broadcastOps.duplicate, needs: { table: ['GetItem', 'PutItem'] } },
  // the fan-out's recipient records (Query, shards merged) joined with their emails' status (BatchGet); `email`: GetItem of the contact's address claim, then its record
  { method: 'GET', path: '/broadcasts/{broadcast_id}/recipients', handler: 'broadcasts/list-recipients', operation: broadcastOps.listRecipients, needs: { table: ['GetItem', 'Query', 'BatchGetItem'] } },
  { method: 'GET', path: '/broadcasts/{broadcast_id}/clicked-links', handler: 'broadcasts/list-clicked-links', operation: broadcastOps.listClickedLinks, needs: { table: ['GetItem', 'Query'] } },
  // Unsubscribe links of broadcast emails (no key: the signed token is the credential)
  // (they only open the links' key, sealed: the fan-out makes it before the first link exists; shared/broadcasts/unsubscribe.ts)
  { method: 'GET', path: '/unsubscribe/{token}', handler: 'unsubscribe/page', operation: broadcastOps.unsubscribePage, needs: { table: ['GetItem'], secretsKey: 'decrypt' } },
  { method: 'POST', path: '/unsubscribe/{token}', handler: 'unsubscribe/confirm', operation: broadcastOps.unsubscribe, needs: { table: ['GetItem', 'UpdateItem', 'PutItem'], secretsKey: 'decrypt' } }, // PutItem: contact.updated / contact.topics.updated
  // Share links of emails (no key: the signed token is the credential; PUBLIC_API_URL: the unsubscribe links it blanks out)
  { method: 'GET', path: '/share/{token}', handler: 'share/page', operation: emailOps.sharedPage, needs: { table: ['GetItem'], secretsKey: 'decrypt', contentBucket: 'read' }, publicApiUrl: true },

  // Events
  { method: 'GET', path: '/events', handler: 'events/list', operation: eventOps.list, needs: { table: ['Query'] } },
  // Custom events (Resend's events.create/get/update/remove/send; shared/automations/custom-events.ts)
  { method: 'POST', path: '/events', handler: 'events/create', operation: customEventOps.create, needs: { table: ['PutItem'] } },
  { method: 'POST', path: '/events/send', handler: 'events/send', operation: customEventOps.send, needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'] } }, // PutItem, UpdateItem, BatchGetItem: the contact an address's first event creates (its counter, the count under the contact limit)
  { method: 'GET', path: '/events/{id_or_name}', handler: 'events/get', operation: customEventOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/events/{id_or_name}', handler: 'events/update', operation: customEventOps.update, needs: { table: ['GetItem', 'UpdateItem'] } },
  { method: 'DELETE', path: '/events/{id_or_name}', handler: 'events/delete', operation: customEventOps.remove, needs: { table: ['GetItem', 'DeleteItem'] } },
  // Automations (Resend's automations.*; shared/automations/automations.ts); their runs (shared/automations/runs.ts), run by
  // the automation workers of functions/workers.ts
  { method: 'POST', path: '/automations', handler: 'automations/create', operation: automationOps.create, needs: { table: ['GetItem', 'PutItem', 'UpdateItem'] } }, // GetItem: the templates, topics and segments the steps name; UpdateItem: the project's system events in use
  { method: 'GET', path: '/automations', handler: 'automations/list', operation: automationOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/automations/{automation_id}', handler: 'automations/get', operation: automationOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/automations/{automation_id}', handler: 'automations/update', operation: automationOps.update, needs: { table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
  { method: 'DELETE', path: '/automations/{automation_id}', handler: 'automations/delete', operation: automationOps.remove, needs: { table: ['GetItem', 'DeleteItem'] } },
  { method: 'POST', path: '/automations/{automation_id}/duplicate', handler: 'automations/duplicate', operation: automationOps.duplicate, needs: { table: ['GetItem', 'PutItem', 'UpdateItem'], untested: { 'dynamodb:UpdateItem': "a copy of a graph that names a system event adds it to the project's set, the same write as POST /automations' (test/api/automation-runs.test.ts)" } } },
  { method: 'POST', path: '/automations/{automation_id}/stop', handler: 'automations/stop', operation: automationOps.stop, needs: { table: ['GetItem', 'UpdateItem', 'DeleteItem'] } },
  { method: 'GET', path: '/automations/{automation_id}/runs', handler: 'automations/list-runs', operation: automationOps.listRuns, needs: { table: ['GetItem', 'Query'] } },
  { method: 'GET', path: '/automations/{automation_id}/runs/{run_id}', handler: 'automations/get-run', operation: automationOps.getRun, needs: { table: ['GetItem'] } },
  // the 8 counters of shared/platform/db/keys.ts `automationMetrics` (BatchGet)
  { method: 'GET', path: '/automations/{automation_id}/metrics', handler: 'automations/metrics', operation: automationOps.metrics, needs: { table: ['GetItem', 'BatchGetItem'] } },

  // The request log: every request of a valid key, written by the pipeline (the PutItem every authenticated route has: routeNeeds)
  { method: 'GET', path: '/logs', handler: 'logs/list', operation: logOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/logs/{log_id}', handler: 'logs/get', operation: logOps.get, needs: { table: ['GetItem'] } },

  // Webhooks (deliveries are made by the webhook-fanout and webhook-dispatcher workers of functions/workers.ts)
  { method: 'POST', path: '/webhooks', handler: 'webhooks/create', operation: webhookOps.create, needs: { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem'], secretsKey: 'encrypt' } },
  { method: 'GET', path: '/webhooks', handler: 'webhooks/list', operation: webhookOps.list, needs: { table: ['Query'] } },
  { method: 'GET', path: '/webhooks/{webhookId}', handler: 'webhooks/get', operation: webhookOps.get, needs: { table: ['GetItem'] } },
  { method: 'PATCH', path: '/webhooks/{webhookId}', handler: 'webhooks/update', operation: webhookOps.update, needs: { table: ['GetItem', 'UpdateItem', 'PutItem'] } },
  { method: 'DELETE', path: '/webhooks/{webhookId}', handler: 'webhooks/delete', operation: webhookOps.remove, needs: { table: ['GetItem', 'DeleteItem', 'UpdateItem', 'PutItem'] } },
  { method: 'POST', path: '/webhooks/{webhookId}/signing-secret/rotate', handler: 'webhooks/rotate-secret', operation: webhookOps.rotateSecret, needs: { table: ['GetItem', 'UpdateItem', 'PutItem'], secretsKey: 'encrypt' } },
  { method: 'GET', path: '/webhooks/{webhookId}/deliveries', handler: 'webhooks/list-deliveries', operation: webhookOps.listDeliveries, needs: { table: ['GetItem', 'Query'] } },
  { method: 'GET', path: '/webhooks/{webhookId}/deliveries/{deliveryId}', handler: 'webhooks/get-delivery', operation: webhookOps.getDelivery, needs: { table: ['BatchGetItem'] } },
  {
    method: 'POST', path: '/webhooks/{webhookId}/deliveries/{deliveryId}/retry', handler: 'webhooks/retry-delivery', operation: webhookOps.retryDelivery,
    needs: { table: ['BatchGetItem', 'UpdateItem'], queues: ['webhook-delivery'] },
  },
  { method: 'GET', path: '/webhook-events', handler: 'webhook-events/list', operation: webhookOps.listEvents, needs: { table: ['Query', 'BatchGetItem'] } },
  // Resend's event log of a webhook (the SDK's webhooks.events.*): the same delivery records, named by event id (shared/webhooks/event-log.ts)
  { method: 'GET', path: '/webhooks/{webhookId}/events', handler: 'webhooks/list-events', operation: webhookOps.listEventLog, needs: { table: ['GetItem', 'Query'] } },
  { method: 'GET', path: '/webhooks/{webhookId}/events/{eventId}', handler: 'webhooks/get-event', operation: webhookOps.getEventLogEntry, needs: { table: ['BatchGetItem'] } },
  {
    method: 'POST', path: '/webhooks/{webhookId}/events/{eventId}/replay', handler: 'webhooks/replay-event', operation: webhookOps.replayEvent,
    needs: { table: ['BatchGetItem', 'UpdateItem'], queues: ['webhook-delivery'] },
  },
  { method: 'GET', path: '/webhooks/{webhookId}/events/{eventId}/attempts', handler: 'webhooks/list-event-attempts', operation: webhookOps.listEventAttempts, needs: { table: ['BatchGetItem', 'Query'] } },
];

export const fallbackRoute: Pick<Route, 'handler' | 'operation' | 'needs' | 'timeoutSeconds' | 'memoryMb'> = { handler: 'fallback', operation: serviceOps.fallback, needs: {} };

/**
 * Paths the Resend SDK calls that this service does not have, where the fallback's bare "not found"
 * (or a 405 that names only GET) would leave the caller guessing: the fallback adds `reason` to
 * its 404, or to its 405 when the path has routes of other methods. No function of their own.
 */
export const unsupportedRoutes: readonly { path: string; reason: string }[] = [];

/**
 * A route's whole needs: its own plus what the pipeline of `api()` does for every authenticated
 * request (key lookup, rate limit, request log). The pipeline's two writes are granted only on
 * their own partitions (`tableByKeys`) to a route that does not make that write itself, so a
 * read-only route cannot put or update anything else.
 */
export function routeNeeds(route: Pick<Route, 'operation' | 'needs'>): Needs {
  const table = new Set<TableAction>(route.needs.table);
  const tableByKeys: Partial<Record<TableAction, string[]>> = {};
  if (route.operation.auth === 'api_key') {
    table.add('GetItem'); // the key's lookup, and the project's settings (shared/project/settings.ts)
    // the rate limit's count (shared/access/rate-limit.ts), the key's last use (shared/access/api-keys.ts)
    if (!table.has('UpdateItem')) tableByKeys.UpdateItem = [RATE_WINDOW_PK_PATTERN, API_KEY_HASH_PK_PATTERN];
    if (!table.has('PutItem')) tableByKeys.PutItem = [REQUEST_LOG_PK_PATTERN]; // the request's log entry, written beside the answer (shared/logs/request-log.ts)
  }
  return { ...route.needs, table: [...table].sort(), ...(Object.keys(tableByKeys).length ? { tableByKeys } : {}) };
}

// Literal routes before parameterised ones, like API Gateway's "most specific match wins".
const routesByMatchOrder: readonly Route[] = [...routes].sort((a, b) => (a.path.match(/\{/g) ?? []).length - (b.path.match(/\{/g) ?? []).length);

/** The route API Gateway picks for a request, with its path parameters; undefined: the `$default` (fallback) route. */
export function matchRoute(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
  for (const route of routesByMatchOrder) {
    if (route.method !== method) continue;
    const params = matchPath(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}

/** A stable, readable name for a route's function: `POST /segments/{segment_id}` -> `PostSegmentsSegmentId`. */
export function functionName(route: { method?: string; path?: string; handler: string }): string {
  const words = route.method && route.path ? `${route.method} ${route.path}` : route.handler;
  return words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
    .join('');
}
