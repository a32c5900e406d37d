/**
 * The suppressions API over real HTTP: one entry per address (any case), 201 then 200, lookups
 * and deletes by id or by address, the list with its `source` filter (and Resend's `origin`), and
 * project isolation. The batch routes: suppressions-batch.test.ts.
 * Each test uses addresses of its own, so the suites can share the default project.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { suppressAddress } from '../../shared/suppressions/suppressions';
import { api } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName } from '../support/unique';

const runtime = useRuntimeTable();
const unique = (name: string) => `${uniqueName(name)}@example.com`;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /suppressions', () => {
  it('creates a manual entry (201), then answers 200 with the same entry for the address in any case', async () => {
    const address = unique('Someone');
    const first = await api.post('/suppressions', { email: address, reason: 'asked us by phone' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      object: 'suppression',
      id: expect.stringMatching(ID),
      email: address.toLowerCase(),
      source: 'manual',
      origin: 'manual', // Resend's name for source
      subtype: null,
      reason: 'asked us by phone',
      message_id: null,
      source_id: null, // Resend's name for message_id
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const again = await api.post('/suppressions', { email: address.toUpperCase(), reason: 'another reason' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body); // the existing entry, unchanged
  });

  it('returns an existing bounce entry as it is (200), whatever its source', async () => {
    const address = unique('bounced');
    await suppressAddress(runtime.projectId, {
      email: address,
      source: 'bounce',
      subtype: 'General',
      reason: 'smtp; 550 5.1.1 user unknown',
      message_id: 'e-1',
    });
    const res = await api.post('/suppressions', { email: address });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: address,
      source: 'bounce',
      origin: 'bounce',
      subtype: 'General',
      reason: 'smtp; 550 5.1.1 user unknown',
      message_id: 'e-1',
      source_id: 'e-1',
    });
  });

  it('creates exactly one entry when two requests race for one address', async () => {
    const address = unique('race');
    const results = await Promise.all([
      api.post('/suppressions', { email: address }),
      api.post('/suppressions', { email: address }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(results[0].body.id).toBe(results[1].body.id);
  });

  it('leaves reason null when none is given', async () => {
    const res = await api.post('/suppressions', { email: unique('noreason') });
    expect(res.status).toBe(201);
    expect(res.body.reason).toBeNull();
  });

  it.each([
    ['not an address', { email: 'not-an-email' }, 'email'],
    ['a display name', { email: 'Someone <someone@example.com>' }, 'email'],
    ['no email', {}, 'email'],
    ['an address over 254 characters', { email: `${'a'.repeat(250)}@example.com` }, 'email'],
    ['a reason over 1000 characters', { email: 'r@example.com', reason: 'x'.repeat(1001) }, 'reason'],
    ['an unknown field', { email: 'u@example.com', source: 'bounce' }, 'source'],
  ])('refuses %s with 422 naming the field', async (_, body, path) => {
    const res = await api.post('/suppressions', body);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ name: 'validation_error', errors: [expect.objectContaining({ path })] });
  });
});

describe('GET and DELETE /suppressions/{id_or_email}', () => {
  it('reads an entry by id and by address (URL-encoded, any case)', async () => {
    const address = unique('Reader+tag');
    const { body: entry } = await api.post('/suppressions', { email: address });
    expect(await api.get(`/suppressions/${entry.id}`)).toMatchObject({ status: 200, body: entry });
    expect(await api.get(`/suppressions/${encodeURIComponent(address.toUpperCase())}`)).toMatchObject({
      status: 200,
      body: entry,
    });
    expect(await api.get(`/suppressions/${address.toLowerCase()}`)).toMatchObject({ status: 200, body: entry });
  });

  it('deletes by id: both items go, the address can be suppressed anew (201), and a second delete is 404', async () => {
    const address = unique('delete-by-id');
    const { body: entry } = await api.post('/suppressions', { email: address });
    const res = await api.delete(`/suppressions/${entry.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'suppression', id: entry.id, deleted: true });
    // the sender reads the canonical item: it is gone, so the address can be mailed again
    const canonical = await documentClient.send(
      new GetCommand({ TableName: runtime.tableName, Key: keys.suppression(runtime.projectId, address) }),
    );
    expect(canonical.Item).toBeUndefined();
    expect((await api.get(`/suppressions/${entry.id}`)).status).toBe(404);
    expect((await api.get(`/suppressions/${encodeURIComponent(address)}`)).status).toBe(404);
    expect(await api.delete(`/suppressions/${entry.id}`)).toMatchObject({
      status: 404,
      body: { name: 'not_found', errors: [{ code: 'not_found', path: 'id_or_email' }] },
    });
    const again = await api.post('/suppressions', { email: address });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(entry.id);
  });

  it('deletes by address, and the entry disappears from its id too', async () => {
    const address = unique('delete-by-email');
    const { body: entry } = await api.post('/suppressions', { email: address });
    const res = await api.delete(`/suppressions/${encodeURIComponent(address.toUpperCase())}`);
    expect(res).toMatchObject({ status: 200, body: { object: 'suppression', id: entry.id, deleted: true } });
    expect((await api.get(`/suppressions/${entry.id}`)).status).toBe(404);
    expect((await api.delete(`/suppressions/${encodeURIComponent(address)}`)).status).toBe(404);
  });

  it('answers 404 for unknown ids and addresses, 422 for something that is neither', async () => {
    expect((await api.get('/suppressions/01a20280-902e-70b0-b281-d9d957510688')).status).toBe(404);
    expect((await api.get(`/suppressions/${unique('never')}`)).status).toBe(404);
    const bad = await api.get('/suppressions/neither-id-nor-address');
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].path).toBe('id_or_email');
  });
});

describe('GET /suppressions', () => {
  it('lists newest first, pages, and filters by source', async () => {
    const other = await createOtherProject(); // a project of its own, so other suites' entries do not interfere
    const manual: string[] = [];
    for (const name of ['a', 'b', 'c'])
      manual.push((await api.post('/suppressions', { email: unique(name) }, { key: other.key })).body.id);
    await suppressAddress(other.projectId, {
      email: unique('bounce'),
      source: 'bounce',
      subtype: 'NoEmail',
      reason: 'no such mailbox',
      message_id: 'e-2',
    });
    await suppressAddress(other.projectId, {
      email: unique('complaint'),
      source: 'complaint',
      subtype: 'abuse',
      reason: 'complained',
      message_id: 'e-3',
    });

    const all = await api.get('/suppressions', { key: other.key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', has_more: false });
    expect(all.body.data.map((s: { source: string }) => s.source)).toEqual([
      'complaint',
      'bounce',
      'manual',
      'manual',
      'manual',
    ]);

    const page = await api.get('/suppressions?limit=2', { key: other.key });
    expect(page.body.has_more).toBe(true);
    const next = await api.get(`/suppressions?limit=2&after=${page.body.data[1].id}`, { key: other.key });
    expect(next.body.data.map((s: { id: string }) => s.id)).toEqual([manual[2], manual[1]]);

    const manualOnly = await api.get('/suppressions?source=manual&limit=2', { key: other.key });
    expect(manualOnly.body.data.map((s: { id: string }) => s.id)).toEqual([manual[2], manual[1]]);
    expect(manualOnly.body.has_more).toBe(true);
    const rest = await api.get(`/suppressions?source=manual&limit=2&after=${manual[1]}`, { key: other.key });
    expect(rest.body).toMatchObject({ data: [{ id: manual[0] }], has_more: false });

    const bounces = await api.get('/suppressions?source=bounce', { key: other.key });
    expect(bounces.body.data).toEqual([
      expect.objectContaining({ source: 'bounce', subtype: 'NoEmail', message_id: 'e-2' }),
    ]);
    expect((await api.get('/suppressions?source=unknown', { key: other.key })).status).toBe(422);
    // Resend's name for the same filter (the SDK's list({ origin })); the two may not disagree
    expect((await api.get('/suppressions?origin=bounce', { key: other.key })).body.data).toEqual(bounces.body.data);
    expect((await api.get('/suppressions?origin=complaint&source=complaint', { key: other.key })).body.data).toEqual([
      expect.objectContaining({ origin: 'complaint', source_id: 'e-3' }),
    ]);
    const disagree = await api.get('/suppressions?origin=bounce&source=manual', { key: other.key });
    expect(disagree).toMatchObject({ status: 422, body: { errors: [expect.objectContaining({ path: 'origin' })] } });
    expect((await api.get('/suppressions?origin=unknown', { key: other.key })).status).toBe(422);
  });
});

describe('isolation', () => {
  it("never shows, lists or deletes another project's entry (404), and suppresses the same address separately", async () => {
    const other = await createOtherProject();
    const address = unique('shared');
    const { body: mine } = await api.post('/suppressions', { email: address });
    expect((await api.get(`/suppressions/${mine.id}`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/suppressions/${encodeURIComponent(address)}`, { key: other.key })).status).toBe(404);
    expect((await api.delete(`/suppressions/${mine.id}`, { key: other.key })).status).toBe(404);
    expect((await api.delete(`/suppressions/${encodeURIComponent(address)}`, { key: other.key })).status).toBe(404);
    expect((await api.get('/suppressions', { key: other.key })).body.data).toEqual([]);
    const theirs = await api.post('/suppressions', { email: address }, { key: other.key });
    expect(theirs.status).toBe(201); // the other project's list is its own
    expect(theirs.body.id).not.toBe(mine.id);
    expect((await api.get(`/suppressions/${mine.id}`)).status).toBe(200);
  });
});

describe('SES feedback, end to end through the local SES and the suppression writer', () => {
  it('suppresses bounce@ (General, message_id = the email) and complaint@ (abuse), not ooto@, and a later email to the bounced address ends suppressed, unsent', async () => {
    const other = await createOtherProject(); // the simulator addresses get suppressed: not in the project other suites send from
    const domain = `suppress-${Date.now().toString(36)}.example.com`;
    const created = await api.post('/domains', { name: domain }, { key: other.key });
    await waitFor(
      () => api.post(`/domains/${created.body.id}/verify`, undefined, { key: other.key }),
      (r) => r.body.status === 'verified',
    );
    const send = async (to: string, subject = `to ${to}`) => {
      const res = await api.post('/emails', { from: `n@${domain}`, to, subject, text: 'x' }, { key: other.key });
      expect(res.status).toBe(200);
      return res.body.id as string;
    };
    const entryOf = (address: string) => api.get(`/suppressions/${encodeURIComponent(address)}`, { key: other.key });
    const emailOf = (id: string) => api.get(`/emails/${id}`, { key: other.key }).then((r) => r.body);

    const bounced = await send('bounce@simulator.amazonses.com');
    const complained = await send('complaint@simulator.amazonses.com');
    const ooto = await send('ooto@simulator.amazonses.com');
    const bounceEntry = await waitFor(
      () => entryOf('bounce@simulator.amazonses.com'),
      (r) => r.status === 200,
    );
    expect(bounceEntry.body).toMatchObject({
      source: 'bounce',
      subtype: 'General',
      message_id: bounced,
      reason: expect.any(String),
    });
    const complaintEntry = await waitFor(
      () => entryOf('complaint@simulator.amazonses.com'),
      (r) => r.status === 200,
    );
    expect(complaintEntry.body).toMatchObject({ source: 'complaint', subtype: 'abuse', message_id: complained });
    await waitFor(
      () => emailOf(ooto),
      (e) => e.last_event === 'delivered',
    );
    expect((await entryOf('ooto@simulator.amazonses.com')).status).toBe(404);

    const subject = `suppressed ${Date.now()}`;
    const later = await send('bounce@simulator.amazonses.com', subject);
    await waitFor(
      () => emailOf(later),
      (e) => e.last_event === 'suppressed',
    );
    const stored = (await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as {
      emails: { subject: string }[];
    };
    expect(stored.emails.filter((e) => e.subject === subject)).toHaveLength(0);
    // and the project hears of it: email.suppressed, as Resend sends it
    const events = (await projectEvents(other.projectId))
      .map((item) => item.event)
      .filter((e) => e.type === 'email.suppressed');
    expect(events).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          object: expect.objectContaining({
            id: later,
            last_event: 'suppressed',
            suppressed_reason: 'suppression_list',
            suppressed: expect.objectContaining({
              reason: 'suppression_list',
              recipients: ['bounce@simulator.amazonses.com'],
            }),
          }),
          // Resend's flat fields beside the resource
          email_id: later,
          suppressed: { type: 'suppression_list', message: 'Every recipient is on the suppression list' },
        }),
      }),
    ]);
  });
});
