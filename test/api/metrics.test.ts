/**
 * GET /emails/metrics over HTTP and through the official SDK (`emails.metrics`): a project of its
 * own sends to the local SES's mailbox simulator (delivered, bounced, complained), to an address
 * its bounce suppressed, an email whose attachment cannot be fetched (failed), and receives one; the
 * counters the sender, the email-status worker and the inbound worker keep then answer exactly those counts, per day and in total,
 * with the rates; what the counters cannot answer is 422 naming it.
 */
import { Resend } from 'resend';
import { verifiedDomain } from '../support/domains';
import { api, baseUrl } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

describe('email metrics', () => {
  let key: string;
  let sdk: Resend;
  beforeAll(async () => {
    ({ key } = await createOtherProject());
    sdk = new Resend(key, { baseUrl: baseUrl() });
    const domain = await verifiedDomain(key, 'metrics', { capabilities: { receiving: 'enabled' } });
    const send = async (to: string, extra: Record<string, unknown> = {}) =>
      (await api.post('/emails', { from: `m@${domain}`, to, subject: 'metrics', text: 'x', ...extra }, { key })).body
        .id as string;
    const settle = (id: string, statuses: string[]) =>
      waitFor(
        () => api.get(`/emails/${id}`, { key }).then((r) => r.body.last_event as string),
        (status) => statuses.includes(status),
        30_000,
      );
    const delivered = await send('success@simulator.amazonses.com');
    const bounced = await send('bounce@simulator.amazonses.com');
    const complained = await send('complaint@simulator.amazonses.com');
    const failed = await send('reader@example.com', { attachments: [{ path: 'http://127.0.0.1:1/gone.pdf' }] });
    await Promise.all([
      settle(delivered, ['delivered']),
      settle(bounced, ['bounced']),
      settle(complained, ['complained']),
      settle(failed, ['failed']),
    ]);
    const suppressed = await send('bounce@simulator.amazonses.com'); // suppressed by the bounce above
    await settle(suppressed, ['suppressed']);
    // and one email in: the inbound worker counts it
    await deliverMail('someone@outside.example', [`inbox@${domain}`], ['Subject: hello', '', 'hi']);
    await waitFor(
      () => api.get('/emails/receiving', { key }).then((r) => r.body.data.length),
      (n) => n === 1,
      30_000,
    );
  }, 90_000);

  it('counts what the workers saw today, in total and per day, with the rates (the SDK reads it)', async () => {
    const { data, error } = await sdk.emails.metrics({ dimensions: ['period'] });
    expect(error).toBeNull();
    const today = new Date().toISOString().slice(0, 10);
    expect(data).toMatchObject({ object: 'metrics', dimensions: ['period'], granularity: 'daily' });
    expect(data!.totals).toMatchObject({
      sent: 3,
      delivered: 2,
      bounced: 1,
      bounced_permanent: 1,
      complained: 1,
      failed: 1,
      suppressed: 1,
      delivery_rate: 0.6667,
      bounce_rate: 0.3333,
      complaint_rate: 0.5,
    });
    expect(data!.data).toHaveLength(7); // the last 7 days, every day a row
    expect(data!.data!.at(-1)).toMatchObject({ period: today, sent: 3, delivered: 2 });
    expect(data!.data!.slice(0, -1).every((row) => row.sent === 0)).toBe(true);
  });

  it('answers a subset of metrics, weekly and monthly periods, and only totals without the period dimension', async () => {
    const monthly = await api.get('/emails/metrics?granularity=monthly&dimensions=period&metrics=sent,bounce_rate', {
      key,
    });
    expect(monthly.status).toBe(200);
    expect(monthly.body.metrics).toEqual(['sent', 'bounce_rate']);
    expect(monthly.body.totals).toEqual({ sent: 3, bounce_rate: 0.3333 });
    for (const row of monthly.body.data) expect(row.period).toMatch(/^\d{4}-\d{2}-01$/);
    const weekly = await api.get('/emails/metrics?granularity=weekly&dimensions=period', { key });
    for (const row of weekly.body.data) expect(new Date(`${row.period}T00:00:00Z`).getUTCDay()).toBe(1); // Mondays
    const totals = await api.get('/emails/metrics', { key });
    expect(totals.body).not.toHaveProperty('data');
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await api.get(`/emails/metrics?end_date=${yesterday}`, { key })).body.totals.sent).toBe(0); // nothing before today
  });

  it.each([
    ['granularity=hourly', 'granularity'],
    ['timezone=Australia/Sydney', 'timezone'],
    ['metrics=unsubscribed', 'metrics'],
    ['dimensions=domain', 'dimensions'],
    ['domain_id=x', 'domain_id'],
    ['start_date=2026-02-30', 'start_date'],
    ['start_date=2026-11-20&end_date=2026-11-10', 'start_date'],
    ['start_date=2024-01-01&end_date=2026-01-01', 'start_date'],
  ])('refuses %s with 422 naming %s', async (query, path) => {
    const res = await api.get(`/emails/metrics?${query}`, { key });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});
