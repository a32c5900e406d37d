import { html, publicApi } from '#shared/platform/http/public-api';
import * as broadcastOps from '#shared/broadcasts/operations';
import { unsubscribeByToken } from '#shared/broadcasts/unsubscribe';

/** RFC 8058 one-click: mail clients POST `List-Unsubscribe=One-Click`; the operation has no body schema, so any body is ignored. */
export const handler = publicApi(broadcastOps.unsubscribe, async ({ params }) =>
  html(await unsubscribeByToken(params.token)),
);
