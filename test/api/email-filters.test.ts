/**
 * GET /emails' filters (issue 38; shared/emails/list-filters.ts, the index shared/emails/list-index.ts
 * keeps from the table's stream) against the local runtime, in a project of the suite's own: emails
 * sent through the API to the local SES's simulator (delivered, bounced), one scheduled, then found by
 * status, from, to (any recipient, any case), tag, the creation range, and combinations, paged with
 * cursors both ways; a status change moves an email from one status's list to the next; bad filters
 * are 422; another project's filters never see these emails.
 */
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();
jest.setTimeout(120_000);

let key: string;
let domain: string;
const stamp = Date.now().toString(36);
const x = `success+x${stamp}@simulator.amazonses.com`;
const y = `success+y${stamp}@simulator.amazonses.com`;
const b = `bounce+b${stamp}@simulator.amazonses.com`;
const ids: Record<'e1' | 'e2' | 'e3' | 'e4', string> = { e1: '', e2: '', e3: '', e4: '' };
let between: string; // a time after e2 was accepted and before e3 was

async function send(body: Record<string, unknown>, as = key): Promise<{ id: string; created_at: string }> {
  const sent = await api.post('/emails', { subject: 'Filters', text: 'hi', ...body }, { key: as });
  expect(sent.status).toBe(200);
  return (await api.get(`/emails/${sent.body.id}`, { key: as })).body;
}

/** The ids GET /emails answers for a query string (one page). */
const list = async (query: string, as = key) => {
  const page = await api.get(`/emails?${query}`, { key: as });
  expect(page.status).toBe(200);
  return page.body as { data: { id: string; last_event: string }[]; has_more: boolean; cursor?: string };
};
const idsOf = async (query: string) => (await list(query)).data.map((e) => e.id);
/** The index follows the emails within seconds: waits until the query answers `expected`. */
const expectList = async (query: string, expected: string[]) =>
  expect(
    await waitFor(
      () => idsOf(query),
      (found) => JSON.stringify(found) === JSON.stringify(expected),
      30_000,
    ),
  ).toEqual(expected);

beforeAll(async () => {
  ({ key } = await createOtherProject());
  domain = `filters-${stamp}.example.com`;
  const created = await api.post('/domains', { name: domain }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
  );
  ids.e1 = (await send({ from: `Shop <shop@${domain}>`, to: x, tags: [{ name: 'campaign', value: 'spring' }] })).id;
  const e2 = await send({
    from: `news@${domain}`,
    to: y,
    cc: x.toUpperCase(),
    tags: [{ name: 'campaign', value: 'autumn' }],
  });
  ids.e2 = e2.id;
  const e3 = await send({ from: `shop@${domain}`, to: b, tags: [{ name: 'campaign', value: 'spring' }] });
  ids.e3 = e3.id;
  between = new Date((Date.parse(e2.created_at) + Date.parse(e3.created_at)) / 2).toISOString();
  ids.e4 = (
    await send({
      from: `news@${domain}`,
      to: y,
      tags: [{ name: 'campaign', value: 'spring' }],
      scheduled_at: new Date(Date.now() + 24 * 3600_000).toISOString(),
    })
  ).id;
  // the simulator's outcomes: e1 and e2 delivered, e3 bounced
  for (const [id, status] of [
    [ids.e1, 'delivered'],
    [ids.e2, 'delivered'],
    [ids.e3, 'bounced'],
  ])
    await waitFor(
      () => api.get(`/emails/${id}`, { key }),
      (r) => r.body.last_event === status,
      60_000,
    );
});

