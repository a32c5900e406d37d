import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, id, listOf, listQuery, notFoundResponse } from '../platform/http/schemas';
import { log, logSummary } from './model';

const LOGS =
  'One entry per API request made with a valid key of this project (any answer: 2xx, 4xx such as 404, 409, 422, 403 and 429, and 5xx), kept 30 days. ' +
  'Requests without a valid key (401) are not logged: they have no project. An entry holds the method, the path (without the query string), ' +
  'the status, `duration_ms`, the user agent, `request_id` (the `x-request-id` header of the answer) and, for an error, its body as sent ' +
  '(`response_body`, also as `error`); never the key, a header other than the user agent, the request body (`request_body` is always null) or a success body. ' +
  'The entry is written beside the answer: a failed write leaves the request without an entry (the answer is unchanged), and so does a function that dies while answering.';

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listLogs',
    summary: "List the project's API requests, newest first",
    description: `${LOGS} Paginated by entry id (\`after\` / \`before\`).`,
    tags: ['Logs'],
    auth: 'api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of log entries', schema: listOf(logSummary) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getLog',
    summary: 'Retrieve one API request of the project',
    description: LOGS,
    tags: ['Logs'],
    auth: 'api_key',
    params: z.strictObject({ log_id: id }),
    responses: { 200: { description: 'The log entry', schema: log }, ...commonErrors, 404: notFoundResponse },
  }))();
