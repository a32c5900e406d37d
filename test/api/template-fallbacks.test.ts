/**
 * Resend's fallback syntax end to end (issue 33): a broadcast and a template written as Resend
 * documents them, `Hi {{{FIRST_NAME|there}}}`, reach the local SES as "Hi Ann" for a contact named
 * Ann and "Hi there" for one without a first name, in subject and body; content whose placeholders
 * cannot render is refused at create and update (422 naming the field); and the broadcast
 * recipients list takes `type=all`.
 */
import { api } from '../support/http';
import { verifiedDomain } from '../support/domains';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

const runtime = useRuntimeTable();

interface StoredEmail {
  subject: string;
  destination: { to: string[] };
  body: { html?: string; text?: string };
}
const mailViewer = () =>
  fetch(`${runtime.mailViewerUrl}/store`)
    .then((r) => r.json() as Promise<{ emails: StoredEmail[] }>)
    .then((s) => s.emails);

/** The mail the local SES got for each address, once every one has some. */
async function mailTo(addresses: string[]): Promise<Record<string, StoredEmail>> {
  const emails = await waitFor(
    mailViewer,
    (all) => addresses.every((a) => all.some((e) => e.destination.to[0] === a)),
    60_000,
  );
  return Object.fromEntries(addresses.map((a) => [a, emails.find((e) => e.destination.to[0] === a)!]));
}

let domain: string;
let segmentId: string;

beforeAll(async () => {
  domain = await verifiedDomain(undefined, 'fallbacks');
  segmentId = (await api.post('/segments', { name: unique('fallbacks') })).body.id;
});

const HI = 'Hi {{{FIRST_NAME|there}}}';

