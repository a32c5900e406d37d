/**
 * Domains of test keys (issue 22) over real HTTP against the local runtime: they never reach SES
 * (no identity, configuration set or tenant appears in the local SES), they claim their names only
 * within the project's test twin, and they verify by themselves TEST_DOMAIN_VERIFY_SECONDS (5 s, the
 * runtime's default) after creation, or fail under `.invalid`. The runtime runs the scheduled domain
 * check every second (LOCAL_SCHEDULE_INTERVAL_SECONDS), so a domain past its moment may be settled
 * by it rather than by POST /verify: the events are the same.
 */
import {
  GetConfigurationSetCommand,
  GetEmailIdentityCommand,
  GetTenantCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../shared/platform/db/client';
import { testProjectId } from '../../shared/project/test-mode';
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

const VERIFY_MS = 5_000; // TEST_DOMAIN_VERIFY_SECONDS' default
const unique = (label: string, tld = 'example.com') => `${uniqueName(label)}.${tld}`;

/** A test key of `projectId` (its caller works in the project's test twin). */
async function testKey(projectId: string): Promise<string> {
  const { createApiKey } = await import('../../shared/access/api-keys');
  return (
    await createApiKey(
      { projectId, livemode: false, permission: 'full_access' },
      { name: 'test-mode domains', mode: 'test' },
    )
  ).token;
}

/**
 * A project of this suite's own, its live key (`asLive`) and a test key (`key`): the default project's
 * test twin is left to the isolation suite between modes (test/api/isolation-test-mode.test.ts), whose
 * test key must see only its own events.
 */
let project: { projectId: string; key: string };
let key: string;
let twin: string;
const asLive = () => ({ key: project.key });
beforeAll(async () => {
  project = await createOtherProject();
  key = await testKey(project.projectId);
  twin = testProjectId(project.projectId);
});

async function eventsOf(
  projectId: string,
  domainId: string,
): Promise<{ type: string; livemode: boolean; data: { object: Record<string, any> } }[]> {
  return (await projectEvents(projectId)).map((item) => item.event).filter((e) => e.data.object.id === domainId);
}

/** Nothing of the domain is in SES: no identity of its name, no configuration set of its id. */
async function expectNotInSes(name: string, domainId: string): Promise<void> {
  await expect(ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).rejects.toMatchObject({
    name: 'NotFoundException',
  });
  await expect(
    ses.send(new GetConfigurationSetCommand({ ConfigurationSetName: `es-${domainId}` })),
  ).rejects.toMatchObject({ name: 'NotFoundException' });
}

const domainCount = async (projectId: string) =>
  (
    await documentClient.send(
      new GetCommand({ TableName: runtime.tableName, Key: { PK: `PROJECT#${projectId}`, SK: 'DOMAIN_COUNT' } }),
    )
  ).Item?.domain_count;

describe('domains of a test key', () => {
  it('are created without SES: pending, with records shaped as a live domain shows them, the same on every read', async () => {
    const name = unique('test-create');
    const res = await api.post('/domains', { name, capabilities: { receiving: 'enabled' } }, { key });
    expect(res.status).toBe(201);
    const { id } = res.body;
    expect(res.body).toMatchObject({
      object: 'domain',
      name,
      status: 'pending',
      region: 'ap-southeast-2',
      custom_return_path: 'send',
    });
    const dkim = res.body.records.filter((r: { record: string }) => r.record === 'DKIM');
    expect(dkim).toHaveLength(3);
    for (const record of dkim) {
      const token = record.name.slice(0, record.name.indexOf('._domainkey.'));
      expect(token).toMatch(/^[0-9a-f]{32}$/);
      expect(record).toEqual({
        record: 'DKIM',
        name: `${token}._domainkey.${name}`,
        type: 'CNAME',
        ttl: 'Auto',
        status: 'pending',
        value: `${token}.dkim.amazonses.com`,
      });
    }
    expect(res.body.records.slice(3)).toEqual([
      {
        record: 'MX',
        name: `send.${name}`,
        type: 'MX',
        ttl: 'Auto',
        status: 'pending',
        value: 'feedback-smtp.ap-southeast-2.amazonses.com',
        priority: 10,
      },
      {
        record: 'SPF',
        name: `send.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'pending',
        value: '"v=spf1 include:amazonses.com ~all"',
      },
      {
        record: 'DMARC',
        name: `_dmarc.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: `"v=DMARC1; p=none; rua=mailto:dmarc+${id}@reports.localhost;"`,
        optional: true,
      },
      {
        record: 'TLS-RPT',
        name: `_smtp._tls.${name}`,
        type: 'TXT',
        ttl: 'Auto',
        status: 'not_started',
        value: `"v=TLSRPTv1; rua=mailto:tls+${id}@reports.localhost"`,
        optional: true,
      },
      {
        record: 'Receiving',
        name,
        type: 'MX',
        ttl: 'Auto',
        status: 'not_started',
        value: 'inbound-smtp.ap-southeast-2.amazonaws.com',
        priority: 10,
      },
    ]);
    expect(await api.get(`/domains/${id}`, { key })).toMatchObject({ status: 200, body: res.body });

    await expectNotInSes(name, id);
    // no SES tenant for the twin (test mode is exempt from tenants)
    await expect(ses.send(new GetTenantCommand({ TenantName: `es-${twin}` }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    expect(await eventsOf(twin, id)).toEqual([expect.objectContaining({ type: 'domain.created', livemode: false })]);
    // test data: the live key does not see it, and the project's live count is not the twin's
    expect((await api.get(`/domains/${id}`, asLive())).status).toBe(404);
    expect(await domainCount(twin)).toBeGreaterThanOrEqual(1);
  });

  it('verify by themselves after TEST_DOMAIN_VERIFY_SECONDS (POST /verify), and fail under .invalid, with the events (livemode false)', async () => {
    const [good, bad] = await Promise.all([
      api.post('/domains', { name: unique('test-verify') }, { key }),
      api.post('/domains', { name: unique('test-fail', 'example.invalid') }, { key }),
    ]);
    expect([good.status, bad.status]).toEqual([201, 201]);
    const created = Date.parse(good.body.created_at);
    const early = await api.post(`/domains/${good.body.id}/verify`, undefined, { key });
    if (Date.now() < created + VERIFY_MS - 500) expect(early.body.status).toBe('pending'); // before the moment (unless the machine is very slow)

    const verified = await waitFor(
      () => api.post(`/domains/${good.body.id}/verify`, undefined, { key }),
      (r) => r.body.status === 'verified',
      VERIFY_MS + 5_000,
      250,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(created + VERIFY_MS);
    expect(
      verified.body.records
        .filter((r: { record: string }) => !['Receiving', 'DMARC', 'TLS-RPT'].includes(r.record))
        .map((r: { status: string }) => r.status),
    ).toEqual(Array(5).fill('verified'));
    expect(verified.body.records.map((r: { name: string }) => r.name)).toEqual(
      good.body.records.map((r: { name: string }) => r.name),
    ); // the same tokens
    const failed = await waitFor(
      () => api.post(`/domains/${bad.body.id}/verify`, undefined, { key }),
      (r) => r.body.status === 'failed',
      5_000,
      250,
    );
    expect(failed.status).toBe(200);

    expect((await eventsOf(twin, good.body.id)).map((e) => [e.type, e.livemode])).toEqual([
      ['domain.created', false],
      ['domain.verified', false],
    ]);
    expect((await eventsOf(twin, bad.body.id)).map((e) => [e.type, e.livemode])).toEqual([
      ['domain.created', false],
      ['domain.verification_failed', false],
    ]);
    await expectNotInSes(good.body.name, good.body.id);
    // the sender's lookup finds it in the twin only
    const { findSendingDomain } = await import('../../shared/domains/domains');
    expect(await findSendingDomain(twin, good.body.name)).toMatchObject({
      id: good.body.id,
      status: 'verified',
      sending: 'enabled',
      ses_tenant: null,
    });
    expect(await findSendingDomain(project.projectId, good.body.name)).toBeUndefined();
  });

  it('are verified by the scheduled check too, without POST /verify', async () => {
    const { body: domain } = await api.post('/domains', { name: unique('test-scheduled') }, { key });
    const seen = await waitFor(
      () => api.get(`/domains/${domain.id}`, { key }),
      (r) => r.body.status === 'verified',
      VERIFY_MS + 10_000,
      250,
    );
    expect(seen.status).toBe(200);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(domain.created_at) + VERIFY_MS); // not before its moment
    expect((await eventsOf(twin, domain.id)).map((e) => e.type)).toEqual(['domain.created', 'domain.verified']);
  });

  it('never block, nor are blocked by, a live domain of the same name in any project', async () => {
    const other = await createOtherProject();
    // test first: the live owners of the name are unaffected
    const first = unique('test-shared');
    expect((await api.post('/domains', { name: first }, { key })).status).toBe(201);
    expect((await api.post('/domains', { name: first }, { key: other.key })).status).toBe(201);
    expect((await api.post('/domains', { name: first }, asLive())).status).toBe(409); // the live name is the other project's now
    // live first: the test domain of the same name is made all the same
    const second = unique('live-shared');
    const live = await api.post('/domains', { name: second }, asLive());
    expect(live.status).toBe(201);
    const test = await api.post('/domains', { name: second }, { key });
    expect(test.status).toBe(201);
    // and another project's twin may have it too; in one twin the name is still unique
    expect((await api.post('/domains', { name: second }, { key: await testKey(other.projectId) })).status).toBe(201);
    const again = await api.post('/domains', { name: second }, { key });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('domain_exists');
    // the live domain is still SES's, untouched by the test one
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: second }))).ConfigurationSetName).toBe(
      `es-${live.body.id}`,
    );
    await expect(
      ses.send(new GetConfigurationSetCommand({ ConfigurationSetName: `es-${test.body.id}` })),
    ).rejects.toMatchObject({ name: 'NotFoundException' });

    // the parent-domain rule is live-only: a subdomain of another project's verified domain is fine in test mode
    const apex = unique('test-apex');
    const { body: owned } = await api.post('/domains', { name: apex }, { key: other.key });
    await waitFor(
      () => api.post(`/domains/${owned.id}/verify`, undefined, { key: other.key }),
      (r) => r.body.status === 'verified',
    );
    expect((await api.post('/domains', { name: `mail.${apex}` }, asLive())).body.errors?.[0]?.code).toBe(
      'parent_domain_verified',
    );
    expect((await api.post('/domains', { name: `mail.${apex}` }, { key })).status).toBe(201);
  });

  it('count against MAX_DOMAINS_PER_PROJECT per twin, apart from the live domains', async () => {
    const other = await createOtherProject();
    const otherKey = await testKey(other.projectId);
    // as if the twin had 50 domains already
    await documentClient.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: { PK: `PROJECT#${testProjectId(other.projectId)}`, SK: 'DOMAIN_COUNT' },
        UpdateExpression: 'SET domain_count = :n',
        ExpressionAttributeValues: { ':n': 50 },
      }),
    );
    const refused = await api.post('/domains', { name: unique('test-limit') }, { key: otherKey });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].code).toBe('domain_limit_reached');
    expect((await api.post('/domains', { name: unique('test-limit') }, { key: other.key })).status).toBe(201);
    expect(await domainCount(other.projectId)).toBe(1);
  });

  it('accept emails from their test domain only for test keys', async () => {
    const name = unique('test-from');
    expect((await api.post('/domains', { name }, { key })).status).toBe(201);
    const message = { from: `a@${name}`, to: 'delivered@resend.dev', subject: 's', text: 't' };
    expect((await api.post('/emails', message, { key })).status).toBe(200);
    const live = await api.post('/emails', message, asLive());
    expect(live.status).toBe(422);
    expect(live.body.errors[0]).toMatchObject({ code: 'domain_not_found', path: 'from' });
  });

  it('take PATCH (tracking, tls, sending) without SES, and DELETE frees the name in the twin only', async () => {
    const name = unique('test-patch');
    const live = await api.post('/domains', { name }, asLive());
    const { body: domain } = await api.post('/domains', { name }, { key });
    const patched = await api.patch(
      `/domains/${domain.id}`,
      {
        open_tracking: true,
        click_tracking: true,
        tracking_subdomain: 'links',
        tls: 'enforced',
        capabilities: { sending: 'disabled' },
      },
      { key },
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      open_tracking: true,
      click_tracking: true,
      tracking_subdomain: 'links',
      tls: 'enforced',
      capabilities: { sending: 'disabled' },
    });
    expect(patched.body.records.at(-1)).toMatchObject({ record: 'Tracking', name: `links.${name}` });
    expect((await api.get(`/domains/${domain.id}`, { key })).body).toEqual(patched.body);
    const { findSendingDomain } = await import('../../shared/domains/domains');
    expect((await findSendingDomain(twin, name))?.sending).toBe('disabled'); // the twin's claim, not the live one
    expect((await findSendingDomain(project.projectId, name))?.sending).toBe('enabled');
    expect((await api.get(`/domains/${live.body.id}`, asLive())).body).toMatchObject({
      open_tracking: false,
      tls: 'opportunistic',
    });
    await expect(
      ses.send(new GetConfigurationSetCommand({ ConfigurationSetName: `es-${domain.id}` })),
    ).rejects.toMatchObject({ name: 'NotFoundException' });

    const count = await domainCount(twin);
    expect(await api.delete(`/domains/${domain.id}`, { key })).toMatchObject({
      status: 200,
      body: { object: 'domain', id: domain.id, deleted: true },
    });
    expect((await api.get(`/domains/${domain.id}`, { key })).status).toBe(404);
    expect(await domainCount(twin)).toBe(count - 1);
    expect((await eventsOf(twin, domain.id)).map((e) => [e.type, e.livemode])).toEqual([
      ['domain.created', false],
      ['domain.updated', false],
      ['domain.deleted', false],
    ]);
    expect(await findSendingDomain(twin, name)).toBeUndefined();
    // the live domain and its SES identity are still there; the name is free again in the twin
    expect((await api.get(`/domains/${live.body.id}`, asLive())).status).toBe(200);
    expect((await ses.send(new GetEmailIdentityCommand({ EmailIdentity: name }))).ConfigurationSetName).toBe(
      `es-${live.body.id}`,
    );
    expect((await api.post('/domains', { name }, { key })).status).toBe(201);
  });
});
