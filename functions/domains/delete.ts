import { deleteDomain } from '#shared/domains/domains';
import { cancelPendingEmailsFrom } from '#shared/emails/pending';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

/** Of the route's 10 s, what cancelling the domain's waiting emails may take; the sender refuses any left (their domain is gone). */
const CANCEL_BUDGET_MS = 5_000;

export const handler = api(domainOps.remove, async ({ params, caller }) => {
  const started = Date.now(); // machine time: the route's budget of work
  const domain = await deleteDomain(caller, params.domain_id);
  await cancelPendingEmailsFrom(caller.projectId, domain.name, started + CANCEL_BUDGET_MS);
  return ok({ object: 'domain', id: params.domain_id, deleted: true });
});
