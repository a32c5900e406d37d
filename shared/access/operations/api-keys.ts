import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, deleted, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import { apiKey, createApiKeyBody, updateApiKeyBody } from '../model';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Returns the key (`token`) once; only its SHA-256 is stored. The new key has the mode of the key that created it ' +
      '(`es_live_` or `es_test_`) unless a live key asks for `mode: "test"`; a test key cannot mint a live one (422). ' +
      "A test key works in its project's test-mode sandbox: it sees only test data, and live keys never see it. `sending_access` keys may only send emails.",
    tags: ['API keys'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    body: createApiKeyBody,
    responses: {
      201: { description: 'The new key, with its token shown this once', schema: z.object({ id, token: z.string() }) },
      ...commonErrors,
    },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listApiKeys',
    summary: 'List API keys (never their tokens)',
    tags: ['API keys'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of API keys, newest first', schema: listOf(apiKey) }, ...commonErrors },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateApiKey',
    summary: 'Rename an API key',
    description:
      "Only the name changes (Resend's `apiKeys.update`). The answer is the key as GET /api-keys lists it: Resend's `{object, id}` and the rest.",
    tags: ['API keys'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    params: z.strictObject({ api_key_id: id }),
    body: updateApiKeyBody,
    responses: { 200: { description: 'The renamed key', schema: apiKey }, ...commonErrors, 404: notFoundResponse },
  }))();

export const remove = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteApiKey',
    summary: 'Revoke an API key',
    description: 'The key stops working at once, including for a request that uses it to revoke itself.',
    tags: ['API keys'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    params: z.strictObject({ api_key_id: id }),
    responses: {
      200: { description: 'The key is revoked', schema: deleted('api_key') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
