/**
 * `scheduled_at` in natural language, as Resend takes it ("in 1 min"), over HTTP: POST /emails,
 * /emails/batch, PATCH /emails/{id}, and broadcasts. The service stores and answers the ISO
 * instant (UTC); a relative phrase counts from the request's arrival, so each check brackets the
 * expected instant between the clock just before the request and just after the answer.
 */
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { uniqueName as unique } from '../support/unique';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let domain: string;
beforeAll(async () => {
  domain = await verifiedDomain();
});

const message = (overrides: Record<string, unknown> = {}) => ({
  from: `a@${domain}`,
  to: 'later@example.com',
  subject: unique('Later'),
  text: 'x',
  ...overrides,
});
const emailOf = (id: string) => api.get(`/emails/${id}`).then((r) => r.body);

/** Runs the request and answers it with the window [before + ahead, after + ahead] that a phrase `ahead` ms from its arrival must fall in. */
async function timed<T>(ahead: number, request: () => Promise<T>): Promise<{ result: T; from: number; to: number }> {
  const before = Date.now();
  const result = await request();
  return { result, from: before + ahead, to: Date.now() + ahead };
}

/** An ISO instant in UTC (as `toISOString()` writes it) within [from, to]. */
function expectInstant(value: string, from: number, to: number): void {
  expect(value).toBe(new Date(Date.parse(value)).toISOString());
  expect(Date.parse(value)).toBeGreaterThanOrEqual(from);
  expect(Date.parse(value)).toBeLessThanOrEqual(to);
}

/**
 * 9:00 tomorrow on New York's wall clock, as a UTC instant, worked out from Intl alone: the wall
 * clock's distance from UTC at an instant is New York's offset then, taken at the answer (a DST
 * change may lie between now and tomorrow morning).
 */
function tomorrowAt9InNewYork(now: number): number {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const wallClock = (at: number) => {
    const part = (type: string) => Number(format.formatToParts(new Date(at)).find((p) => p.type === type)!.value);
    return {
      year: part('year'),
      month: part('month'),
      day: part('day'),
      utc: Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second')),
    };
  };
  const today = wallClock(now);
  const target = Date.UTC(today.year, today.month - 1, today.day + 1, 9); // tomorrow 09:00 as if it were UTC
  let instant = target - (today.utc - Math.floor(now / 1000) * 1000);
  instant = target - (wallClock(instant).utc - instant);
  return instant;
}

describe('POST /emails with a phrase', () => {
  it('schedules "in 1 min" a minute after the request, stored and answered as the ISO instant', async () => {
    const {
      result: res,
      from,
      to,
    } = await timed(MINUTE, () => api.post('/emails', message({ scheduled_at: 'in 1 min' })));
    expect(res.status).toBe(200);
    const email = await emailOf(res.body.id);
    expect(email.last_event).toBe('scheduled');
    expectInstant(email.scheduled_at, from, to);
    expect((await api.post(`/emails/${res.body.id}/cancel`)).status).toBe(200);
  });

  it('reads "tomorrow at 9am America/New_York" on New York\'s wall clock', async () => {
    const before = Date.now();
    const res = await api.post('/emails', message({ scheduled_at: 'tomorrow at 9am America/New_York' }));
    const after = Date.now();
    expect(res.status).toBe(200);
    const email = await emailOf(res.body.id);
    expect(email.last_event).toBe('scheduled');
    // the two differ only if New York's midnight fell during the request
    expect([tomorrowAt9InNewYork(before), tomorrowAt9InNewYork(after)].map((t) => new Date(t).toISOString())).toContain(
      email.scheduled_at,
    );
    expect((await api.post(`/emails/${res.body.id}/cancel`)).status).toBe(200);
  });

  it('refuses a phrase it cannot read: 422 naming it at scheduled_at', async () => {
    const res = await api.post('/emails', message({ scheduled_at: 'whenever you like' }));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      name: 'validation_error',
      message: expect.stringContaining('"whenever you like"'),
    });
    expect(res.body.errors).toEqual([
      { code: 'invalid_scheduled_at', path: 'scheduled_at', message: expect.stringContaining('"whenever you like"') },
    ]);
  });

  it('applies the 30-day limit to the instant a phrase names', async () => {
    const res = await api.post('/emails', message({ scheduled_at: 'in 40 days' }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ code: 'too_far_ahead', path: 'scheduled_at' })]);
  });

  it('replays an Idempotency-Key request with the same phrase (the body is the phrase, not the instant)', async () => {
    const headers = { 'Idempotency-Key': unique('phrase') };
    const body = message({ scheduled_at: 'in 1 hour' });
    const first = await api.post('/emails', body, { headers });
    expect(first.status).toBe(200);
    expect(await api.post('/emails', body, { headers })).toMatchObject({ status: 200, body: { id: first.body.id } });
    expect((await api.post(`/emails/${first.body.id}/cancel`)).status).toBe(200);
  });
});

