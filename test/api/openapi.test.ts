/** The OpenAPI document documents every route of the table: request and responses. */
import { routes } from '../../functions/routes';
import type { Operation } from '../../shared/platform/http/operation';
import { api } from '../support/http';

type Json = Record<string, any>;

describe('GET /openapi.json', () => {
  let document: Json;
  beforeAll(async () => {
    const res = await api.get('/openapi.json', { key: null });
    expect(res.status).toBe(200);
    document = res.body;
  });

  it('is an OpenAPI 3.1 document with bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  const cases = routes.map((r) => [`${r.method} ${r.path}`, { ...r, operation: r.operation as Operation }] as const);
  it.each(cases)('documents %s: request and responses', (_, route) => {
    const operation = document.paths[route.path]?.[route.method.toLowerCase()];
    expect(operation).toBeDefined();
    expect(operation.operationId).toEqual(expect.any(String));
    expect(operation.summary).toEqual(expect.any(String));

    // request: every path parameter, the query of list routes, the body of routes that take one
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    const documentedPathParams = operation.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
    expect(documentedPathParams.sort()).toEqual(pathParams.sort());
    if (route.operation.body)
      expect(['object', 'array']).toContain((Object.values(operation.requestBody.content)[0] as Json).schema.type); // JSON, or multipart for an upload
    else expect(operation.requestBody).toBeUndefined();
    if (route.operation.query) expect(operation.parameters.some((p: Json) => p.in === 'query')).toBe(true);

    // responses: a success with a JSON schema (createSuppression and createInboxDraft have two: 201 new, 200 existing); the auth and validation errors where they apply
    const success = Object.keys(operation.responses).filter((s) => s.startsWith('2'));
    // createInboxDraft too: 201 new, 200 the reply draft already there for that email
    expect(success).toHaveLength(
      ['createSuppression', 'createInboxDraft'].includes(route.operation.operationId) ? 2 : 1,
    );
    const type =
      route.path.startsWith('/unsubscribe/') || route.path.startsWith('/share/') || route.path.startsWith('/dashboard')
        ? 'text/html'
        : 'application/json'; // pages people open in a browser
    for (const status of success) expect(operation.responses[status].content[type].schema).toBeDefined();
    if (route.operation.auth === 'api_key') {
      expect(operation.security).toEqual([{ bearerAuth: [] }]);
      expect(operation.responses['401']).toBeDefined();
      expect(operation.responses['422']).toBeDefined();
    } else {
      expect(operation.security).toEqual([]);
    }
    if (pathParams.length > 0 && route.operation.auth === 'api_key') expect(operation.responses['404']).toBeDefined();
  });

  it('documents nothing that is not in the route table', () => {
    const documented = Object.entries(document.paths).flatMap(([path, ops]) =>
      Object.keys(ops as Json).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(routes.map((r) => `${r.method} ${r.path}`).sort());
  });
});
