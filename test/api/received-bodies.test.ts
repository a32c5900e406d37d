/**
 * Received bodies at the edges of what a route can answer, over real SMTP and HTTP against the
 * shared runtime:
 * - a body too large for Lambda's 6 MB response (a 7 MB text part) comes back cut, with
 *   `truncated: true`, and whole in the raw message's download URL, never a 500;
 * - a body the bucket's lifecycle already removed (the item outlives it by up to a day) reads as
 *   no body, not a 500: on AWS S3 answers 403 for a missing key to a function that may not list
 *   the bucket, and the local grants check answers the same (local/lambda/needs.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bodyKey } from '../../shared/receiving/received-emails';
import { api } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();
const dataDir = process.env.TEST_DATA_DIR!;
const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { inboundBucket: string };

let key: string;
let projectId: string;
let domain: string;
const as = () => ({ key });

beforeAll(async () => {
  ({ key, projectId } = await createOtherProject());
  domain = `bodies-${Date.now().toString(36)}.example.com`;
  const created = await api.post('/domains', { name: domain, capabilities: { receiving: 'enabled' } }, as());
  expect(created.status).toBe(201);
  // mail is received only for verified domains; the local SES verifies about a second after the create
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, as()),
    (r) => r.body.status === 'verified',
    15_000,
    200,
  );
});

/** Delivers a plain-text message of `lines` body lines and waits until it is listed; its id. */
async function receive(subject: string, lines: string[]): Promise<string> {
  await deliverMail(
    'sender@outside.example',
    [`inbox@${domain}`],
    [
      'From: Sender <sender@outside.example>',
      `To: inbox@${domain}`,
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      ...lines,
    ],
  );
  const listed = await waitFor(
    () => api.get('/emails/receiving?limit=100', as()),
    (r) => r.body.data.some((e: { subject: string }) => e.subject === subject),
    60_000,
    200,
  );
  return listed.body.data.find((e: { subject: string }) => e.subject === subject).id;
}

it('answers a 7 MB body cut to fit the response, flagged, and whole in the raw download', async () => {
  const line = 'x'.repeat(75);
  const lines = Array.from(
    { length: Math.ceil((7 * 1024 * 1024) / 77) },
    (_, i) => `${String(i).padStart(8, '0')}${line}`,
  );
  const id = await receive(`Large ${Date.now()}`, lines);

  const got = await api.get(`/emails/receiving/${id}`, as());
  expect(got.status).toBe(200);
  expect(got.body.truncated).toBe(true);
  expect(got.body.text.length).toBeGreaterThan(1024 * 1024);
  expect(got.body.text.length).toBeLessThan(lines.join('\n').length);
  expect(got.body.text.startsWith(lines.slice(0, 100).join('\n'))).toBe(true);

  const raw = await fetch(got.body.raw.download_url);
  expect(raw.status).toBe(200);
  const message = await raw.text();
  expect(message).toContain(lines[lines.length - 1]);
}, 120_000);

it('answers a small body whole and not truncated', async () => {
  const id = await receive(`Small ${Date.now()}`, ['Hello there.']);
  const got = await api.get(`/emails/receiving/${id}`, as());
  expect(got).toMatchObject({ status: 200, body: { truncated: false, text: expect.stringContaining('Hello there.') } });
});

it('answers a body the lifecycle already removed as no body, not a 500', async () => {
  // over the item's inline bound (256 KB), so the body is an object of its own in the bucket
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'y'.repeat(70)}`);
  const id = await receive(`Expired ${Date.now()}`, lines);
  expect((await api.get(`/emails/receiving/${id}`, as())).body.text).toContain('line 4999');

  rmSync(join(dataDir, 's3', runtime.inboundBucket, bodyKey(projectId, id)));
  const got = await api.get(`/emails/receiving/${id}`, as());
  expect(got).toMatchObject({ status: 200, body: { id, text: null, html: null } });
});
