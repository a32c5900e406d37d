/**
 * One SES tenant per project (shared/domains/tenants.ts) through the API and the local SES front,
 * which keeps tenants as SES does: the project's first live domain makes `es-<project id>` with
 * the standard reputation policy, each domain's identity and configuration set are the tenant's,
 * every send names it (the front refuses a send whose resources are not the tenant's), and a tenant
 * paused in SES (its customer-managed status DISABLED, as SES's own pause would) fails the send once,
 * with SES's reason, never retried.
 */
import {
  GetTenantCommand,
  SESv2Client,
  UpdateReputationEntityCustomerManagedStatusCommand,
} from '@aws-sdk/client-sesv2';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { runtimeCredentials } from '../support/stand-ins';
import { signedFetch } from '../../local/aws/sigv4';

const runtime = useRuntimeTable();
const ses = new SESv2Client({
  endpoint: runtime.sesEndpoint,
  region: 'ap-southeast-2',
  credentials: runtimeCredentials(),
});
afterAll(() => ses.destroy());

const sentThrough = (messageId: string) =>
  signedFetch(`${runtime.sesEndpoint}/_local/sends/${encodeURIComponent(messageId)}`, runtimeCredentials(), 'ses').then(
    (r) => r.json() as Promise<{ tenant: string | null }>,
  );
const settled = (id: string, key: string) =>
  waitFor(
    () => api.get(`/emails/${id}`, { key }).then((r) => r.body),
    (email) => !['queued', 'scheduled', 'sending', 'sent'].includes(email.last_event), // delivered or failed
    60_000, // the suites share the runtime's sender: on a loaded 2-core machine 20 s was once too little
  );

jest.setTimeout(120_000);

describe('one SES tenant per project', () => {
  it("is made with the project's first domain, with the standard policy, and every send names it", async () => {
    const project = await createOtherProject();
    const tenantName = `es-${project.projectId}`;
    await expect(ses.send(new GetTenantCommand({ TenantName: tenantName }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    const first = await verifiedDomain(project.key, 'tenant-a');
    const { Tenant } = await ses.send(new GetTenantCommand({ TenantName: tenantName }));
    expect(Tenant).toMatchObject({
      TenantName: tenantName,
      SendingStatus: 'ENABLED',
      Tags: [{ Key: 'project_id', Value: project.projectId }],
    });
    // GET /project says what SES says of it
    expect((await api.get('/project', { key: project.key })).body.ses).toEqual({
      tenant: tenantName,
      reputation_policy: 'standard',
      sending_status: 'enabled',
      ses_managed_status: { status: 'enabled', cause: null },
      customer_managed_status: { status: 'enabled', cause: null },
      reputation_impact: 'low',
    });

    const second = await verifiedDomain(project.key, 'tenant-b'); // the same tenant: its resources join it
    for (const domain of [first, second]) {
      const sent = await api.post(
        '/emails',
        { from: `hi@${domain}`, to: 'success@simulator.amazonses.com', subject: 'tenant', text: 'x' },
        { key: project.key },
      );
      expect(sent.status).toBe(200);
      const email = await settled(sent.body.id, project.key);
      expect(email.last_event).toBe('delivered');
      expect(await sentThrough(email.ses_message_id)).toEqual({ messageId: email.ses_message_id, tenant: tenantName });
    }
  });

  it('finds a tenant made by an attempt that died before recording it', async () => {
    const project = await createOtherProject();
    await verifiedDomain(project.key, 'tenant-c');
    const { update, updateItem } = await import('../../shared/platform/db/table');
    const keys = await import('../../shared/platform/db/keys');
    await updateItem(update(keys.project(project.projectId), { remove: ['ses_tenant'] })); // as if the record was never written
    // The runtime's functions keep a project's settings a second (PROJECT_SETTINGS_CACHE_SECONDS), then refresh them
    // beside a request. A rate limit of its own, written after the removal, shows in every answer's ratelimit-limit:
    // once an answer carries it, the functions hold settings read after the removal, without the tenant.
    const { changeProjectSettings } = await import('../../shared/project/settings-change');
    await changeProjectSettings(project.projectId, { rate_limit: 99_999 });
    await waitFor(
      () => api.get('/api-keys', { key: project.key }),
      (r) => r.headers.get('ratelimit-limit') === '99999',
    );
    const domain = await verifiedDomain(project.key, 'tenant-d'); // CreateTenant: AlreadyExists, then GetTenant
    const { getItem } = await import('../../shared/platform/db/table');
    expect((await getItem(keys.project(project.projectId)))?.ses_tenant).toMatchObject({
      name: `es-${project.projectId}`,
    }); // recorded again
    const sent = await api.post(
      '/emails',
      { from: `hi@${domain}`, to: 'success@simulator.amazonses.com', subject: 'again', text: 'x' },
      { key: project.key },
    );
    const email = await settled(sent.body.id, project.key);
    expect(email.last_event).toBe('delivered');
    expect((await sentThrough(email.ses_message_id)).tenant).toBe(`es-${project.projectId}`);
  });

  it('fails an email once, with the reason, when SES has paused the tenant; other projects keep sending', async () => {
    const paused = await createOtherProject();
    const other = await createOtherProject();
    const [pausedDomain, otherDomain] = await Promise.all([
      verifiedDomain(paused.key, 'tenant-paused'),
      verifiedDomain(other.key, 'tenant-ok'),
    ]);
    const { Tenant } = await ses.send(new GetTenantCommand({ TenantName: `es-${paused.projectId}` }));
    await ses.send(
      new UpdateReputationEntityCustomerManagedStatusCommand({
        ReputationEntityType: 'RESOURCE',
        ReputationEntityReference: Tenant!.TenantArn!,
        SendingStatus: 'DISABLED',
      }),
    );

    expect((await api.get('/project', { key: paused.key })).body.ses).toMatchObject({
      sending_status: 'disabled',
      customer_managed_status: { status: 'disabled' },
    });

    const refused = await api.post(
      '/emails',
      { from: `hi@${pausedDomain}`, to: 'success@simulator.amazonses.com', subject: 'paused', text: 'x' },
      { key: paused.key },
    );
    expect(refused.status).toBe(200); // accepted: SES decides at send time
    const failed = await settled(refused.body.id, paused.key);
    expect(failed.last_event).toBe('failed');
    const failures = (await projectEvents(paused.projectId))
      .map((item) => item.event)
      .filter((e) => e.type === 'email.failed' && e.data.object.id === refused.body.id);
    expect(failures).toHaveLength(1); // once: SES's refusal is permanent, never retried
    expect(failures[0].data.object.failure_reason).toMatch(/^SendingPausedException: Sending is paused for tenant es-/);

    const fine = await api.post(
      '/emails',
      { from: `hi@${otherDomain}`, to: 'success@simulator.amazonses.com', subject: 'fine', text: 'x' },
      { key: other.key },
    );
    expect((await settled(fine.body.id, other.key)).last_event).toBe('delivered');

    await ses.send(
      new UpdateReputationEntityCustomerManagedStatusCommand({
        ReputationEntityType: 'RESOURCE',
        ReputationEntityReference: Tenant!.TenantArn!,
        SendingStatus: 'REINSTATED',
      }),
    );
    const again = await api.post(
      '/emails',
      { from: `hi@${pausedDomain}`, to: 'success@simulator.amazonses.com', subject: 'again', text: 'x' },
      { key: paused.key },
    );
    expect((await settled(again.body.id, paused.key)).last_event).toBe('delivered');
  });
});
