/**
 * Sending over HTTP through the whole local pipeline: POST /emails -> table + send queue ->
 * sender worker -> local SES (rate-limited, identity-checked) -> the mail viewer's store.
 */
import {
  CreateEmailIdentityCommand,
  CreateTenantResourceAssociationCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  GetTenantCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { runtimeCredentials } from '../support/stand-ins';
import { uniqueName } from '../support/unique';

const runtime = useRuntimeTable();
const ses = new SESv2Client({
  endpoint: runtime.sesEndpoint,
  region: 'ap-southeast-2',
  credentials: runtimeCredentials(),
});
afterAll(() => ses.destroy());

const unique = (label: string) => `${uniqueName(label)}.example.com`;

const emailOf = (id: string, key?: string) => api.get(`/emails/${id}`, { key }).then((r) => r.body);
/** The email once it left the sender: `sent`, or what came of it already (failed, delivered, ...). */
const settled = (id: string, key?: string) =>
  waitFor(
    () => emailOf(id, key),
    (e) => !['queued', 'sending', 'scheduled'].includes(e.last_event),
  );
/**
 * The email once SES's feedback came: every recipient of these tests is one the simulator delivers to
 * (shared/emails/simulated-outcomes.ts: any address but its bounce ones), whose Delivery follows the
 * send a second later; a test asserts `delivered`. 60 s: the suites share the runtime's sender.
 */
const delivered = (id: string, key?: string) =>
  waitFor(
    () => emailOf(id, key),
    (e) => !['queued', 'sending', 'scheduled', 'sent'].includes(e.last_event),
    60_000,
  );
// A test's own bound covers the waits in it: `delivered` may take its 60 s (two clean-clone runs had tests
// waiting for it end at jest's default 30 s, on a loaded shared runtime, with the wait itself not yet over).
jest.setTimeout(120_000);

async function mailViewerStore(): Promise<{ subject: string; messageId: string }[]> {
  const store = await fetch(`${runtime.mailViewerUrl}/store`).then(
    (r) => r.json() as Promise<{ emails: { subject: string; messageId: string }[] }>,
  );
  return store.emails;
}

let domain: string;
beforeAll(async () => {
  domain = await verifiedDomain();
});

describe('POST /emails', () => {
  it('sends to the SES mailbox simulator: delivered, with a message id, and visible in the mail viewer', async () => {
    const subject = `Hello ${Date.now()}`;
    const res = await api.post('/emails', {
      from: `Acme <news@${domain}>`,
      to: 'success@simulator.amazonses.com',
      subject,
      html: '<p>Hi</p>',
      text: 'Hi',
      headers: { 'X-Campaign': 'welcome' },
      tags: [{ name: 'category', value: 'welcome' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const email = await delivered(res.body.id);
    expect(email).toMatchObject({
      object: 'email',
      id: res.body.id,
      from: `Acme <news@${domain}>`,
      to: ['success@simulator.amazonses.com'],
      cc: [],
      subject,
      html: '<p>Hi</p>',
      text: 'Hi',
      headers: { 'X-Campaign': 'welcome' },
      tags: [{ name: 'category', value: 'welcome' }],
      last_event: 'delivered',
      scheduled_at: null,
    });
    // the Message-ID header SES gives the message, and SES's own id beside it
    expect(email.message_id).toBe(`<${email.ses_message_id}@ap-southeast-2.amazonses.com>`);
    expect(email.ses_message_id).toEqual(expect.any(String));
    expect((await mailViewerStore()).some((m) => m.subject === subject)).toBe(true);
  });

  it("refuses a domain that is not the project's, or not verified, with 422 on from", async () => {
    const foreign = await api.post('/emails', {
      from: 'a@not-mine.example.org',
      to: 'b@example.com',
      subject: 's',
      text: 't',
    });
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0]).toMatchObject({ code: 'domain_not_found', path: 'from' });

    const pending = unique('pending');
    expect((await api.post('/domains', { name: pending })).status).toBe(201);
    const unverified = await api.post('/emails', {
      from: `a@${pending}`,
      to: 'b@example.com',
      subject: 's',
      text: 't',
    });
    expect(unverified.status).toBe(422);
    expect(unverified.body.errors[0]).toMatchObject({ code: 'domain_not_verified', path: 'from' });
  });

  it('refuses an email with neither html nor text content (empty strings) with 422, also in a batch', async () => {
    const res = await api.post('/emails', {
      from: `a@${domain}`,
      to: 'r@example.com',
      subject: 'Empty',
      html: '',
      text: '',
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ code: 'missing_content', path: 'html' })]);
    const batch = await api.post('/emails/batch', [
      { from: `a@${domain}`, to: 'r@example.com', subject: 'Fine', text: 'x' },
      { from: `a@${domain}`, to: 'r@example.com', subject: 'Empty', html: '' },
    ]);
    expect(batch.status).toBe(422);
    expect(batch.body.errors).toEqual([expect.objectContaining({ code: 'missing_content', path: '1.html' })]);
  });

  it('validates the body: addresses, html or text, recipients limit, tags', async () => {
    const bad = await api.post('/emails', {
      from: `a@${domain}`,
      to: ['ok@example.com', 'not an address'],
      subject: 's',
    });
    expect(bad.status).toBe(422);
    const paths = bad.body.errors.map((e: { path: string }) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['html']));
    expect(paths.some((p: string) => p.startsWith('to'))).toBe(true);

    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
    const tooMany = await api.post('/emails', { from: `a@${domain}`, to: many, subject: 's', text: 't' });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0].path).toBe('to');

    const badTag = await api.post('/emails', {
      from: `a@${domain}`,
      to: 'x@example.com',
      subject: 's',
      text: 't',
      tags: [{ name: 'a b', value: 'v' }],
    });
    expect(badTag.status).toBe(422);
    expect(badTag.body.errors[0].path).toBe('tags.0.name');
  });

  it('lets a test key send from an unverified domain of its project without reaching SES', async () => {
    const other = await createOtherProject();
    // POST /api-keys gives keys of the caller's mode, so the test key comes straight from the table
    const { createApiKey } = await import('../../shared/access/api-keys');
    const { token } = await createApiKey(
      { projectId: other.projectId, livemode: false, permission: 'full_access' },
      { name: 'test', mode: 'test' },
    );
    const name = unique('testmode');
    expect((await api.post('/domains', { name }, { key: token })).status).toBe(201);
    const subject = `Test mode ${Date.now()}`;
    const res = await api.post(
      '/emails',
      { from: `t@${name}`, to: 'someone@example.com', subject, text: 'x' },
      { key: token },
    );
    expect(res.status).toBe(200);
    // test mode simulates SES's feedback too: someone@example.com is delivered a second after the send
    const email = await delivered(res.body.id, token);
    expect(email.last_event).toBe('delivered');
    expect(email.ses_message_id).toMatch(/^test-/);
    expect(email.message_id).toBe(`<${email.ses_message_id}@test-mode.invalid>`);
    expect((await mailViewerStore()).some((m) => m.subject === subject)).toBe(false);
    const mine = (await projectEvents(`${other.projectId}_test`))
      .map((i) => i.event)
      .filter((e) => e.data.object.id === res.body.id);
    expect(mine.map((e) => e.type)).toEqual(['email.queued', 'email.sending', 'email.sent', 'email.delivered']);
    expect(mine.every((e) => e.livemode === false)).toBe(true);
  });
});

