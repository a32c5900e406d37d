import { cancelClaim } from '#shared/domains/claims';
import { deleteDomain } from '#shared/domains/domains';
import { ApiError } from '#shared/platform/errors';
import { cancelPendingEmailsFrom } from '#shared/emails/pending';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

/** Of the route's 10 s, what cancelling the domain's waiting emails may take; the sender refuses any left (their domain is gone). */
const CANCEL_BUDGET_MS = 5_000;

export const handler = api(domainOps.remove, async ({ params, caller }) => {
  const started = Date.now(); // machine time: the route's budget of work
  // the id a domain claim promised, before its domain exists: deleting it cancels the claim (Resend's way)
  const domain = await deleteDomain(caller, params.domain_id).catch(async (error) => {
    if (error instanceof ApiError && error.statusCode === 404 && (await cancelClaim(caller, params.domain_id)))
      return undefined;
    throw error;
  });
  if (domain) await cancelPendingEmailsFrom(caller.projectId, domain.name, started + CANCEL_BUDGET_MS);
  return ok({ object: 'domain', id: params.domain_id, deleted: true });
});
