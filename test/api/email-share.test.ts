/**
 * Share links of emails (issue 38; shared/emails/share.ts) through the official SDK's `emails.share`,
 * on a runtime of the file's own whose clock stands still until a test moves it (LOCAL_CLOCK=manual),
 * so a link's expiry is reached by moving the clock, never by waiting. Its emails are kept 10 days
 * (EMAIL_RETENTION_DAYS), so the default link (7 days) fits in the retention and a longer one is cut
 * to it.
 * - The link opens without a key and shows that one email: subject, From, date, and its html in a
 *   sandboxed `srcdoc` frame, escaped; never its recipients. With the console's CSP, never cached,
 *   not indexed, no referrer.
 * - `expires_in` in words: default 7 days, 1 minute to 30 days, else 422; never past the email's retention.
 * - An expired, tampered, revoked link, or one whose email is gone, is the same plain HTML 404.
 * - Another project can neither share nor revoke the email.
 */
import { Resend } from 'resend';
import { CONTENT_SECURITY_POLICY } from '../../functions/dashboard/serve';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { uniqueName } from '../support/unique';

const own = useOwnRuntime({ LOCAL_CLOCK: 'manual', EMAIL_RETENTION_DAYS: '10' }, { forFile: true });
const DAY_MS = 24 * 60 * 60 * 1000;

let resend: Resend;
let domain: string;
let other: { projectId: string; key: string };

beforeAll(async () => {
  useRuntimeTable(); // this file's runtime (started by the beforeAll above): createOtherProject writes to its table
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
  other = await createOtherProject();
  domain = `${uniqueName('share')}.example.com`;
  const created = await api.post('/domains', { name: domain });
  expect(created.status).toBe(201);
  await own.move({ advance_seconds: 2 }); // past the local SES's verification of the identity
  expect((await api.post(`/domains/${created.body.id}/verify`)).body.status).toBe('verified');
}, 120_000);

/** The SDK answers `{data, error}`; a test fails on any error. */
function ok<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

const HTML = '<p style="color:#123456">Hello from <b>the shared</b> email &amp; friends</p><script>alert(1)</script>';

async function sendEmail(
  subject = 'Your order <#42> & "more"',
  to = `reader-${uniqueName('to')}@example.com`,
  html = HTML,
) {
  return ok(await resend.emails.send({ from: `Shop <shop@${domain}>`, to, subject, html })).id;
}

