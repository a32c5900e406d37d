/**
 * The OpenAPI 3.1 document, generated from the route table and each operation's zod schemas
 * (the same objects that validate requests), served at GET /openapi.json.
 */
import * as z from 'zod/mini';
import { API_VERSION } from './api-version';
import { documentedResponses, requiredScope, SCOPE_NOTES, type Operation } from './operation';

interface DocumentedRoute {
  method: string;
  path: string;
  operation: Operation;
}

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodMiniType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  delete json.$schema; // OpenAPI 3.1 schemas are JSON Schema 2020-12 already
  return json;
}

function parameters(schema: z.ZodMiniType | undefined, location: 'path' | 'query') {
  if (!schema) return [];
  const json = schemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || required.has(name),
    schema: property,
  }));
}

/** The body's media types: JSON, and the same fields form-encoded where the operation reads forms (OAuth). */
function requestContent(operation: Operation): Record<string, { schema: JsonSchema }> {
  const schema = schemaOf(operation.body!, 'input');
  const formats = operation.bodyFormats ?? ['json'];
  const types = {
    json: 'application/json',
    form: 'application/x-www-form-urlencoded',
    multipart: 'multipart/form-data',
  } as const;
  return Object.fromEntries(formats.map((format) => [types[format], { schema }]));
}

export function openApiDocument(routes: readonly DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path, operation } of routes) {
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(documentedResponses(operation))) {
      responses[status] = {
        description: response.description,
        ...(response.schema
          ? {
              content: {
                [response.contentType ?? 'application/json']: { schema: schemaOf(response.schema, 'output') },
              },
            }
          : {}),
      };
    }
    // which keys may call it: said in the description, and machine-readable in `x-required-scope`
    const scope = operation.auth === 'api_key' ? requiredScope(operation) : undefined;
    const description = [operation.description, scope && SCOPE_NOTES[scope]].filter(Boolean).join(' ');
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      ...(description ? { description } : {}),
      tags: operation.tags,
      security: operation.auth === 'api_key' ? [{ bearerAuth: [] }] : [],
      ...(scope ? { 'x-required-scope': scope } : {}),
      parameters: [
        ...parameters(operation.params, 'path'),
        ...parameters(operation.query, 'query'),
        { name: 'Api-Version', in: 'header', required: false, schema: { type: 'string', enum: [API_VERSION] } },
      ],
      ...(operation.body ? { requestBody: { required: true, content: requestContent(operation) } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Email service API',
      version: API_VERSION,
      description:
        'Self-hostable, Resend-compatible email sending and audience service. Errors use the envelope ' +
        '`{name, message, statusCode, errors[]}`; lists use `{object: "list", data, has_more}` with `limit` (1-100, ' +
        'default 20) and `after`/`before` cursors (ids, exclusive), newest first. Request bodies are at most 5 MB ' +
        'and objects reject unknown keys (422).',
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`es_live_` or `es_test_` + 32 base62 characters) or an OAuth access token (`es_oat_`). Each operation ' +
            'names the least it needs in `x-required-scope`: `sending_access` (any key or token), `full_access` (a full_access ' +
            'key or token) or `full_access_api_key` (a full_access API key; never an OAuth token). Otherwise: 403 `insufficient_scope`.',
        },
      },
    },
    paths,
  };
}
