import { defineOperation } from '../platform/http/operation';
import { commonErrors, conflictResponse, deleted, listOf, listQuery, notFoundResponse } from '../platform/http/schemas';
import { claimDomainBody, createDomainBody, domain, domainClaim, domainParams, updateDomainBody } from './model';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createDomain',
    summary: 'Add a sending domain',
    description:
      "Creates the SES identity (Easy DKIM, custom MAIL FROM `send.<name>`) and a configuration set of the domain's own. " +
      '`name` is lower-cased. Names are unique across the whole deployment, not per project (SES identities belong to the ' +
      "AWS account): a name that any project already has is 409 `domain_exists` (another project's may be claimed: POST /domains/claim), unless that domain never verified and " +
      "was created over DOMAIN_CLAIM_EXPIRY_HOURS (72) ago: then this create takes the name over and the other project's " +
      "domain is deleted. A subdomain of another project's verified domain is 409 `parent_domain_verified`; over " +
      'MAX_DOMAINS_PER_PROJECT (50) domains, 409 `domain_limit_reached`. `tls` defaults to `opportunistic`, ' +
      '`capabilities` to sending enabled and receiving disabled. The domain starts `pending`; publish its `records` (the `DMARC` one, `optional: true`, is a suggestion that verification never waits for), then ' +
      'POST /domains/{domain_id}/verify (a scheduled check also re-reads pending domains every minute). ' +
      'With a test key nothing reaches SES: the records are made up, the name is unique only among the test domains of ' +
      'the project (a live domain of the same name, in any project, neither blocks it nor is blocked by it), the parent-domain ' +
      'rule does not apply, and the domain verifies by itself TEST_DOMAIN_VERIFY_SECONDS (5) after its creation, at its next check ' +
      '(a name under `.invalid` fails instead).',
    tags: ['Domains'],
    auth: 'api_key',
    body: createDomainBody,
    responses: { 201: { description: 'The new domain', schema: domain }, ...commonErrors, 409: conflictResponse },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listDomains',
    summary: 'List domains, newest first',
    tags: ['Domains'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of domains', schema: listOf(domain) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getDomain',
    summary: 'Retrieve a domain',
    description:
      'The stored status; POST /domains/{domain_id}/verify asks SES again (a test domain: checks whether its moment has passed).',
    tags: ['Domains'],
    auth: 'api_key',
    params: domainParams,
    responses: { 200: { description: 'The domain', schema: domain }, ...commonErrors, 404: notFoundResponse },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
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
    body: updateDomainBody,
    responses: { 200: { description: 'The updated domain', schema: domain }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteDomain',
    summary: 'Delete a domain',
    description:
      'Deletes the SES identity and configuration set (a test domain has none); the name is free again. A second delete is 404.',
    tags: ['Domains'],
    auth: 'api_key',
    params: domainParams,
    responses: {
      200: { description: 'The domain is gone', schema: deleted('domain') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const verify = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'verifyDomain',
    summary: "Check a domain's verification again",
    description:
      "Reads the identity's DKIM and MAIL FROM status from SES now and stores it. A change to `verified` emits " +
      "`domain.verified`; a change to `failed` or `temporary_failure` emits `domain.verification_failed`. A test key's domain " +
      'asks nothing of SES: it is `verified` once TEST_DOMAIN_VERIFY_SECONDS (5) have passed since its creation, `failed` for a ' +
      'name under `.invalid`, with the same events (livemode false).',
    tags: ['Domains'],
    auth: 'api_key',
    params: domainParams,
    responses: {
      200: { description: 'The domain with its current status', schema: domain },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const claim = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'claimDomain',
    summary: 'Claim a domain another project holds',
    description:
      'Starts a claim of a name that another project of the deployment holds (POST /domains answers 409 `domain_exists` ' +
      'for it): the claim promises the domain it will become an id (`domain_id`) and names a TXT `record` to publish, ' +
      '`_resend-claim.<name>` = `resend-domain-claim=<32 hex>`. It stays `pending` until POST /domains/{domain_id}/claim/verify ' +
      'finds the record, and expires DOMAIN_CLAIM_WINDOW_DAYS (7) after its creation (`expires_at`). A newer claim of the ' +
      "same name, by any project, makes this one `superseded`. The body is POST /domains' (`name`, `region`, `tls`, " +
      '`capabilities`, `custom_return_path`) with `open_tracking` and `click_tracking`: the domain is created with them on ' +
      'completion. 422 `domain_not_claimable`: nobody holds the name (use POST /domains), this project holds it, or the key ' +
      'is a test key (claims are live only). 409 `claim_in_progress` while an earlier claim of the name is completing.',
    tags: ['Domains'],
    auth: 'api_key',
    body: claimDomainBody,
    responses: { 201: { description: 'The new claim', schema: domainClaim }, ...commonErrors, 409: conflictResponse },
  }))();

export const getClaim = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getDomainClaim',
    summary: 'Retrieve a domain claim',
    description:
      'The claim whose promised domain id is `domain_id`, as last moved (a `pending` claim past `expires_at` shows `expired`). ' +
      'Nothing is looked up: POST /domains/{domain_id}/claim/verify moves it.',
    tags: ['Domains'],
    auth: 'api_key',
    params: domainParams,
    responses: { 200: { description: 'The claim', schema: domainClaim }, ...commonErrors, 404: notFoundResponse },
  }))();

export const verifyClaim = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'verifyDomainClaim',
    summary: 'Check a domain claim and move it on',
    description:
      '`pending`: looks the TXT record up; not there, the claim stays `pending`; there, it is `verified` and the grace period ' +
      'starts (DOMAIN_CLAIM_GRACE_HOURS, 72; `grace_ends_at`): the holding project gets `domain.claim_started`. An email from ' +
      'the domain that the holder sends after that makes the claim `blocked` (`recent_owner_activity`, final). Once the grace ' +
      'period is over, a verify completes it: unless the holder has mail from the domain scheduled (`blocked`, ' +
      "`pending_scheduled_emails`, until a verify finds none), the holder's domain is deleted (`domain.deleted`, its waiting mail " +
      'from it canceled) and the domain is created in this project with the id `domain_id` (`domain.created`), the claim ' +
      '`completed`. What POST /domains would refuse then (a verified parent domain of another project, the domain limit) makes ' +
      'it `failed` with `failure_reason`. A claim not completed by `expires_at` (moved to DOMAIN_CLAIM_WINDOW_DAYS after the grace ' +
      "period's end once verified) is `expired`. Claims that are no longer open are answered as they are.",
    tags: ['Domains'],
    auth: 'api_key',
    params: domainParams,
    responses: {
      200: { description: 'The claim, moved as far as it can go now', schema: domainClaim },
      ...commonErrors,
      404: notFoundResponse,
      409: conflictResponse,
    },
  }))();