/** The page behind a link, fetched as anyone would: no key. */
async function open(url: string) {
  const response = await fetch(url);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const unescapeHtml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const NOT_FOUND = expect.stringContaining('<h1>Not found</h1>');

describe('POST /emails/{id}/share (resend.emails.share)', () => {
  it('answers a link that shows the email without a key, in a sandboxed frame', async () => {
    const to = `reader-${uniqueName('to')}@example.com`;
    const id = await sendEmail('Your order <#42> & "more"', to);
    const now = await own.now();
    const link = ok(await resend.emails.share(id));
    expect(link).toEqual({
      object: 'email',
      id,
      url: expect.stringMatching(
        new RegExp(`^${own.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/share/[A-Za-z0-9_-]{76}$`),
      ),
      expires_at: new Date(Math.floor((now + 7 * DAY_MS) / 1000) * 1000).toISOString(), // the default: 7 days
    });

    const page = await open(link.url);
    expect(page.status).toBe(200);
    expect(Object.fromEntries(page.headers)).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'cache-control': 'private, no-store',
      'x-robots-tag': 'noindex',
      'referrer-policy': 'no-referrer',
    });
    // subject, From and date, escaped
    expect(page.text).toContain('<h1>Your order &lt;#42&gt; &amp; &quot;more&quot;</h1>');
    expect(page.text).toContain(`Shop &lt;shop@${domain}&gt;`);
    expect(page.text).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">/);
    // the html only inside the frame: sandboxed without scripts, in srcdoc, escaped there
    const frame = /<iframe ([^>]*)><\/iframe>/.exec(page.text);
    expect(frame?.[1]).toContain('sandbox=""');
    expect(unescapeHtml(/srcdoc="([^"]*)"/.exec(frame?.[1] ?? '')?.[1] ?? '')).toBe(HTML);
    expect(page.text).not.toMatch(/<script|<b>the shared/);
    // never the recipients
    expect(page.text).not.toContain(to);
  }, 60_000);

  it("blanks out this service's unsubscribe links (a broadcast recipient's own) on the page", async () => {
    const unsubscribe = `${own.url}/unsubscribe/${'x'.repeat(54)}`;
    const id = await sendEmail('Newsletter', undefined, `<p>Hi</p><a href="${unsubscribe}">Unsubscribe</a>`);
    const page = await open(ok(await resend.emails.share(id)).url);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('/unsubscribe/');
    expect(page.text).toContain(`&lt;a href=&quot;#&quot;&gt;Unsubscribe&lt;/a&gt;`);
  }, 60_000);

  it('takes expires_in in words, from 1 minute to 30 days, and refuses anything else with 422', async () => {
    const id = await sendEmail();
    const now = await own.now();
    const inTwoHours = ok(await resend.emails.share(id, { expiresIn: '2 hours' })) as unknown as { expires_at: string };
    expect(inTwoHours.expires_at).toBe(new Date(Math.floor((now + 2 * 3_600_000) / 1000) * 1000).toISOString());
    for (const expires_in of ['forever', '31 days', '30 seconds', '']) {
      const refused = await api.post(`/emails/${id}/share`, { expires_in });
      expect([expires_in, refused.status, refused.body.errors?.[0]]).toEqual([
        expires_in,
        422,
        expect.objectContaining({ code: 'invalid_expires_in', path: 'expires_in' }),
      ]);
    }
  }, 60_000);

  it('expires: the link opens until expires_at, then answers the plain 404 page', async () => {
    const id = await sendEmail();
    const link = ok(await resend.emails.share(id, { expiresIn: '1 hour' }));
    expect((await open(link.url)).status).toBe(200);
    await own.move({ advance: '59 minutes' });
    expect((await open(link.url)).status).toBe(200);
    await own.move({ advance: '1 minute' });
    const expired = await open(link.url);
    expect(expired).toMatchObject({ status: 404, text: NOT_FOUND });
    expect(Object.fromEntries(expired.headers)).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'private, no-store',
      'x-robots-tag': 'noindex',
    });
  }, 60_000);

  it('answers a tampered or made-up link with the same 404 page as an expired one', async () => {
    const id = await sendEmail();
    const link = ok(await resend.emails.share(id));
    const token = link.url.slice(link.url.lastIndexOf('/') + 1);
    const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
    const expected = (await open(`${own.url}/share/nothing-like-a-token`)).text;
    for (const forged of [flip(10), flip(30), flip(50), flip(70), token.slice(0, -1), `${token}A`, 'A'.repeat(76)]) {
      expect(await open(`${own.url}/share/${forged}`)).toMatchObject({ status: 404, text: expected });
    }
    expect(expected).toEqual(NOT_FOUND);
    expect((await open(link.url)).status).toBe(200);
  }, 60_000);

  it('DELETE /emails/{id}/share revokes every link made so far; a later one opens', async () => {
    const id = await sendEmail();
    const first = ok(await resend.emails.share(id));
    const second = ok(await resend.emails.share(id, { expiresIn: '1 day' }));
    expect(first.url).not.toBe(second.url);
    expect((await open(first.url)).status).toBe(200);
    expect(await api.delete(`/emails/${id}/share`)).toMatchObject({
      status: 200,
      body: { object: 'email', id, revoked: true },
    });
    expect(await open(first.url)).toMatchObject({ status: 404, text: NOT_FOUND });
    expect(await open(second.url)).toMatchObject({ status: 404, text: NOT_FOUND });
    const third = ok(await resend.emails.share(id));
    expect((await open(third.url)).status).toBe(200);
    expect((await api.delete(`/emails/${crypto.randomUUID()}/share`)).status).toBe(404);
  }, 60_000);

  it('lets no other project share or revoke the email', async () => {
    const id = await sendEmail();
    const link = ok(await resend.emails.share(id));
    const asOther = new Resend(other.key, { baseUrl: baseUrl() });
    const refused = await asOther.emails.share(id);
    expect(refused.data).toBeNull();
    expect(refused.error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect(await api.delete(`/emails/${id}/share`, { key: other.key })).toMatchObject({
      status: 404,
      body: { name: 'not_found' },
    });
    expect((await open(link.url)).status).toBe(200); // B's refused revoke changed nothing
  }, 60_000);

  it('shares a test-mode email too, and its page says it was never sent', async () => {
    const minted = await api.post('/api-keys', { name: 'share-test', mode: 'test' });
    expect(minted.status).toBe(201);
    const testKey = minted.body.token as string;
    const testDomain = `${uniqueName('share-test')}.example.com`;
    expect((await api.post('/domains', { name: testDomain }, { key: testKey })).status).toBe(201);
    const sandbox = new Resend(testKey, { baseUrl: baseUrl() });
    const id = ok(
      await sandbox.emails.send({
        from: `t@${testDomain}`,
        to: 'delivered@resend.dev',
        subject: 'Test share',
        html: HTML,
      }),
    ).id;
    const link = ok(await sandbox.emails.share(id));
    const page = await open(link.url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h1>Test share</h1>');
    expect(page.text).toContain('A test-mode email: it was never sent.');
    // the live project's key does not reach the test-mode email
    expect((await resend.emails.share(id)).error).toMatchObject({ statusCode: 404 });
  }, 60_000);

  it("never outlives the email: a longer link is cut to the email's retention, and 404s once it is gone", async () => {
    const id = await sendEmail();
    const email = ok(await resend.emails.get(id));
    const link = ok(await resend.emails.share(id, { expiresIn: '30 days' })) as unknown as {
      url: string;
      expires_at: string;
    };
    const retentionEnd = Math.floor((Date.parse(email.created_at) + 10 * DAY_MS) / 1000) * 1000;
    expect(link.expires_at).toBe(new Date(retentionEnd).toISOString());
    expect((await open(link.url)).status).toBe(200);
    await own.move({ set: new Date(retentionEnd).toISOString() });
    expect(await open(link.url)).toMatchObject({ status: 404, text: NOT_FOUND });
  }, 120_000);
});
