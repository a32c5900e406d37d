/**
 * GET /project: the project with what sending knows of it (its pause, its reputation, its quotas and
 * usage). Here rather than in shared/project/: the reputation is the emails feature's (a pause
 * writes a platform event), and the project feature comes before both in the feature order.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem } from '../platform/db/table';
import { notFound } from '../platform/errors';
import type { ProjectView } from '../project/model';
import { quotaPeriods, quotaUsage } from '../project/quota';
import { settingsOf } from '../project/settings';
import { liveProjectId } from '../project/test-mode';
import { reputationOf } from './reputation';
import { tenantReputation } from '../domains/tenants';
import { logger } from '../platform/log';

/** GET /project: the project with its settings as stored (not as cached), its usage and its reputation, read side by side. */
export async function describeProject(caller: Caller): Promise<ProjectView> {
  const [item, usage, reputation] = await Promise.all([
    getItem(keys.project(liveProjectId(caller.projectId))),
    quotaUsage(caller.projectId),
    reputationOf(caller.projectId),
  ]);
  if (!item) throw notFound('Project');
  const settings = settingsOf(item);
  // SES's own view of the project's tenant; its absence (no live domain yet, or SES not answering) is null, never an error
  const ses = settings.ses_tenant
    ? await tenantReputation(settings.ses_tenant).catch((error) => {
        logger.warn('SES reputation entity not read', { tenant: settings.ses_tenant?.name, error });
        return null;
      })
    : null;
  const periods = quotaPeriods();
  return {
    object: 'project',
    id: liveProjectId(caller.projectId), // a test key's twin is its project's sandbox, not a project of its own
    name: String(item.name),
    created_at: String(item.created_at),
    sending: settings.sending_paused
      ? { status: 'paused', reason: settings.sending_paused.reason, since: settings.sending_paused.since }
      : { status: 'enabled', reason: null, since: null },
    reputation,
    ses,
    rate_limit: { requests_per_second: settings.rate_limit },
    quotas: { daily: settings.daily_quota, monthly: settings.monthly_quota },
    usage: { ...usage, day: periods.daily.slice(4), month: periods.monthly.slice(6) },
  };
}