describe('GET /emails with filters', () => {
  it('finds emails by status, following each change', async () => {
    await expectList('status=delivered', [ids.e2, ids.e1]);
    await expectList('status=bounced', [ids.e3]);
    await expectList('status=scheduled', [ids.e4]);
    // every email was queued once: none is now
    await expectList('status=queued', []);
    await expectList('status=sent', []);
  });

  it('finds emails by from and by any recipient (to, cc), in any case and with a display name', async () => {
    await expectList(`from=${encodeURIComponent(`shop@${domain}`)}`, [ids.e3, ids.e1]);
    await expectList(`from=${encodeURIComponent(`SHOP@${domain.toUpperCase()}`)}`, [ids.e3, ids.e1]);
    await expectList(`to=${encodeURIComponent(x)}`, [ids.e2, ids.e1]);
    await expectList(`to=${encodeURIComponent(`Someone <${y.toUpperCase()}>`)}`, [ids.e4, ids.e2]);
    await expectList(`to=${encodeURIComponent(`nobody-${stamp}@example.com`)}`, []);
  });

  it('finds emails by tag and by when they were created', async () => {
    await expectList('tag=campaign:spring', [ids.e4, ids.e3, ids.e1]);
    await expectList('tag=campaign:autumn', [ids.e2]);
    await expectList(`created_before=${encodeURIComponent(between)}`, [ids.e2, ids.e1]);
    await expectList(`created_after=${encodeURIComponent(between)}`, [ids.e4, ids.e3]);
    await expectList(`created_after=${encodeURIComponent(between)}&created_before=${encodeURIComponent(between)}`, []);
  });

  it('combines filters', async () => {
    await expectList('tag=campaign:spring&status=bounced', [ids.e3]);
    await expectList(`from=${encodeURIComponent(`shop@${domain}`)}&to=${encodeURIComponent(x)}`, [ids.e1]);
    await expectList(`tag=campaign:spring&created_after=${encodeURIComponent(between)}`, [ids.e4, ids.e3]);
    await expectList(`to=${encodeURIComponent(y)}&status=delivered&tag=campaign:autumn`, [ids.e2]);
    await expectList(`to=${encodeURIComponent(y)}&status=bounced`, []);
  });

  it('pages through a filter with cursors, forwards and back', async () => {
    await expectList('tag=campaign:spring', [ids.e4, ids.e3, ids.e1]);
    const first = await list('tag=campaign:spring&limit=2');
    expect(first.data.map((e) => e.id)).toEqual([ids.e4, ids.e3]);
    expect(first).toMatchObject({ has_more: true, cursor: ids.e3 });
    const second = await list(`tag=campaign:spring&limit=2&after=${first.cursor}`);
    expect(second.data.map((e) => e.id)).toEqual([ids.e1]);
    expect(second.has_more).toBe(false);
    expect(second.cursor).toBeUndefined();
    const back = await list(`tag=campaign:spring&limit=1&before=${ids.e1}`);
    expect(back.data.map((e) => e.id)).toEqual([ids.e3]);
    expect(back).toMatchObject({ has_more: true, cursor: ids.e3 });
    // the unfiltered list pages the same way, created range included
    const all = await list(`limit=1&created_before=${encodeURIComponent(between)}`);
    expect(all).toMatchObject({ data: [{ id: ids.e2 }], has_more: true, cursor: ids.e2 });
    expect((await list(`limit=5&created_before=${encodeURIComponent(between)}&after=${ids.e2}`)).data).toMatchObject([
      { id: ids.e1 },
    ]);
  });

  it('refuses a bad filter with 422 naming it', async () => {
    for (const [query, path] of [
      ['status=lost', 'status'],
      ['tag=campaign', 'tag'],
      ['tag=a:b:c', 'tag'],
      ['from=shop', 'from'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-13-45', 'created_before'],
      ['colour=red', ''],
    ]) {
      const answer = await api.get(`/emails?${query}`, { key });
      expect(answer.status).toBe(422);
      if (path) expect(answer.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    }
  });

  it("never shows another project's emails", async () => {
    const other = await createOtherProject();
    expect((await list(`to=${encodeURIComponent(x)}`, other.key)).data).toEqual([]);
    expect((await list('tag=campaign:spring', other.key)).data).toEqual([]);
    expect((await list('status=delivered', other.key)).data).toEqual([]);
  });
});
