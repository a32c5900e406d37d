import * as z from 'zod/mini';
import { DOMAIN_STATUSES } from './records';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, conflictResponse, deleted, id, listOf, listQuery, notFoundResponse, timestamp } from '../platform/http/schemas';

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** At least two labels of letters, digits and inner hyphens; the last starts with a letter (so no IP address). */
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);
/** One or more labels, to be put in front of the domain name. */
const SUBDOMAIN = new RegExp(`^${LABEL}(?:\\.${LABEL})*$`);

const hostname = z.string().check(z.trim(), z.toLowerCase(), z.maxLength(253), z.regex(HOSTNAME, 'must be a hostname with at least two labels, like example.com'));
const tls = z.enum(['opportunistic', 'enforced']);
const capability = z.enum(['enabled', 'disabled']);

export const domainRecord = z.object({
  record: z.enum(['SPF', 'DKIM', 'MX', 'Receiving', 'Tracking']),
  name: z.string(),
  type: z.enum(['CNAME', 'MX', 'TXT']),
  ttl: z.string(),
  status: z.enum(DOMAIN_STATUSES),
  value: z.string(),
  priority: z.optional(z.number()),
});

export const domain = z.object({
  object: z.literal('domain'),
  id,
  name: z.string(),
  status: z.enum(DOMAIN_STATUSES),
  region: z.string(),
  records: z.array(domainRecord),
  tls,
  capabilities: z.object({ sending: capability, receiving: capability }),
  open_tracking: z.boolean(),
  click_tracking: z.boolean(),
  tracking_subdomain: z.nullable(z.string()),
  created_at: timestamp,
});

const domainParams = z.strictObject({ domain_id: id });

export const create = defineOperation({
  operationId: 'createDomain',
  summary: 'Add a sending domain',
  description:
    "Creates the SES identity (Easy DKIM, custom MAIL FROM `send.<name>`) and a configuration set of the domain's own. " +
    '`name` is lower-cased. Names are unique across the whole deployment, not per project (SES identities belong to the ' +
    'AWS account): a name that any project already has is 409 `domain_exists`. `tls` defaults to `opportunistic`, ' +
    '`capabilities` to sending enabled and receiving disabled. The domain starts `pending`; publish its `records`, then ' +
    'POST /domains/{domain_id}/verify (a scheduled check also re-reads pending domains every minute).',
  tags: ['Domains'],
  auth: 'api_key',
  body: z.strictObject({
    name: hostname,
    // Resend clients may name the region; a deployment sends from its own one only
    region: z.optional(z.literal('ap-southeast-2', 'this deployment sends from ap-southeast-2 only')),
    tls: z.optional(tls),
    capabilities: z.optional(z.strictObject({ sending: z.optional(capability), receiving: z.optional(capability) })),
  }),
  responses: { 201: { description: 'The new domain', schema: domain }, ...commonErrors, 409: conflictResponse },
});

export const list = defineOperation({
  operationId: 'listDomains',
  summary: 'List domains, newest first',
  tags: ['Domains'],
  auth: 'api_key',
  query: listQuery,
  responses: { 200: { description: 'A page of domains', schema: listOf(domain) }, ...commonErrors },
});

export const get = defineOperation({
  operationId: 'getDomain',
  summary: 'Retrieve a domain',
  description: 'The stored status; POST /domains/{domain_id}/verify asks SES again.',
  tags: ['Domains'],
  auth: 'api_key',
  params: domainParams,
  responses: { 200: { description: 'The domain', schema: domain }, ...commonErrors, 404: notFoundResponse },
});

export const update = defineOperation({
  operationId: 'updateDomain',
  summary: 'Update a domain',
  description:
    'At least one field. `tracking_subdomain` (one or more labels in front of the domain name; null removes it) becomes ' +
    'the custom redirect domain of open and click tracking and adds a `Tracking` CNAME record; `tls` sets the TLS policy ' +
    '(`enforced`: SES sends only over TLS); `capabilities.sending: disabled` pauses sending through the domain; ' +
    '`capabilities.receiving: enabled` adds the `Receiving` MX record.',
  tags: ['Domains'],
  auth: 'api_key',
  params: domainParams,
  body: z
    .strictObject({
      open_tracking: z.optional(z.boolean()),
      click_tracking: z.optional(z.boolean()),
      tracking_subdomain: z.optional(z.nullable(z.string().check(z.trim(), z.toLowerCase(), z.maxLength(200), z.regex(SUBDOMAIN, 'must be one or more DNS labels, like links')))),
      tls: z.optional(tls),
      capabilities: z.optional(z.strictObject({ sending: z.optional(capability), receiving: z.optional(capability) })),
    })
    .check(z.refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })),
  responses: { 200: { description: 'The updated domain', schema: domain }, ...commonErrors, 404: notFoundResponse },
});

export const remove = defineOperation({
  operationId: 'deleteDomain',
  summary: 'Delete a domain',
  description: 'Deletes the SES identity and configuration set; the name is free again. A second delete is 404.',
  tags: ['Domains'],
  auth: 'api_key',
  params: domainParams,
  responses: { 200: { description: 'The domain is gone', schema: deleted('domain') }, ...commonErrors, 404: notFoundResponse },
});

export const verify = defineOperation({
  operationId: 'verifyDomain',
  summary: "Check a domain's verification again",
  description:
    "Reads the identity's DKIM and MAIL FROM status from SES now and stores it. A change to `verified` emits " +
    '`domain.verified`; a change to `failed` or `temporary_failure` emits `domain.verification_failed`.',
  tags: ['Domains'],
  auth: 'api_key',
  params: domainParams,
  responses: { 200: { description: 'The domain with its current status', schema: domain }, ...commonErrors, 404: notFoundResponse },
});

export type CreateDomainInput = z.output<typeof create.body>;
export type UpdateDomainInput = z.output<typeof update.body>;