describe('Idempotency-Key', () => {
  it('replays the same id for the same key and body and sends once; another body is 409', async () => {
    const subject = `Idempotent ${Date.now()}`;
    const body = { from: `a@${domain}`, to: 'success@simulator.amazonses.com', subject, text: 'once' };
    const headers = { 'Idempotency-Key': `order-${Date.now()}` };
    const first = await api.post('/emails', body, { headers });
    const second = await api.post('/emails', body, { headers });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    // Delivered: SES took the one message a second ago. Whatever either request queued was queued before it answered,
    // and a send message for an email already claimed sends nothing (shared/emails/sender.ts): one message in the viewer.
    expect((await delivered(first.body.id)).last_event).toBe('delivered');
    expect((await mailViewerStore()).filter((m) => m.subject === subject)).toHaveLength(1);

    const other = await api.post('/emails', { ...body, text: 'changed' }, { headers });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ name: 'application_error', errors: [{ code: 'invalid_idempotent_request' }] });
  });

  it('treats a record past its expiry that TTL has not deleted yet as absent: the email is written and its id exists', async () => {
    const { createHash } = await import('node:crypto');
    const { putItem, put } = await import('../../shared/platform/db/table');
    const keys = await import('../../shared/platform/db/keys');
    const key = `expired-${Date.now()}`;
    const body = {
      from: `a@${domain}`,
      to: 'success@simulator.amazonses.com',
      subject: `Expired key ${Date.now()}`,
      text: 'x',
    };
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    // as a request a day ago left it: same key, same body, expired an hour ago, its email long gone
    await putItem(
      put({
        ...keys.idempotency(runtime.projectId, sha(key)),
        type: 'idempotency',
        project_id: runtime.projectId,
        body_hash: sha(JSON.stringify(body)),
        email_ids: ['01890000-0000-7000-8000-000000000000'],
        expires_at: Math.floor(Date.now() / 1000) - 3600,
      }),
    );
    const res = await api.post('/emails', body, { headers: { 'Idempotency-Key': key } });
    expect(res.status).toBe(200);
    expect(res.body.id).not.toBe('01890000-0000-7000-8000-000000000000');
    expect((await api.get(`/emails/${res.body.id}`)).status).toBe(200);
    const replay = await api.post('/emails', body, { headers: { 'Idempotency-Key': key } });
    expect(replay.body).toEqual(res.body); // the new record answers from now on
  });
});

