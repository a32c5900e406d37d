/**
 * What the official SDK's `events` (Resend's custom events) meets here: this service has no custom
 * events, and its GET /events is the contract's platform event log. Every path the SDK's
 * `events.*` calls answers an error in our envelope whose message says so and names what is
 * supported (a 405 with `allow` on /events, a 404 below it); `events.list` with pagination is a
 * 422 naming the parameter (the contract's GET /events takes none). GET /events itself answers as
 * the contract says. Through the SDK, and over HTTP for the status and headers.
 */
import { Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl, request } from '../support/http';

let resend: Resend;
beforeAll(() => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
});

const SUPPORTED = /not supported here\. What is: GET \/events, the platform event log of the contract/;
const ID = '01a20280-902e-70b0-b281-d9d957510688';

describe("the SDK's custom events", () => {
  it('events.create (POST /events): 405 naming what is supported, allow GET', async () => {
    const answer = await resend.events.create({ name: 'user.signed_up', schema: { plan: 'string' } });
    expect(answer.data).toBeNull();
    expect(answer.error).toMatchObject({
      name: 'validation_error',
      statusCode: 405,
      message: expect.stringMatching(SUPPORTED),
    });
    expect(answer.headers).toMatchObject({ allow: 'GET' });
  });

  it.each([
    [
      'events.send (POST /events/send) by email',
      () => resend.events.send({ event: 'user.signed_up', email: 'someone@example.com', payload: { plan: 'pro' } }),
    ],
    ['events.send by contact', () => resend.events.send({ event: 'user.signed_up', contactId: ID })],
    ['events.get (GET /events/{name})', () => resend.events.get('user.signed_up')],
    ['events.get by id', () => resend.events.get(ID)],
    ['events.update (PATCH /events/{name})', () => resend.events.update('user.signed_up', { schema: null })],
    ['events.remove (DELETE /events/{name})', () => resend.events.remove('user.signed_up')],
  ])('%s: 404 naming what is supported', async (_, call) => {
    const answer = await call();
    expect(answer.data).toBeNull();
    expect(answer.error).toMatchObject({
      name: 'not_found',
      statusCode: 404,
      message: expect.stringMatching(SUPPORTED),
    });
  });

  it.each([
    ['limit', { limit: 10 }],
    ['after', { after: ID }],
    ['before', { before: ID }],
  ])('events.list with %s: 422 naming it (GET /events takes no parameters)', async (name, options) => {
    const answer = await resend.events.list(options as never);
    expect(answer.data).toBeNull();
    expect(answer.error).toMatchObject({
      name: 'validation_error',
      statusCode: 422,
      message: expect.stringMatching(SUPPORTED),
    });
    expect((answer.error as unknown as { errors: { path: string }[] }).errors).toEqual([
      expect.objectContaining({ path: name, code: 'invalid_type' }),
    ]);
  });

  it('events.list without options reaches the event log: the contract answer, not custom event definitions', async () => {
    const answer = await resend.events.list();
    expect(answer.error).toBeNull();
    expect(Object.keys(answer.data as object).sort()).toEqual(['data', 'has_more', 'object']);
    expect(answer.data).toMatchObject({ has_more: false, data: expect.any(Array) });
  });
});

describe('over HTTP', () => {
  it('GET /events answers the contract, and any query parameter is a 422 naming it', async () => {
    const log = await api.get('/events');
    expect(log.status).toBe(200);
    expect(log.body).toEqual({ object: 'list', data: expect.any(Array), has_more: false });
    const unknown = await api.get('/events?type=email.sent');
    expect(unknown).toMatchObject({
      status: 422,
      body: { name: 'validation_error', errors: [{ code: 'unrecognized_keys', path: 'type' }] },
    });
    const paged = await api.get('/events?limit=5&after=' + ID);
    expect(paged.status).toBe(422);
    expect(paged.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['after', 'limit']);
  });

  it('POST, PATCH, PUT and DELETE /events: 405 with allow GET and the reason', async () => {
    for (const method of ['POST', 'PATCH', 'PUT', 'DELETE']) {
      const res = await request(method, '/events', { name: 'x' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET');
      expect(res.body).toMatchObject({
        name: 'validation_error',
        message: expect.stringMatching(SUPPORTED),
        errors: [{ code: 'method_not_allowed' }],
      });
    }
  });

  it('any path below /events: 404 not_supported, with or without a key', async () => {
    for (const [method, path] of [
      ['POST', '/events/send'],
      ['GET', '/events/user.signed_up'],
      ['PATCH', `/events/${ID}`],
      ['DELETE', '/events/user.signed_up'],
    ] as const) {
      const res = await request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {}, {
        key: method === 'GET' ? null : undefined,
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({
        name: 'not_found',
        message: expect.stringMatching(SUPPORTED),
        errors: [{ code: 'not_supported' }],
      });
    }
  });

  it('other unknown routes keep the plain answers', async () => {
    expect(await api.get('/nothing-here')).toMatchObject({
      status: 404,
      body: { name: 'not_found', message: 'Route GET /nothing-here not found' },
    });
    const wrongMethod = await api.delete('/segments');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body.message).toBe('Method DELETE is not allowed on /segments');
  });
});
