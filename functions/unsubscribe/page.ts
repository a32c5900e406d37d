import { html, publicApi } from '#shared/platform/http/public-api';
import * as broadcastOps from '#shared/operations/broadcasts';
import { unsubscribePageHtml } from '#shared/unsubscribe';

export const handler = publicApi(broadcastOps.unsubscribePage, async ({ params }) => html(await unsubscribePageHtml(params.token)));