describe('POST /emails/batch with phrases', () => {
  it('schedules the item with "in 2 hours" and sends the other now', async () => {
    const {
      result: res,
      from,
      to,
    } = await timed(2 * HOUR, () => api.post('/emails/batch', [message({ scheduled_at: 'in 2 hours' }), message()]));
    expect(res.status).toBe(200);
    const [later, now] = await Promise.all(res.body.data.map((e: { id: string }) => emailOf(e.id)));
    expect(later.last_event).toBe('scheduled');
    expectInstant(later.scheduled_at, from, to);
    expect(now.scheduled_at).toBeNull();
    expect((await api.post(`/emails/${later.id}/cancel`)).status).toBe(200);
  });

  it("names the item's index in the path of an unreadable phrase", async () => {
    const res = await api.post('/emails/batch', [message(), message({ scheduled_at: 'whenever you like' })]);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { code: 'invalid_scheduled_at', path: '1.scheduled_at', message: expect.stringContaining('"whenever you like"') },
    ]);
  });
});

describe('PATCH /emails/{email_id} with a phrase', () => {
  it('reschedules to "in 5 min" from the request', async () => {
    const { body } = await api.post('/emails', message({ scheduled_at: 'in 1 hour' }));
    const {
      result: res,
      from,
      to,
    } = await timed(5 * MINUTE, () => api.patch(`/emails/${body.id}`, { scheduled_at: 'in 5 min' }));
    expect(res).toMatchObject({ status: 200, body: { object: 'email', id: body.id } });
    const email = await emailOf(body.id);
    expect(email.last_event).toBe('scheduled');
    expectInstant(email.scheduled_at, from, to);
    const refused = await api.patch(`/emails/${body.id}`, { scheduled_at: 'whenever you like' });
    expect(refused).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_scheduled_at', path: 'scheduled_at' }] },
    });
    expect((await api.post(`/emails/${body.id}/cancel`)).status).toBe(200);
  });
});

describe('broadcasts with a phrase', () => {
  let segmentId: string;
  beforeAll(async () => {
    segmentId = (await api.post('/segments', { name: unique('phrases') })).body.id;
  });
  const draft = (overrides: Record<string, unknown> = {}) => ({
    segment_id: segmentId,
    from: `news@${domain}`,
    subject: 'Soon',
    text: 'x',
    ...overrides,
  });

  it('is scheduled "in 1 hour" on create, with the ISO instant', async () => {
    const {
      result: res,
      from,
      to,
    } = await timed(HOUR, () => api.post('/broadcasts', draft({ scheduled_at: 'in 1 hour' })));
    expect(res).toMatchObject({ status: 201, body: { status: 'scheduled' } });
    expectInstant(res.body.scheduled_at, from, to);
    expect((await api.get(`/broadcasts/${res.body.id}`)).body.scheduled_at).toBe(res.body.scheduled_at);
    expect((await api.post(`/broadcasts/${res.body.id}/cancel`)).status).toBe(200);
  });

  it('is scheduled "in 1 hour" by POST /broadcasts/{id}/send; an unreadable phrase leaves the draft a draft', async () => {
    const created = (await api.post('/broadcasts', draft())).body;
    const refused = await api.post(`/broadcasts/${created.id}/send`, { scheduled_at: 'whenever you like' });
    expect(refused).toMatchObject({
      status: 422,
      body: {
        errors: [
          {
            code: 'invalid_scheduled_at',
            path: 'scheduled_at',
            message: expect.stringContaining('"whenever you like"'),
          },
        ],
      },
    });
    expect((await api.get(`/broadcasts/${created.id}`)).body.status).toBe('draft');
    const {
      result: res,
      from,
      to,
    } = await timed(HOUR, () => api.post(`/broadcasts/${created.id}/send`, { scheduled_at: 'in 1 hour' }));
    expect(res).toMatchObject({ status: 200, body: { status: 'scheduled' } });
    expectInstant(res.body.scheduled_at, from, to);
    expect((await api.post(`/broadcasts/${created.id}/cancel`)).status).toBe(200);
  });
});