describe('{{{FIRST_NAME|there}}} at the local SES', () => {
  let broadcastId: string;

  it('a broadcast says "Hi Ann" to Ann and "Hi there" to a contact without a first name, in subject, html and text', async () => {
    const tag = unique('b');
    const ann = `ann-${tag}@${domain}`;
    const nameless = `nameless-${tag}@${domain}`;
    expect((await api.post('/contacts', { email: ann, first_name: 'Ann', segments: [segmentId] })).status).toBe(201);
    expect((await api.post('/contacts', { email: nameless, segments: [segmentId] })).status).toBe(201);
    const created = await api.post('/broadcasts', {
      segment_id: segmentId,
      from: `News <news@${domain}>`,
      subject: `${HI} (${tag})`,
      html: `<p>${HI}</p><p>{{contact.first_name|<dear> friend}}</p>`,
      text: 'Hi {{{contact.first_name|there}}}',
      send: true,
    });
    expect(created.status).toBe(201);
    broadcastId = created.body.id;
    await waitFor(
      () => api.get(`/broadcasts/${broadcastId}`),
      (r) => r.body.status === 'sent',
      60_000,
    );
    const mail = await mailTo([ann, nameless]);
    expect(mail[ann]).toMatchObject({ subject: `Hi Ann (${tag})`, body: { text: 'Hi Ann' } });
    expect(mail[ann].body.html).toContain('<p>Hi Ann</p><p>Ann</p>');
    expect(mail[nameless]).toMatchObject({ subject: `Hi there (${tag})`, body: { text: 'Hi there' } });
    expect(mail[nameless].body.html).toContain('<p>Hi there</p><p>&lt;dear&gt; friend</p>');
  }, 120_000);

  it('its recipients list takes the type values of the SDK and `all`', async () => {
    for (const type of ['all', 'sent', 'bounced']) {
      const res = await api.get(`/broadcasts/${broadcastId}/recipients?type=${type}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(2);
    }
    expect((await api.get(`/broadcasts/${broadcastId}/recipients?type=everyone`)).status).toBe(422);
  });

  it('a template sent with POST /emails says "Hi Ann" with the first name given and "Hi there" without', async () => {
    const created = await api.post('/templates', {
      name: unique('hi'),
      from: `Shop <shop@${domain}>`,
      subject: HI,
      html: `<p>${HI}</p>`,
      text: HI,
    });
    expect(created.status).toBe(201);
    expect((await api.post(`/templates/${created.body.id}/publish`)).status).toBe(200);
    const tag = unique('t');
    const ann = `ann-${tag}@${domain}`;
    const nameless = `nameless-${tag}@${domain}`;
    expect(
      (await api.post('/emails', { to: ann, template: { id: created.body.id, variables: { FIRST_NAME: 'Ann' } } }))
        .status,
    ).toBe(200);
    expect((await api.post('/emails', { to: nameless, template: { id: created.body.id } })).status).toBe(200);
    const mail = await mailTo([ann, nameless]);
    expect(mail[ann]).toMatchObject({ subject: 'Hi Ann', body: { html: '<p>Hi Ann</p>', text: 'Hi Ann' } });
    expect(mail[nameless]).toMatchObject({ subject: 'Hi there', body: { html: '<p>Hi there</p>', text: 'Hi there' } });
  }, 120_000);
});

describe('placeholders that cannot render are refused', () => {
  const broadcast = (overrides: Record<string, unknown>, key?: string) =>
    api.post(
      '/broadcasts',
      { segment_id: segmentId, from: `News <news@${domain}>`, subject: 'News', html: '<p>News</p>', ...overrides },
      { key },
    );

  it('a broadcast or template with unpaired braces is 422 malformed_placeholder naming the field, at create and at update', async () => {
    const refused = await broadcast({ subject: 'Hi {{{FIRST_NAME|there}}', text: 'Hi {{FIRST_NAME}}}' });
    expect(refused).toMatchObject({ status: 422, body: { name: 'validation_error' } });
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        code: 'malformed_placeholder',
        path: 'subject',
        message: expect.stringContaining('{{{FIRST_NAME|there}}'),
      }),
      expect.objectContaining({
        code: 'malformed_placeholder',
        path: 'text',
        message: expect.stringContaining('{{FIRST_NAME}}}'),
      }),
    ]);
    const draft = await broadcast({});
    expect(draft.status).toBe(201);
    const patched = await api.patch(`/broadcasts/${draft.body.id}`, { html: '<p>{{{FIRST_NAME}}</p>' });
    expect(patched.status).toBe(422);
    expect(patched.body.errors).toEqual([expect.objectContaining({ code: 'malformed_placeholder', path: 'html' })]);
    expect((await api.get(`/broadcasts/${draft.body.id}`)).body.html).toBe('<p>News</p>');

    const template = await api.post('/templates', { name: unique('bad'), html: '<p>{{{PRODUCT}}</p>' });
    expect(template.status).toBe(422);
    expect(template.body.errors).toEqual([expect.objectContaining({ code: 'malformed_placeholder', path: 'html' })]);
    const fine = await api.post('/templates', { name: unique('fine'), html: '<p>{{{PRODUCT|item}}}</p>' });
    expect(fine.status).toBe(201);
    const patchedTemplate = await api.patch(`/templates/${fine.body.id}`, { subject: 'About {{PRODUCT}}}' });
    expect(patchedTemplate.status).toBe(422);
    expect(patchedTemplate.body.errors).toEqual([
      expect.objectContaining({ code: 'malformed_placeholder', path: 'subject' }),
    ]);
  });

  it("a broadcast naming a key that is no contact field or property of the project's schema, without a fallback, is 422 unresolvable_placeholder", async () => {
    const { key } = await createOtherProject();
    const otherDomain = await verifiedDomain(key, 'schema');
    const otherSegment = (await api.post('/segments', { name: unique('schema') }, { key })).body.id;
    expect((await api.post('/contact-properties', { key: 'plan', type: 'string' }, { key })).status).toBe(201);
    const post = (overrides: Record<string, unknown>) =>
      broadcast({ segment_id: otherSegment, from: `News <news@${otherDomain}>`, ...overrides }, key);

    const refused = await post({ html: '<p>{{{NICK}}} on {{{plan}}}</p>', text: '{{contact.nick}} {{contact.plan}}' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        code: 'unresolvable_placeholder',
        path: 'html',
        message: expect.stringContaining('{{{NICK}}}'),
      }),
      expect.objectContaining({
        code: 'unresolvable_placeholder',
        path: 'text',
        message: expect.stringContaining('{{contact.nick}}'),
      }),
    ]);
    const taken = await post({
      subject: '{{{FIRST_NAME}}} {{{contact.last_name}}} {{EMAIL}}',
      html: '<p>{{{NICK|pal}}} on {{{contact.plan}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
    });
    expect(taken.status).toBe(201);
    expect(
      (await api.patch(`/broadcasts/${taken.body.id}`, { preview_text: 'For {{{NICK}}}' }, { key })).body.errors,
    ).toEqual([expect.objectContaining({ code: 'unresolvable_placeholder', path: 'preview_text' })]);
  });

  it('takes any key in a project without contact properties, where contacts have free-form ones', async () => {
    expect((await broadcast({ html: '<p>{{{nickname}}} {{{contact.team}}}</p>' })).status).toBe(201);
  });
});
