/** The request pipeline as a client meets it: auth, the error envelope, versions, limits, ids. */
import { api, baseUrl, request } from '../support/http';

describe('authentication', () => {
  it('answers 401 in the historical envelope, with no errors key, for a bad key', async () => {
    const res = await api.get('/segments', { key: 'bad' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ name: 'validation_error', message: 'API key is invalid', statusCode: 401 });
    expect(res.body).not.toHaveProperty('errors');
  });

  it('answers 401 without an Authorization header and for a well-formed key nobody issued', async () => {
    expect((await api.get('/segments', { key: null })).status).toBe(401);
    const unknown = await api.get('/segments', { key: `es_live_${'A'.repeat(32)}` });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toBe('API key is invalid');
  });

  it('serves /health and /openapi.json without a key', async () => {
    expect(await api.get('/health', { key: null })).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect((await api.get('/openapi.json', { key: null })).status).toBe(200);
  });
});

describe('routing', () => {
  it('answers an unknown route with 404 in the error envelope', async () => {
    const res = await api.get('/no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404, errors: [{ code: 'not_found' }] });
  });

  it('answers a wrong method with 405, the envelope and an Allow header', async () => {
    const res = await request('PUT', '/segments', { name: 'x' });
    expect(res.status).toBe(405);
    expect(res.body).toMatchObject({ name: 'validation_error', errors: [{ code: 'method_not_allowed' }] });
    expect(res.headers.get('allow')).toBe('POST, GET');
  });
});

describe('request bodies', () => {
  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await api.post('/segments', undefined, {
      raw: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ name: 'validation_error', errors: [{ code: 'invalid_json' }] });
  });

  it('answers a body that is not JSON with 400 unsupported_content_type', async () => {
    const res = await api.post('/segments', undefined, {
      raw: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'unsupported_content_type', path: 'Content-Type' });
  });

  it('answers a body over 5 MB with 413 and writes nothing', async () => {
    const name = 'x'.repeat(5 * 1024 * 1024);
    const res = await api.post('/segments', { name });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ name: 'validation_error', errors: [{ code: 'payload_too_large' }] });
  });

  it('names every invalid value in errors[].path (422), unknown keys included', async () => {
    const res = await api.post('/segments', { name: 42, colour: 'red' });
    expect(res.status).toBe(422);
    expect(res.body.name).toBe('validation_error');
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'name', code: 'invalid_type' }),
        expect.objectContaining({ path: 'colour', code: 'unrecognized_keys' }),
      ]),
    );
  });

  it('treats a missing body as an empty object, so the missing field is named', async () => {
    const res = await request('POST', '/segments');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'name' })]);
  });
});

describe('versions and request ids', () => {
  it('answers with Api-Version and a request id on success and on error', async () => {
    for (const res of [await api.get('/segments'), await api.get('/segments', { key: 'bad' })]) {
      expect(res.headers.get('api-version')).toBe('2026-08-14');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('accepts the one version and refuses any other with 400', async () => {
    expect((await api.get('/segments', { headers: { 'Api-Version': '2026-08-14' } })).status).toBe(200);
    const res = await api.get('/segments', { headers: { 'Api-Version': '2020-01-01' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'unsupported_api_version', path: 'Api-Version' });
  });

  it('is served on the configured host', () => {
    expect(baseUrl()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
