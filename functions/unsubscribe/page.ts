import { html, publicApi } from '#shared/platform/http/public-api';
import * as broadcastOps from '#shared/broadcasts/operations';
import { unsubscribePageHtml } from '#shared/broadcasts/unsubscribe';

export const handler = publicApi(broadcastOps.unsubscribePage, async ({ params }) =>
  html(await unsubscribePageHtml(params.token)),
);
