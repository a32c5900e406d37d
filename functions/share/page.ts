/**
 * GET /share/{token}: the page behind an email's share link (shared/emails/share.ts), with the
 * console's headers (its Content-Security-Policy among them: the email's html sits in a sandboxed
 * `srcdoc` frame, which inherits it) and never kept by a shared cache or indexed. A link that does
 * not open gets one plain HTML 404, whatever the reason.
 */
import { CONSOLE_HEADERS } from '../dashboard/serve';
import * as emailOps from '#shared/emails/operations';
import { notFoundPage, sharedEmailPage } from '#shared/emails/share';
import { publicApi, type Reply } from '#shared/platform/http/public-api';

const reply = (statusCode: number, body: string): Reply => ({
  statusCode,
  body,
  raw: true,
  headers: {
    ...CONSOLE_HEADERS,
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'private, no-store',
    'x-robots-tag': 'noindex',
    'referrer-policy': 'no-referrer',
  },
});

export const handler = publicApi(emailOps.sharedPage, async ({ params }) => {
  const page = await sharedEmailPage(params.token);
  return page ? reply(200, page) : reply(404, notFoundPage());
});
