/**
 * Imports are fair between projects (issue 32, 12): a project runs one import at a time (a second
 * POST /contacts/imports while one is queued or in progress is 409 `import_in_progress` naming it),
 * race-free (two at once: one 201, one 409); the import's end, completed or failed, lets the next one
 * in; and an import whose worker stopped for good (its message in the DLQ) does not hold the project
 * forever. A project's contacts are bounded too (`contact_limit`): a create, or an import's row,
 * past it is refused. Each test works in a project of its own.
 */
import { defaultContactLimit } from '../../shared/project/settings';
import { changeProjectSettings } from '../../shared/project/settings-change';
import { runImport } from '../../shared/audience/imports';
import * as keys from '../../shared/platform/db/keys';
import * as table from '../../shared/platform/db/table';
import { request } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

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
const postImport = async (key: string, csv: string) =>
  request('POST', '/contacts/imports', undefined, {
    key,
    ...(await multipart({ file: new Blob([csv], { type: 'text/csv' }) })),
  });
const rows = (n: number, tag: string) =>
  ['email', ...Array.from({ length: n }, (_, i) => `${tag}${i}@example.com`)].join('\n');
const finished = (key: string, id: string) =>
  waitFor(
    () => request('GET', `/contacts/imports/${id}`, undefined, { key }),
    (r) => r.body?.status === 'completed' || r.body?.status === 'failed',
    120_000,
    200,
  ).then((r) => r.body);

it('runs one import per project: a second is 409 naming the running one, and is taken once it ends', async () => {
  const { key } = await createOtherProject();
  const other = await createOtherProject();
  const first = await postImport(key, rows(3000, 'first'));
  expect(first.status).toBe(201);
  const second = await postImport(key, rows(5, 'second'));
  expect(second).toMatchObject({
    status: 409,
    body: { name: 'application_error', errors: [{ code: 'import_in_progress' }] },
  });
  expect(second.body.message).toContain(first.body.id);
  // another project is not held by it
  expect((await postImport(other.key, rows(5, 'other'))).status).toBe(201);
  expect(await finished(key, first.body.id)).toMatchObject({ status: 'completed', counts: { created: 3000 } });
  const third = await postImport(key, rows(5, 'third'));
  expect(third.status).toBe(201);
  expect(await finished(key, third.body.id)).toMatchObject({ status: 'completed', counts: { created: 5 } });
}, 180_000);

it('lets exactly one of two imports posted at the same moment in', async () => {
  const { key } = await createOtherProject();
  const both = await Promise.all([postImport(key, rows(500, 'a')), postImport(key, rows(500, 'b'))]);
  expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
  const winner = both.find((r) => r.status === 201)!;
  expect(both.find((r) => r.status === 409)!.body.errors[0]).toMatchObject({ code: 'import_in_progress' });
  await finished(key, winner.body.id);
}, 180_000);

it('lets the next import in after one failed', async () => {
  const { key } = await createOtherProject();
  const broken = await postImport(key, 'email,first_name\na@example.com,"open\n');
  expect(broken.status).toBe(201);
  expect(await finished(key, broken.body.id)).toMatchObject({ status: 'failed' });
  expect((await postImport(key, rows(3, 'after'))).status).toBe(201);
}, 120_000);

it('does not let an import whose worker stopped for good hold the project: a new one fails it and takes its place', async () => {
  const { projectId, key } = await createOtherProject();
  const stuck = await postImport(key, rows(50, 'stuck'));
  expect(stuck.status).toBe(201);
  await finished(key, stuck.body.id);
  // as if its worker had died for good an hour ago (its message in the DLQ): in progress, nothing moved since
  const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
  await table.updateItem(
    table.update(keys.contactImport(projectId, stuck.body.id), {
      set: { status: 'in_progress', completed_at: null, moved_at: hourAgo, created_at: hourAgo },
    }),
  );
  await table.transact([
    table.put({ ...keys.contactImportRunning(projectId), import_id: stuck.body.id, taken_at: hourAgo }),
  ]);
  const next = await postImport(key, rows(3, 'next'));
  expect(next.status).toBe(201);
  expect((await request('GET', `/contacts/imports/${stuck.body.id}`, undefined, { key })).body).toMatchObject({
    status: 'failed',
    failure_reason: expect.stringMatching(/stopped/),
  });
  expect(await finished(key, next.body.id)).toMatchObject({ status: 'completed' });
  // and the stale import's message, were it delivered late, changes nothing
  expect(await runImport({ project_id: projectId, import_id: stuck.body.id }, Date.now() + 60_000)).toBe('done');
}, 120_000);

describe("a project's contact limit", () => {
  it('refuses a create past it (409 contact_limit_reached), imports only up to it, and refuses an import at it', async () => {
    const { projectId, key } = await createOtherProject();
    await changeProjectSettings(projectId, { contact_limit: 5 });
    for (const n of [1, 2, 3])
      expect((await request('POST', '/contacts', { email: `c${n}@example.com` }, { key })).status).toBe(201);
    const imported = await postImport(
      key,
      ['email', 'c1@example.com', 'i1@example.com', 'i2@example.com', 'i3@example.com', 'i4@example.com'].join('\n'),
    );
    expect(imported.status).toBe(201);
    const done = await finished(key, imported.body.id);
    expect(done).toMatchObject({ status: 'completed', counts: { total: 5, created: 2, updated: 1, failed: 2 } });
    expect(done.failures[0]).toMatchObject({
      email: 'i3@example.com',
      reason: expect.stringMatching(/contact limit of 5/),
    });
    const refused = await request('POST', '/contacts', { email: 'one-more@example.com' }, { key });
    expect(refused).toMatchObject({
      status: 409,
      body: { name: 'application_error', errors: [{ code: 'contact_limit_reached' }] },
    });
    expect(await postImport(key, rows(1, 'more'))).toMatchObject({
      status: 409,
      body: { errors: [{ code: 'contact_limit_reached' }] },
    });
    // an update is no new contact
    expect(
      (await request('PATCH', '/contacts/c1@example.com', { email: 'c1@example.com', first_name: 'Still' }, { key }))
        .status,
    ).toBe(200);
    expect((await request('DELETE', '/contacts/c2@example.com', undefined, { key })).status).toBe(200);
    expect((await request('POST', '/contacts', { email: 'one-more@example.com' }, { key })).status).toBe(201);
  }, 120_000);

  it('defaults to CONTACT_LIMIT_PER_PROJECT, else 1,000,000', () => {
    expect(defaultContactLimit({})).toBe(1_000_000);
    expect(defaultContactLimit({ CONTACT_LIMIT_PER_PROJECT: '5000' })).toBe(5000);
    expect(defaultContactLimit({ CONTACT_LIMIT_PER_PROJECT: 'many' })).toBe(1_000_000);
  });
});
