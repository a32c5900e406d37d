import * as z from 'zod/mini';
import { defineOperation } from './operation';
import { errorEnvelope } from './schemas';

export const health = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'health',
    summary: 'Liveness check (no authentication)',
    tags: ['Service'],
    auth: 'none',
    responses: { 200: { description: 'The service is up', schema: z.object({ status: z.literal('ok') }) } },
  }))();

export const openapi = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document (no authentication)',
    tags: ['Service'],
    auth: 'none',
    responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
  }))();

/** Answers every request no route matches: 405 when the path exists with other methods, else 404. */
export const fallback = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'fallback',
    summary: 'Unknown route or method',
    tags: ['Service'],
    auth: 'none',
    responses: {
      404: { description: 'No such route', schema: errorEnvelope },
      405: { description: 'The path exists but not with this method (see the Allow header)', schema: errorEnvelope },
    },
  }))();

/**
 * The web console (functions/dashboard/serve.ts): its single-page app and the OAuth consent page
 * under /dashboard/. No key: the page is static; the app asks for a key and calls this API with it.
 */
export const dashboard = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getDashboard',
    summary: 'The web console and the OAuth consent page (no authentication)',
    description:
      'Static files of the console: `index.html` (no-cache) for /dashboard/ and for every path under it that does not look like a file ' +
      '(the app routes itself), and the hashed assets under /dashboard/assets/ (cached for a year). A file-like path that is not an asset ' +
      'is 404. Every answer carries a strict Content-Security-Policy (scripts from this origin only, no inline script, ' +
      "`frame-ancestors 'none'`), `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`.",
    tags: ['Console'],
    auth: 'none',
    responses: {
      200: { description: 'The console page, or one of its assets', contentType: 'text/html', schema: z.string() },
      404: { description: 'No such asset', schema: errorEnvelope },
    },
  }))();

/** The same, for the paths under /dashboard/ (an operation id of its own: ids are unique in the document). */
export const dashboardFile = /* @__PURE__ */ (() =>
  defineOperation({
    ...dashboard,
    operationId: 'getDashboardFile',
    summary: 'A page or asset of the web console (no authentication)',
  }))();
