import { api, ok } from '#shared/access/api';
import { revokeGrant } from '#shared/access/oauth-grants';
import * as oauthOps from '#shared/access/operations/oauth';

/** Resend's `oauthGrants.revoke` reads `revoked_at` and `revoked_reason`; the contract-style `deleted: true` stays beside them. */
export const handler = api(oauthOps.deleteGrant, async ({ params, caller }) =>
  ok(await revokeGrant(caller, params.grant_id)),
);
