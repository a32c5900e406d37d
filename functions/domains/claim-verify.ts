import { verifyClaim } from '#shared/domains/claims';
import { scheduledFrom, sentFromSince } from '#shared/emails/domain-activity';
import { cancelPendingEmailsFrom } from '#shared/emails/pending';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

/** Of the route's time, what cancelling the holder's waiting emails may take (as DELETE /domains); the sender refuses any left. */
const CANCEL_BUDGET_MS = 5_000;

export const handler = api(domainOps.verifyClaim, async ({ params, caller }) => {
  const started = Date.now(); // machine time: the route's budget of work
  const { claim, completedFrom } = await verifyClaim(caller, params.domain_id, {
    sentSince: sentFromSince,
    scheduled: scheduledFrom,
  });
  if (completedFrom) await cancelPendingEmailsFrom(completedFrom, claim.name, started + CANCEL_BUDGET_MS);
  return ok(claim);
});
