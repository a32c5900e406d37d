/**
 * The domains feature's model: the domain and its DNS records as the API shows them, their
 * statuses and settings, and what create and update take; the record and input types are derived
 * from these schemas. The stored items stay with the logic (shared/domains/domains.ts).
 */
import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/schemas';

/** The path parameters of a domain's routes (`/domains/{domain_id}/...`). */
export const domainParams = /* @__PURE__ */ (() => z.strictObject({ domain_id: id }))();

export const DOMAIN_STATUSES = ['not_started', 'pending', 'verified', 'failed', 'temporary_failure'] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** At least two labels of letters, digits and inner hyphens; the last starts with a letter (so no IP address). */
const HOSTNAME = /* @__PURE__ */ (() => new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`))();
/** One or more labels, to be put in front of the domain name. */
const SUBDOMAIN = /* @__PURE__ */ (() => new RegExp(`^${LABEL}(?:\\.${LABEL})*$`))();

const hostname = /* @__PURE__ */ (() =>
  z
    .string()
    .check(
      z.trim(),
      z.toLowerCase(),
      z.maxLength(253),
      z.regex(HOSTNAME, 'must be a hostname with at least two labels, like example.com'),
    ))();
export const TLS_MODES = ['opportunistic', 'enforced'] as const;
export type Tls = (typeof TLS_MODES)[number];
export const CAPABILITIES = ['enabled', 'disabled'] as const;
export type Capability = (typeof CAPABILITIES)[number];
const tls = /* @__PURE__ */ (() => z.enum(TLS_MODES))();
const capability = /* @__PURE__ */ (() => z.enum(CAPABILITIES))();

export const domainRecord = /* @__PURE__ */ (() =>
  z.object({
    record: z.enum(['SPF', 'DKIM', 'MX', 'DMARC', 'TLS-RPT', 'Receiving', 'Tracking']),
    name: z.string(),
    type: z.enum(['CNAME', 'MX', 'TXT']),
    ttl: z.string(),
    status: z.enum(DOMAIN_STATUSES),
    value: z.string(),
    priority: z.optional(z.number()),
    optional: z.optional(
      z.literal(true).check(
        z.meta({
          description:
            'Present (true) only on a record the domain works without: the suggested `DMARC` TXT (`p=none`, monitoring only; with ' +
            "`rua=mailto:` the domain's DMARC report address when the deployment has a reports domain) and the `TLS-RPT` TXT (then too). " +
            'Publish it for deliverability, or keep a DMARC policy of your own; its `status` is always `not_started` and it never holds up verification.',
        }),
      ),
    ),
  }))();
export type DomainRecord = z.output<typeof domainRecord>;

export const domain = /* @__PURE__ */ (() =>
  z.object({
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
    /** the MAIL FROM (Return-Path) subdomain: `<custom_return_path>.<name>` */
    custom_return_path: z.string(),
    created_at: timestamp,
  }))();
export type Domain = z.output<typeof domain>;

export const createDomainBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: hostname,
    // Resend clients may name the region; a deployment sends from its own one only, which is the
    // function's (createDomain checks it: shared/platform/aws/region.ts), not known to a schema
    region: z.optional(
      z.string().check(
        z.meta({
          description:
            "The deployment's own AWS region (a domain's `region` in every answer), the only one accepted (422 otherwise); leave it out to mean it.",
        }),
      ),
    ),
    tls: z.optional(tls),
    capabilities: z.optional(z.strictObject({ sending: z.optional(capability), receiving: z.optional(capability) })),
    // Resend's: the MAIL FROM subdomain (bounces come back to it); one DNS label, `send` by default
    custom_return_path: z.optional(
      z
        .string()
        .check(
          z.trim(),
          z.toLowerCase(),
          z.regex(new RegExp(`^${LABEL}$`), 'must be one DNS label (letters, digits, inner hyphens), like send'),
        ),
    ),
  }))();
export type CreateDomainInput = z.output<typeof createDomainBody>;

export const updateDomainBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      open_tracking: z.optional(z.boolean()),
      click_tracking: z.optional(z.boolean()),
      tracking_subdomain: z.optional(
        z.nullable(
          z
            .string()
            .check(
              z.trim(),
              z.toLowerCase(),
              z.maxLength(200),
              z.regex(SUBDOMAIN, 'must be one or more DNS labels, like links'),
            ),
        ),
      ),
      tls: z.optional(tls),
      capabilities: z.optional(z.strictObject({ sending: z.optional(capability), receiving: z.optional(capability) })),
    })
    .check(z.refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })))();
export type UpdateDomainInput = z.output<typeof updateDomainBody>;

/** Every SES configuration set of the service starts with this (its IAM grants are scoped to `es-*`, lib/api-function.ts). */
export const CONFIGURATION_SET_PREFIX = 'es-';

export const DOMAIN_CLAIM_STATUSES = [
  'pending',
  'verified',
  'completed',
  'blocked',
  'expired',
  'superseded',
  'canceled',
  'failed',
] as const;
export type DomainClaimStatus = (typeof DOMAIN_CLAIM_STATUSES)[number];
export const DOMAIN_CLAIM_BLOCKED_REASONS = [
  'grace_period',
  'recent_owner_activity',
  'pending_scheduled_emails',
] as const;
export type DomainClaimBlockedReason = (typeof DOMAIN_CLAIM_BLOCKED_REASONS)[number];

/** Resend's DomainClaim, with `grace_ends_at` beside it (the contract's own). */
export const domainClaim = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('domain_claim'),
    id,
    name: z.string(),
    status: z.enum(DOMAIN_CLAIM_STATUSES),
    domain_id: z.nullable(id),
    region: z.nullable(z.string()),
    record: z.object({
      type: z.literal('TXT'),
      name: z.string(),
      value: z.string(),
      ttl: z.literal('Auto'),
    }),
    blocked_reason: z.nullable(z.enum(DOMAIN_CLAIM_BLOCKED_REASONS)),
    failure_reason: z.nullable(z.string()),
    created_at: timestamp,
    expires_at: timestamp,
    grace_ends_at: z.nullable(timestamp),
  }))();
export type DomainClaim = z.output<typeof domainClaim>;

/** POST /domains/claim: what POST /domains takes, and Resend's tracking switches (the tracking subdomain is PATCH's, after). */
export const claimDomainBody = /* @__PURE__ */ (() =>
  z.extend(createDomainBody, {
    open_tracking: z.optional(z.boolean()),
    click_tracking: z.optional(z.boolean()),
  }))();
export type ClaimDomainInput = z.output<typeof claimDomainBody>;