describe('POST /emails/batch', () => {
  it('sends the valid emails of a permissive batch (x-batch-validation) and answers the others by index', async () => {
    const ok = (i: number) => ({
      from: `a@${domain}`,
      to: 'success@simulator.amazonses.com',
      subject: `permissive ${i}`,
      text: 'x',
    });
    const batch = [
      ok(0),
      { from: `a@${domain}`, to: 'r@example.com', text: 'no subject' },
      { ...ok(2), from: 'a@not-ours.example.com' },
      ok(3),
    ];
    const res = await api.post('/emails/batch', batch, { headers: { 'x-batch-validation': 'permissive' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    expect(res.body.errors).toEqual([
      { index: 1, message: expect.stringMatching(/subject/) },
      { index: 2, message: expect.stringMatching(/not-ours\.example\.com/) },
    ]);
    for (const [i, { id }] of res.body.data.entries())
      expect((await api.get(`/emails/${id}`)).body.subject).toBe(`permissive ${[0, 3][i]}`);

    const none = await api.post('/emails/batch', [batch[1]], { headers: { 'x-batch-validation': 'permissive' } });
    expect(none).toMatchObject({ status: 200, body: { data: [], errors: [{ index: 0 }] } });
    const strict = await api.post('/emails/batch', batch, { headers: { 'x-batch-validation': 'strict' } });
    expect(strict.status).toBe(422); // the default, as before: one invalid email refuses the batch
    const unknown = await api.post('/emails/batch', [ok(9)], { headers: { 'x-batch-validation': 'lenient' } });
    expect(unknown).toMatchObject({ status: 422, body: { errors: [{ path: 'x-batch-validation' }] } });
    const tooMany = await api.post(
      '/emails/batch',
      Array.from({ length: 101 }, (_, i) => ok(i)),
      { headers: { 'x-batch-validation': 'permissive' } },
    );
    expect(tooMany.status).toBe(422); // the batch's own bounds still hold
  });

  it('writes a batch over one transaction (98 emails: 3 writes each, 100 per transaction) all at once, and a replay answers only ids that exist', async () => {
    const big = `<p>${'x'.repeat(45 * 1024)}</p>`;
    const tag = Date.now();
    // a project of its own: its 98 events in the shared project would push other suites' events
    // out of the newest ones they read
    const { key } = await createOtherProject();
    const ownDomain = await verifiedDomain(key);
    // 98 emails are 294 writes: staged, committed by one write, published. Scheduled an hour
    // ahead: this test is about writing them, and sending 98 large emails would hold up the other tests' mail
    const scheduled_at = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const batch = Array.from({ length: 98 }, (_, n) => ({
      from: `a@${ownDomain}`,
      to: `r${n}@example.com`,
      subject: `Big batch ${tag} ${n}`,
      scheduled_at,
      ...(n < 49 ? { text: 'small' } : { html: big }),
    }));
    const headers = { 'Idempotency-Key': `big-batch-${tag}` };
    const res = await api.post('/emails/batch', batch, { headers, key });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(98);
    for (let i = 0; i < ids.length; i += 14) {
      const found = await Promise.all(ids.slice(i, i + 14).map((id) => api.get(`/emails/${id}`, { key })));
      expect(found.map((r) => r.status)).toEqual(found.map(() => 200));
    }
    const replay = await api.post('/emails/batch', batch, { headers, key });
    expect(replay.status).toBe(200);
    expect(replay.body.data.map((e: { id: string }) => e.id)).toEqual(ids);
  }, 60_000);

  it('sends every email of a valid batch', async () => {
    const res = await api.post(
      '/emails/batch',
      [1, 2, 3].map((n) => ({ from: `a@${domain}`, to: `r${n}@example.com`, subject: `Batch ${n}`, text: 'x' })),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(3);
    // the whole email on failure: its failure_reason says why
    for (const { id } of res.body.data) expect(await delivered(id)).toMatchObject({ id, last_event: 'delivered' });
  });

  it('refuses the whole batch when one email is invalid, naming its index, and writes nothing', async () => {
    const before = (await api.get('/emails?limit=100')).body.data.length;
    const res = await api.post('/emails/batch', [
      { from: `a@${domain}`, to: 'r@example.com', subject: 'fine', text: 'x' },
      { from: `a@${domain}`, to: 'r@example.com', subject: '', text: 'x' },
    ]);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toBe('1.subject');
    expect((await api.get('/emails?limit=100')).body.data.length).toBe(before);
  });
});

describe('scheduled emails', () => {
  it('sends a scheduled email after its time', async () => {
    const at = new Date(Date.now() + 2000).toISOString();
    const res = await api.post('/emails', {
      from: `a@${domain}`,
      to: 'later@example.com',
      subject: 'Later',
      text: 'x',
      scheduled_at: at,
    });
    const email = await delivered(res.body.id); // the runtime's dispatcher runs every second
    expect(email).toMatchObject({ last_event: 'delivered', scheduled_at: at });
    // scheduled first, and sending only once its time had come (the event log says when, however slow the machine was)
    const mine = (await projectEvents(runtime.projectId))
      .map((i) => i.event)
      .filter((e) => e.data.object.id === res.body.id);
    expect(mine.map((e) => e.type)).toEqual(['email.scheduled', 'email.sending', 'email.sent', 'email.delivered']);
    expect(Date.parse(mine[1].created_at)).toBeGreaterThanOrEqual(Date.parse(at));
  });

  it('reschedules and cancels a scheduled email; cancelling twice is 409', async () => {
    const at = new Date(Date.now() + 60 * 60 * 1000).toISOString();
    const res = await api.post('/emails', {
      from: `a@${domain}`,
      to: 'later@example.com',
      subject: 'Much later',
      text: 'x',
      scheduled_at: at,
    });
    const later = new Date(Date.now() + 2 * 60 * 60 * 1000).toISOString();
    expect((await api.patch(`/emails/${res.body.id}`, { scheduled_at: later })).status).toBe(200);
    expect((await emailOf(res.body.id)).scheduled_at).toBe(later);
    expect(await api.post(`/emails/${res.body.id}/cancel`)).toMatchObject({
      status: 200,
      body: { object: 'email', id: res.body.id },
    });
    expect((await emailOf(res.body.id)).last_event).toBe('canceled');
    const again = await api.post(`/emails/${res.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('email_not_scheduled');
  });
});

describe('POST /emails/{email_id}/retry', () => {
  it('answers 404 with errors as an object for an unknown email', async () => {
    const res = await api.post('/emails/01a20280-902e-70b0-b281-d9d957510688/retry');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ name: 'not_found', message: expect.any(String), errors: { code: 'not_found' } });
    expect(Array.isArray(res.body.errors)).toBe(false);
  });

  it('answers 409 with errors as an object for an email that did not fail', async () => {
    const { body } = await api.post('/emails', { from: `a@${domain}`, to: 'r@example.com', subject: 'ok', text: 'x' });
    expect((await delivered(body.id)).last_event).toBe('delivered');
    const res = await api.post(`/emails/${body.id}/retry`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      name: 'application_error',
      errors: { code: 'email_not_retryable', last_event: 'delivered' },
    });
  });

  it('re-queues a failed email, which is then sent and delivered', async () => {
    const name = await verifiedDomain();
    await ses.send(new DeleteEmailIdentityCommand({ EmailIdentity: name })); // SES now rejects the sender
    const { body } = await api.post('/emails', {
      from: `a@${name}`,
      to: 'success@simulator.amazonses.com',
      subject: 'Retry me',
      text: 'x',
    });
    const failed = await settled(body.id);
    expect(failed.last_event).toBe('failed');

    // made again by hand, as an operator would, with its place in the project's tenant (deleting it dropped that)
    await ses.send(new CreateEmailIdentityCommand({ EmailIdentity: name }));
    const { Tenant } = await ses.send(new GetTenantCommand({ TenantName: `es-${runtime.projectId}` }));
    const resource = `${Tenant!.TenantArn!.split(':').slice(0, 5).join(':')}:identity/${name}`;
    await ses.send(
      new CreateTenantResourceAssociationCommand({ TenantName: Tenant!.TenantName, ResourceArn: resource }),
    );
    // the local SES verifies a new identity a second after it was made (LOCAL_SES_VERIFY_DELAY_MS): until SES says so
    await waitFor(
      () => ses.send(new GetEmailIdentityCommand({ EmailIdentity: name })),
      (identity) => identity.VerifiedForSendingStatus === true,
    );
    const retried = await api.post(`/emails/${body.id}/retry`);
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ object: 'email', id: body.id, last_event: 'queued' });
    expect(await delivered(body.id)).toMatchObject({ last_event: 'delivered' });
  });
});

describe('POST /emails with a template', () => {
  let counter2 = 0;
  const alias = (label: string) => `${label}-${Date.now().toString(36)}-${counter2++}`;

  /** A published template of the test project, sending from the verified domain. */
  async function publishedTemplate(overrides: Record<string, unknown> = {}) {
    const created = await api.post('/templates', {
      name: 'Receipt',
      alias: alias('receipt'),
      from: `Shop <shop@${domain}>`,
      subject: 'Your order of {{PRODUCT}}',
      reply_to: ['help@example.com'],
      html: '<p>{{PRODUCT}} for {{{PRICE}}}</p><p>{{{NOTE}}}</p>',
      text: '{{PRODUCT}} for {{PRICE}}',
      variables: [
        { key: 'PRODUCT', type: 'string' },
        { key: 'PRICE', type: 'number', fallback_value: 25 },
        { key: 'NOTE', type: 'string', fallback_value: 'Thanks!' },
      ],
      ...overrides,
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/templates/${created.body.id}/publish`)).status).toBe(200);
    return created.body;
  }

  it('renders the published version: {{KEY}} escaped in html, {{{KEY}}} as is, fallbacks, from/subject/reply_to from the template', async () => {
    const template = await publishedTemplate();
    const res = await api.post('/emails', {
      to: 'success@simulator.amazonses.com',
      template: { id: template.id, variables: { PRODUCT: 'Tea & <Cake>' } },
    });
    expect(res.status).toBe(200);
    const email = await delivered(res.body.id);
    expect(email).toMatchObject({
      from: `Shop <shop@${domain}>`,
      subject: 'Your order of Tea & <Cake>',
      reply_to: ['help@example.com'],
      html: '<p>Tea &amp; &lt;Cake&gt; for 25</p><p>Thanks!</p>',
      text: 'Tea & <Cake> for 25',
      last_event: 'delivered',
    });
    expect((await mailViewerStore()).some((m) => m.subject === 'Your order of Tea & <Cake>')).toBe(true);
  });

  it("takes the template by alias; the request's from, subject and reply_to win over the template's", async () => {
    const template = await publishedTemplate();
    const res = await api.post('/emails', {
      from: `Other <other@${domain}>`,
      subject: 'Overridden',
      reply_to: 'me@example.com',
      to: 'success@simulator.amazonses.com',
      template: { id: template.alias, variables: { PRODUCT: 'Pen', PRICE: 3.5, NOTE: '<b>bold</b>' } },
    });
    expect(res.status).toBe(200);
    expect(await emailOf(res.body.id)).toMatchObject({
      from: `Other <other@${domain}>`,
      subject: 'Overridden',
      reply_to: ['me@example.com'],
      html: '<p>Pen for 3.5</p><p><b>bold</b></p>',
      text: 'Pen for 3.5',
    });
  });

  it('sends the published version, not later draft edits, and refuses a template never published', async () => {
    const template = await publishedTemplate();
    expect((await api.patch(`/templates/${template.id}`, { html: '<p>draft {{PRODUCT}}</p>' })).status).toBe(200);
    const res = await api.post('/emails', {
      to: 'success@simulator.amazonses.com',
      template: { id: template.id, variables: { PRODUCT: 'Cup' } },
    });
    expect(res.status).toBe(200);
    expect((await emailOf(res.body.id)).html).toBe('<p>Cup for 25</p><p>Thanks!</p>');

    const draft = await api.post('/templates', { name: 'Draft', html: '<p>x</p>', from: `a@${domain}`, subject: 's' });
    const refused = await api.post('/emails', { to: 'r@example.com', template: { id: draft.body.id } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ code: 'template_not_published', path: 'template.id' }),
    ]);
  });

  it('sends a template whose content uses an undeclared variable with the value given, and names it when it is missing', async () => {
    const created = await api.post('/templates', {
      name: 'Loose send',
      from: `a@${domain}`,
      subject: 'Code',
      html: '<p>Your code is {{{CODE}}}</p>',
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/templates/${created.body.id}/publish`)).status).toBe(200);
    const missing = await api.post('/emails', { to: 'r@example.com', template: { id: created.body.id } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ code: 'missing_template_variable', path: 'template.variables.CODE' }),
    ]);
    const sent = await api.post('/emails', {
      to: 'success@simulator.amazonses.com',
      template: { id: created.body.id, variables: { CODE: 4711 } },
    });
    expect(sent.status).toBe(200);
    expect((await api.get(`/emails/${sent.body.id}`)).body.html).toBe('<p>Your code is 4711</p>');
  });

  it('answers 422 naming template.variables.KEY for missing, mistyped and undeclared variables', async () => {
    const template = await publishedTemplate();
    const missing = await api.post('/emails', { to: 'r@example.com', template: { id: template.id } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([
      expect.objectContaining({ code: 'missing_template_variable', path: 'template.variables.PRODUCT' }),
    ]);

    const wrong = await api.post('/emails', {
      to: 'r@example.com',
      template: { id: template.id, variables: { PRODUCT: 'x', PRICE: 'ten', EXTRA: 1 } },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors.map((e: { code: string; path: string }) => `${e.code} ${e.path}`).sort()).toEqual([
      'invalid_template_variable template.variables.PRICE',
      'unknown_template_variable template.variables.EXTRA',
    ]);
  });

  it('refuses an unknown template, html or text beside a template, and a send with no from anywhere', async () => {
    const unknown = await api.post('/emails', {
      to: 'r@example.com',
      template: { id: '0198c2a4-0000-7000-8000-000000000000' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'template_not_found', path: 'template.id' });
    expect(
      (await api.post('/emails', { to: 'r@example.com', template: { id: alias('nope') } })).body.errors[0].code,
    ).toBe('template_not_found');

    const template = await publishedTemplate();
    const both = await api.post('/emails', {
      to: 'r@example.com',
      html: '<p>x</p>',
      text: 'x',
      template: { id: template.id, variables: { PRODUCT: 'x' } },
    });
    expect(both.status).toBe(422);
    expect(both.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['html', 'text']);

    const bare = await publishedTemplate({
      from: null,
      subject: null,
      variables: [
        { key: 'PRODUCT', type: 'string' },
        { key: 'PRICE', type: 'number' },
        { key: 'NOTE', type: 'string' },
      ],
    });
    const noFrom = await api.post('/emails', {
      to: 'r@example.com',
      template: { id: bare.id, variables: { PRODUCT: 'x', PRICE: 1, NOTE: 'n' } },
    });
    expect(noFrom.status).toBe(422);
    expect(noFrom.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['from', 'subject']);

    const emptySubject = await publishedTemplate({ subject: '{{{PRODUCT}}}' });
    const empty = await api.post('/emails', {
      to: 'r@example.com',
      template: { id: emptySubject.id, variables: { PRODUCT: '' } },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0]).toMatchObject({ code: 'invalid_subject', path: 'subject' });

    const noTemplate = await api.post('/emails', { to: 'r@example.com', text: 'x' });
    expect(noTemplate.status).toBe(422);
    expect(noTemplate.body.errors.map((e: { code: string; path: string }) => `${e.code} ${e.path}`).sort()).toEqual([
      'invalid_type from',
      'invalid_type subject',
    ]);
  });

  it('renders templates in a batch, naming the index of an email whose variables fail', async () => {
    const template = await publishedTemplate();
    const ok = await api.post('/emails/batch', [
      { to: 'success@simulator.amazonses.com', template: { id: template.id, variables: { PRODUCT: 'One' } } },
      { to: 'success@simulator.amazonses.com', template: { id: template.alias, variables: { PRODUCT: 'Two' } } },
      { from: `a@${domain}`, to: 'success@simulator.amazonses.com', subject: 'Plain', text: 'no template' },
    ]);
    expect(ok.status).toBe(200);
    const [one, two, plain] = await Promise.all(ok.body.data.map((d: { id: string }) => emailOf(d.id)));
    expect([one.text, two.text, plain.text]).toEqual(['One for 25', 'Two for 25', 'no template']);

    const bad = await api.post('/emails/batch', [
      { to: 'r@example.com', template: { id: template.id, variables: { PRODUCT: 'One' } } },
      { to: 'r@example.com', template: { id: template.id } },
    ]);
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([
      expect.objectContaining({ code: 'missing_template_variable', path: '1.template.variables.PRODUCT' }),
    ]);
  });
});

describe('messages as SES will see them (issue 16)', () => {
  const tag = () => Date.now().toString(36);

  it('refuses recipients hidden in a display name: an entry is one mailbox, in to, cc, bcc and reply_to', async () => {
    const smuggled = 'x@evil.example, y@evil.example <ok@example.com>';
    for (const field of ['to', 'cc', 'bcc', 'reply_to']) {
      const res = await api.post('/emails', {
        from: `a@${domain}`,
        to: 'ok@example.com',
        [field]: [smuggled],
        subject: 's',
        text: 't',
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([expect.objectContaining({ path: `${field}.0` })]);
    }
    // a group, a comma list in one string, a comment, a quoted name holding an address, an encoded-word decoding to one
    for (const to of [
      'team: a@evil.example, b@evil.example;',
      'a@evil.example, b@evil.example',
      'ok@example.com (b@evil.example)',
      '"b@evil.example" <ok@example.com>',
      '=?utf-8?Q?b=40evil.example?= <ok@example.com>',
    ]) {
      expect((await api.post('/emails', { from: `a@${domain}`, to, subject: 's', text: 't' })).status).toBe(422);
    }
    // names that are only names still go: quoted with a comma, encoded-words, plain
    for (const to of [
      '"Doe, Jane" <ok@example.com>',
      '=?utf-8?B?SsO2cmc=?= <ok@example.com>',
      'Jane Q. Doe <ok@example.com>',
    ]) {
      expect((await api.post('/emails', { from: `a@${domain}`, to, subject: 's', text: 't' })).status).toBe(200);
    }
  });

  it('counts every mailbox toward the limit: 50 entries cannot carry 550 recipients', async () => {
    const to = Array.from(
      { length: 50 },
      (_, i) =>
        `${Array.from({ length: 10 }, (_, j) => `r${i}-${j}@evil.example`).join(', ')}, r${i} <r${i}@example.com>`,
    );
    const res = await api.post('/emails', { from: `a@${domain}`, to, subject: 's', text: 't' });
    expect(res.status).toBe(422);
    expect(res.body.errors[0].path).toMatch(/^to\.\d+$/);
  });

  it('does not mail a suppressed address hidden beside another recipient in one entry', async () => {
    const victim = `victim-${tag()}@example.com`;
    expect((await api.post('/suppressions', { email: victim })).status).toBe(201);
    const subject = `Smuggled past the suppression list ${tag()}`;
    const res = await api.post('/emails', {
      from: `a@${domain}`,
      to: `${victim}, friend <success@simulator.amazonses.com>`,
      subject,
      text: 't',
    });
    expect(res.status).toBe(422);
    expect((await mailViewerStore()).some((m) => m.subject === subject)).toBe(false);
  });

  it("refuses a From whose display name carries another mailbox, or that is not exactly one mailbox on the project's domain", async () => {
    for (const from of [
      `"ceo@other-company.example" <news@${domain}>`,
      `ceo@other-company.example <news@${domain}>`,
      `ceo@other-company.example, Acme <news@${domain}>`,
      `Acme <news@${domain}>, ceo@other-company.example`,
      `=?utf-8?Q?ceo=40other-company.example?= <news@${domain}>`,
      `"Acme, Inc; ceo" <news@${domain}>`,
      `Acme: news@${domain};`,
    ]) {
      const res = await api.post('/emails', { from, to: 'ok@example.com', subject: 's', text: 't' });
      expect([from, res.status]).toEqual([from, 422]);
      expect(res.body.errors[0].path).toBe('from');
    }
  });

  it('refuses CR, LF, NUL and U+2028/2029 in the subject, display names, custom headers and attachments with 422', async () => {
    const base = { from: `Acme <a@${domain}>`, to: 'ok@example.com', subject: 'Hello', text: 't' };
    const attachment = { filename: 'a.txt', content: 'aGVsbG8=', content_type: 'text/plain' };
    const cases: [Record<string, unknown>, string][] = [
      [{ subject: 'Hello\r\nBcc: victim@evil.example' }, 'subject'],
      [{ subject: 'Hello\nX-Injected: 1' }, 'subject'],
      [{ subject: 'Hello\u0000' }, 'subject'],
      [{ subject: 'Hello\u2028Bcc: victim@evil.example' }, 'subject'],
      [{ subject: 'Hello\u2029' }, 'subject'],
      [{ from: `Acme\r\nBcc: victim@evil.example <a@${domain}>` }, 'from'],
      [{ to: 'Friend\r\n <ok@example.com>' }, 'to'],
      [{ headers: { 'X-Campaign': 'a\r\nBcc: victim@evil.example' } }, 'headers.X-Campaign'],
      [{ headers: { 'X-Campaign': 'a\u2028b' } }, 'headers.X-Campaign'],
      [{ attachments: [{ ...attachment, filename: 'a.txt\r\nX-Injected: 1' }] }, 'attachments.0.filename'],
      [
        { attachments: [{ ...attachment, content_type: 'text/plain\r\nBcc: victim@evil.example' }] },
        'attachments.0.content_type',
      ],
      [{ attachments: [{ ...attachment, content_type: 'text/plain; name="a\u0000"' }] }, 'attachments.0.content_type'],
    ];
    for (const [change, path] of cases) {
      const res = await api.post('/emails', { ...base, ...change });
      expect([JSON.stringify(change), res.status]).toEqual([JSON.stringify(change), 422]);
      expect(res.body.errors.map((e: { path: string }) => e.path).some((p: string) => p.startsWith(path))).toBe(true);
    }
    const batch = await api.post('/emails/batch', [base, { ...base, subject: 'Hi\r\nBcc: victim@evil.example' }]);
    expect(batch.status).toBe(422);
    expect(batch.body.errors[0].path).toBe('1.subject');
  });

  it("refuses custom header names that are not RFC 5322 field names within SES's limits, and the headers the service sets", async () => {
    const base = { from: `a@${domain}`, to: 'ok@example.com', subject: 'Hello', text: 't' };
    for (const name of [
      'Bcc',
      'bcc',
      'From',
      'To',
      'Cc',
      'Sender',
      'Reply-To',
      'Subject',
      'Message-ID',
      'Return-Path',
      'Date',
      'DKIM-Signature',
      'Content-Type',
      'Content-Transfer-Encoding',
      'MIME-Version',
      'X-SES-CONFIGURATION-SET',
      'X Space',
      'X:Colon',
      'X-\u00e9',
      'X'.repeat(127),
    ]) {
      const res = await api.post('/emails', { ...base, headers: { [name]: 'v' } });
      expect([name, res.status]).toEqual([name, 422]);
    }
    expect((await api.post('/emails', { ...base, headers: { 'X-Value': 'v'.repeat(871) } })).status).toBe(422);
    expect(
      (
        await api.post('/emails', {
          ...base,
          headers: { 'X-Entity-Ref-ID': 'v'.repeat(870), 'In-Reply-To': '<a@b.example>' },
        })
      ).status,
    ).toBe(200);
  });

  it('refuses template variables that DynamoDB cannot store as numbers with 422, never 500', async () => {
    for (const value of [1e300, -1e300, 1e-200, 2 ** 64]) {
      const res = await api.post('/emails', {
        to: 'ok@example.com',
        template: { id: 'any-template', variables: { N: value } },
      });
      expect([value, res.status]).toEqual([value, 422]);
      expect(res.body.errors[0].path).toBe('template.variables.N');
    }
  });

  it('renders a template variable with CRLF into the subject without starting a header of its own', async () => {
    const created = await api.post('/templates', {
      name: 'Injection',
      from: `Shop <shop@${domain}>`,
      subject: 'Order {{ITEM}}',
      html: '<p>{{ITEM}}</p>',
      variables: [{ key: 'ITEM', type: 'string' }],
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/templates/${created.body.id}/publish`)).status).toBe(200);
    const res = await api.post('/emails', {
      to: 'success@simulator.amazonses.com',
      template: { id: created.body.id, variables: { ITEM: `tea ${tag()}\r\nBcc: victim@evil.example\u2028X: 1` } },
    });
    expect(res.status).toBe(200);
    const email = await settled(res.body.id);
    expect(email.subject).toMatch(/^Order tea \w+ Bcc: victim@evil\.example X: 1$/);
    expect(email.bcc).toEqual([]);
    expect(email.html).toContain('\r\n'); // the body keeps the value as it is
  });
});
