/**
 * One SES tenant per project (SES tenant management): SES keeps the reputation of each tenant
 * apart and pauses a tenant, not the account, when its mail bounces or draws complaints, so one
 * project's bad list cannot stop everyone's mail. The tenant `es-<project id>` is made with the
 * project's first live domain, with the deployment's reputation policy (SES_TENANT_REPUTATION_POLICY:
 * `standard` by default, or `strict` or `none`: SES's managed policies); each live domain's identity
 * and configuration set are associated with it, and every send from the domain names it
 * (`TenantName`: SES sends only if every resource it uses is the tenant's).
 *
 * The project item records the tenant once it exists with its policy (`ses_tenant`, in the
 * transaction that writes the domain), so later domains only associate theirs. A project's last domain deleted leaves the tenant: its reputation
 * history stays with the project (a new tenant would start clean, which would let a project shed a
 * bad record by deleting its domains), and an idle tenant costs nothing. Domains made before tenants
 * (no `ses_tenant` on their name's claim) send without one until they are made again.
 */
import * as keys from '../platform/db/keys';
import { update, type WriteAction } from '../platform/db/table';
import { projectSettings } from '../project/settings';
import { REPUTATION_POLICIES, type ReputationPolicy } from './tenant-policies';
import {
  CreateTenantCommand,
  CreateTenantResourceAssociationCommand,
  GetReputationEntityCommand,
  GetTenantCommand,
  sesClient,
  UpdateReputationEntityPolicyCommand,
} from '../platform/aws/ses';

export const tenantName = (projectId: string): string => `es-${projectId}`;

/** SES_TENANT_REPUTATION_POLICY when it names one of SES's policies, else `standard`. */
export function reputationPolicy(env: Record<string, string | undefined> = process.env): ReputationPolicy {
  const value = env.SES_TENANT_REPUTATION_POLICY as ReputationPolicy | undefined;
  return value && REPUTATION_POLICIES.includes(value) ? value : 'standard';
}

export interface ProjectTenant {
  name: string;
  arn: string;
}

/**
 * The project's tenant, made (with the reputation policy) if the project has none recorded; `record`
 * is then the write that records it, for the caller's transaction (a tenant made but not recorded,
 * because that transaction failed, is found again by the next domain: AlreadyExists, then GetTenant).
 */
export async function ensureTenant(projectId: string): Promise<{ tenant: ProjectTenant; record?: WriteAction }> {
  // as the request's rate limit read the project (cached: a tenant recorded meanwhile is found through AlreadyExists)
  const recorded = (await projectSettings(projectId)).ses_tenant;
  if (recorded) return { tenant: recorded };
  const name = tenantName(projectId);
  let arn: string;
  try {
    arn = (
      await sesClient.send(
        new CreateTenantCommand({ TenantName: name, Tags: [{ Key: 'project_id', Value: projectId }] }),
      )
    ).TenantArn as string;
  } catch (error) {
    if ((error as Error).name !== 'AlreadyExistsException') throw error;
    arn = (await sesClient.send(new GetTenantCommand({ TenantName: name }))).Tenant?.TenantArn as string; // made by an attempt that died before recording it
  }
  const [, partition, , region] = arn.split(':');
  await sesClient.send(
    new UpdateReputationEntityPolicyCommand({
      ReputationEntityType: 'RESOURCE',
      ReputationEntityReference: arn,
      ReputationEntityPolicy: `arn:${partition}:ses:${region}:aws:reputation-policy/${reputationPolicy()}`,
    }),
  );
  const tenant = { name, arn };
  return { tenant, record: update(keys.project(projectId), { set: { ses_tenant: tenant } }) };
}

/** Associates a domain's identity and configuration set with the tenant (their ARNs in the tenant's account and region). */
export async function associateDomain(
  tenant: ProjectTenant,
  domainName: string,
  configurationSet: string,
): Promise<void> {
  const base = tenant.arn.split(':').slice(0, 5).join(':'); // arn:<partition>:ses:<region>:<account>
  for (const resource of [`identity/${domainName}`, `configuration-set/${configurationSet}`]) {
    await sesClient.send(
      new CreateTenantResourceAssociationCommand({ TenantName: tenant.name, ResourceArn: `${base}:${resource}` }),
    );
  }
}

/**
 * What SES says of a project's tenant (GET /project's `ses`): its reputation policy, whether SES
 * lets it send (the aggregate of SES's own status, set by its reputation findings, and the
 * customer-managed one), and the impact SES gives its findings. Read when asked (GetReputationEntity).
 */
export async function tenantReputation(tenant: { name: string; arn: string }) {
  const { ReputationEntity: entity } = await sesClient.send(
    new GetReputationEntityCommand({ ReputationEntityType: 'RESOURCE', ReputationEntityReference: tenant.arn }),
  );
  const status = (record?: { Status?: string; Cause?: string }) =>
    record?.Status ? { status: record.Status.toLowerCase(), cause: record.Cause ?? null } : null;
  return {
    tenant: tenant.name,
    reputation_policy: /reputation-policy\/([a-z]+)$/.exec(entity?.ReputationManagementPolicy ?? '')?.[1] ?? null,
    sending_status: entity?.SendingStatusAggregate?.toLowerCase() ?? null,
    ses_managed_status: status(entity?.AwsSesManagedStatus),
    customer_managed_status: status(entity?.CustomerManagedStatus),
    reputation_impact: entity?.ReputationImpact?.toLowerCase() ?? null,
  };
}
