/**
 * GET /usage (the `resend` SDK's `usage.get`): the project's usage against its limits, in
 * Resend's shape, all read side by side (one round trip):
 * - emails: this UTC day's and month's accepted emails (the send-quota counters,
 *   shared/project/quota.ts) against the quotas (null: unlimited), and the mail received (the
 *   metrics counters, shared/emails/metrics.ts), with when each period resets;
 * - contacts: the contact counters (shared/project/contact-count.ts); segments and broadcasts: a
 *   COUNT Query of each (short lists); domains: the domain counter against MAX_DOMAINS_PER_PROJECT;
 * - rate_limit: the project's requests a second.
 * - contacts: against the project's contact limit (its own, else CONTACT_LIMIT_PER_PROJECT, the
 *   stack's `-c contactLimitPerProject`, default 1,000,000), which creating a contact enforces.
 * No plan limits apply to segments and broadcasts: `limit: null`. Resend's
 * `ai_credits` and `automation_runs` are not offered: zeros, documented.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { countItems, getItem, queryBetween } from '../platform/db/table';
import { contactCount } from './contact-count';
import { maxDomainsPerProject } from './domain-limit';
import { quotaUsage } from './quota';
import { projectSettings } from './settings';
import { nowDate } from '../platform/clock';

const nextDay = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString();
const nextMonth = (now: Date) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();

export async function projectUsage(caller: Caller, now = nowDate()) {
  const today = now.toISOString().slice(0, 10);
  const [settings, sent, days, contacts, segments, broadcasts, domains] = await Promise.all([
    projectSettings(caller.projectId),
    quotaUsage(caller.projectId, now),
    queryBetween(keys.metricsDays(caller.projectId), `${today.slice(0, 7)}-01`, today),
    contactCount(caller.projectId),
    countItems(keys.segments(caller.projectId)),
    countItems(keys.broadcasts(caller.projectId)),
    getItem(keys.domainCount(caller.projectId)),
  ]);
  const received = (day?: string) =>
    days
      .filter((item) => !day || item.SK === keys.metricsDaySk(day))
      .reduce((sum, item) => sum + Number(item.received ?? 0), 0);
  return {
    object: 'usage' as const,
    emails: {
      daily: {
        used: sent.daily,
        limit: settings.daily_quota,
        sent: sent.daily,
        received: received(today),
        resets_at: nextDay(now),
      },
      monthly: {
        used: sent.monthly,
        limit: settings.monthly_quota,
        sent: sent.monthly,
        received: received(),
        resets_at: nextMonth(now),
      },
    },
    contacts: { used: contacts, limit: settings.contact_limit },
    segments: { used: segments, limit: null },
    broadcasts: { used: broadcasts, limit: null },
    ai_credits: { used: 0, limit: null, next_increase_at: null },
    automation_runs: { used: 0, limit: 0, resets_at: nextMonth(now) },
    domains: { used: Number(domains?.domain_count ?? 0), limit: maxDomainsPerProject() },
    rate_limit: { limit: settings.rate_limit, duration: '1s' },
  };
}
