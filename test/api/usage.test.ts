/**
 * GET /usage through the official SDK (`usage.get`): a project of its own with a quota, contacts,
 * segments, a broadcast, a domain, sent and received mail answers each count against its limit in
 * Resend's shape; contacts are counted as they are created and deleted, and `npm run project --
 * recount` puts right counters that lost count (contacts made before they existed).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { Resend } from 'resend';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { verifiedDomain } from '../support/domains';
import { api, baseUrl } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

const runtime = useRuntimeTable();

it("answers the project's usage against its limits, counts contacts as they come and go, and recounts them", async () => {
  const project = await createOtherProject();
  const { key } = project;
  const { changeProjectSettings } = await import('../../shared/project/settings-change');
  await changeProjectSettings(project.projectId, { daily_quota: 100 });
  const sdk = new Resend(key, { baseUrl: baseUrl() });
  const domain = await verifiedDomain(key, 'usage', { capabilities: { receiving: 'enabled' } });
  const segment = (await api.post('/segments', { name: 'all' }, { key })).body.id;
  await api.post('/segments', { name: 'some' }, { key });
  const contacts = [];
  for (const name of ['ada', 'bea', 'cy'])
    contacts.push(
      (await api.post('/contacts', { email: `${name}@example.com`, segments: [segment] }, { key })).body.id,
    );
  expect(
    (
      await api.post(
        '/broadcasts',
        { segment_id: segment, from: `n@${domain}`, subject: 's', html: '<p>x</p>' },
        { key },
      )
    ).status,
  ).toBe(201);
  for (const to of ['a@example.com', 'b@example.com'])
    expect((await api.post('/emails', { from: `n@${domain}`, to, subject: 's', text: 'x' }, { key })).status).toBe(200);
  await deliverMail('someone@outside.example', [`inbox@${domain}`], ['Subject: hi', '', 'hello']);
  await waitFor(
    () => api.get('/emails/receiving', { key }).then((r) => r.body.data.length),
    (n) => n === 1,
    30_000,
  );

  const { data, error } = await sdk.usage.get();
  expect(error).toBeNull();
  const tomorrow = new Date(
    Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() + 1),
  ).toISOString();
  expect(data).toMatchObject({
    object: 'usage',
    emails: {
      daily: { used: 2, limit: 100, sent: 2, received: 1, resets_at: tomorrow },
      monthly: { used: 2, limit: null, sent: 2, received: 1 },
    },
    contacts: { used: 3, limit: 1_000_000 }, // the default contact limit (CONTACT_LIMIT_PER_PROJECT unset)
    segments: { used: 2, limit: null },
    broadcasts: { used: 1, limit: null },
    domains: { used: 1, limit: 50 },
    rate_limit: { limit: 100000, duration: '1s' },
  });

  expect((await api.delete(`/contacts/${contacts[0]}`, { key })).status).toBe(200);
  expect((await api.get('/usage', { key })).body.contacts.used).toBe(2);

  // counters that lost count (as a table from before them would have none): the operator recounts
  for (let shard = 0; shard < 8; shard++)
    await documentClient.send(
      new DeleteCommand({ TableName: runtime.tableName, Key: keys.contactCount(project.projectId, shard) }),
    );
  expect((await api.get('/usage', { key })).body.contacts.used).toBe(0);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join(__dirname, '..', '..', 'bin', 'project.ts'), 'recount', '--project', project.projectId],
    {
      env: { ...process.env, DATA_DIR: process.env.TEST_DATA_DIR, TABLE_NAME: '' },
    },
  );
  expect(stdout).toMatch(/contacts 2 \(counted\)/);
  expect((await api.get('/usage', { key })).body.contacts.used).toBe(2);
}, 90_000);
