/**
 * What the official SDK's `events.list` meets here: on Resend it lists custom event definitions,
 * here GET /events is the contract's platform event log. `events.list` with pagination is a 422
 * naming the parameter (the contract's GET /events takes none) with a message that says so;
 * without options it reads the log. GET /events itself answers as the contract says. The rest of
 * `events.*` (custom events) is test/api/custom-events.test.ts. Through the SDK, and over HTTP for
 * the status and headers.
 */
import { Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl, request } from '../support/http';

let resend: Resend;
beforeAll(() => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
});

const SUPPORTED = /GET \/events is the platform event log of the contract .* GET \/events\/\{id_or_name\}/;
const ID = '01a20280-902e-70b0-b281-d9d957510688';

describe("the SDK's events.list", () => {
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

  it('PATCH, PUT and DELETE /events: 405 with allow GET, POST', async () => {
    for (const method of ['PATCH', 'PUT', 'DELETE']) {
      const res = await request(method, '/events', { name: 'x' });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, POST');
      expect(res.body).toMatchObject({ name: 'validation_error', errors: [{ code: 'method_not_allowed' }] });
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
