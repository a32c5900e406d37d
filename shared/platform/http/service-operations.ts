import * as z from 'zod/mini';
import { defineOperation } from './operation';
import { errorEnvelope } from './schemas';

export const health = defineOperation({
  operationId: 'health',
  summary: 'Liveness check (no authentication)',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The service is up', schema: z.object({ status: z.literal('ok') }) } },
});

export const openapi = defineOperation({
  operationId: 'getOpenApiDocument',
  summary: 'This OpenAPI 3.1 document (no authentication)',
  tags: ['Service'],
  auth: 'none',
  responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
});

/** Answers every request no route matches: 405 when the path exists with other methods, else 404. */
export const fallback = defineOperation({
  operationId: 'fallback',
  summary: 'Unknown route or method',
  tags: ['Service'],
  auth: 'none',
  responses: {
    404: { description: 'No such route', schema: errorEnvelope },
    405: { description: 'The path exists but not with this method (see the Allow header)', schema: errorEnvelope },
  },
});
