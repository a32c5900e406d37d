/**
 * GET /broadcasts/{id}/clicked-links through the official SDK (`broadcasts.clickedLinks`): a
 * broadcast from a domain that tracks opens and clicks reaches two recipients the local SES clicks
 * for (`click+…@simulator.amazonses.com`: one Click per distinct link) and one it only delivers;
 * each link's clicks come back counted once per SES event, most clicked first, and the project's
 * metrics count the opens and clicks (unique per email) as well. A project of its own.
 */
import { Resend } from 'resend';
import { verifiedDomain } from '../support/domains';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

it('counts each link of a broadcast per click, most clicked first, and the metrics count opens and clicks', async () => {
  const { key } = await createOtherProject();
  const sdk = new Resend(key, { baseUrl: baseUrl() });
  const domain = await verifiedDomain(key, 'links', { open_tracking: true, click_tracking: true });
  const segment = (await api.post('/segments', { name: 'readers' }, { key })).body.id;
  for (const email of [
    'click+one@simulator.amazonses.com',
    'click+two@simulator.amazonses.com',
    'success@simulator.amazonses.com',
  ]) {
    expect((await api.post('/contacts', { email, segments: [segment] }, { key })).status).toBe(201);
  }
  const html = '<p>Hi</p><a href="https://example.com/offer">Offer</a> <a href="https://example.com/blog">Blog</a>';
  const broadcast = await api.post(
    '/broadcasts',
    { segment_id: segment, from: `news@${domain}`, subject: 'Links', html, send: true },
    { key },
  );
  expect(broadcast.status).toBe(201);
  const clicked = await waitFor(
    async () => (await sdk.broadcasts.clickedLinks(broadcast.body.id)).data,
    (page) => (page?.data ?? []).reduce((sum, link) => sum + link.clicks, 0) === 4,
    60_000,
  );
  expect(clicked!.has_more).toBe(false);
  expect(
    clicked!.data
      .map(({ url, clicks, unique_clicks }) => ({ url, clicks, unique_clicks }))
      .sort((a, b) => a.url.localeCompare(b.url)),
  ).toEqual([
    { url: 'https://example.com/blog', clicks: 2, unique_clicks: 2 },
    { url: 'https://example.com/offer', clicks: 2, unique_clicks: 2 },
  ]);
  // a page of one, then the next by the opaque id
  const first = (await sdk.broadcasts.clickedLinks(broadcast.body.id, { limit: 1 })).data!;
  expect(first).toMatchObject({ has_more: true });
  const rest = (await sdk.broadcasts.clickedLinks(broadcast.body.id, { limit: 1, after: first.data[0].id })).data!;
  expect(rest.data[0].id).not.toBe(first.data[0].id);

  const metrics = await waitFor(
    () => api.get('/emails/metrics', { key }).then((r) => r.body.totals),
    (totals) => totals.opened === 2 && totals.delivered === 3,
    30_000,
  );
  expect(metrics).toMatchObject({
    sent: 3,
    delivered: 3,
    opened: 2,
    unique_opened: 2,
    clicked: 4,
    unique_clicked: 2,
    open_rate: 0.6667,
    click_rate: 0.6667,
  });
  expect((await api.get('/broadcasts/01900000-0000-7000-8000-000000000000/clicked-links', { key })).status).toBe(404);
}, 120_000);
