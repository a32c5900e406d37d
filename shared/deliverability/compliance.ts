/**
 * A domain against the bulk-sender rules Gmail and Yahoo enforce since 2024 (Gmail rejects with
 * 5.7.x since November 2025): GET /domains/{id}/compliance. Each rule is `pass`, `warn` or `fail`,
 * with what was found (`evidence`) and what to change (`fix`, null on a pass):
 *
 * - `spf`: the MAIL FROM domain (`<custom_return_path>.<domain>`, the envelope sender SES uses)
 *   publishes SPF including amazonses.com. Missing or without the include: fail.
 * - `dkim`: SES's DKIM status of the domain (Easy DKIM signs with the domain itself): verified
 *   pass, pending or not started warn, failed fail.
 * - `dmarc`: a DMARC record at `_dmarc.<domain>`, or at a parent's (the organisational domain's
 *   policy covers its subdomains: the parents are tried up to two labels; no public suffix list),
 *   with a valid `p=` (`none` is the least the rules ask). Missing or invalid: fail.
 * - `dmarc_reports`: when the deployment has a reports domain, the record's `rua` names the domain's
 *   DMARC report address (else warn: GET /domains/{id}/dmarc stays empty).
 * - `alignment`: From aligned with DKIM (the domain signs: DKIM verified) and with SPF (the MAIL FROM
 *   is a subdomain: aligned under relaxed SPF alignment, not under `aspf=s`). Both pass; one warn
 *   (DMARC passes on one, but a forwarder breaks SPF); none fail.
 * - `mx`: with receiving enabled, the domain's MX is SES's inbound endpoint of the region (fail
 *   otherwise); receiving disabled: pass, nothing to publish.
 * - `one_click_unsubscribe`: broadcast emails carry `List-Unsubscribe` and `List-Unsubscribe-Post:
 *   List-Unsubscribe=One-Click` (RFC 8058), always: shared/broadcasts/fanout.ts. Pass by construction.
 * - `complaint_rate`: the project's spam complaints over its live sends of the last 7 days (the
 *   reputation counts, shared/emails/reputation.ts: project-wide, not per domain): under 0.1% pass,
 *   under 0.3% warn (Gmail's line), from 0.3% fail; no sends: pass.
 * - `tls`: SES delivers over TLS whenever the receiver offers it (Gmail and Yahoo do), so pass; the
 *   domain's `tls: "Require"` also refuses receivers without it. A warn when the domain publishes no
 *   TLS-RPT record (its receiving side's TLS failures go unseen).
 * `status` is the worst rule's. A DNS lookup that fails (a timeout, SERVFAIL) makes its rules `warn`
 * with the error, never an error answer; each DNS answer is kept for its TTL (at most an hour; a
 * no-record answer for the zone's negative TTL, at most five minutes: shared/platform/net/dns.ts), so
 * a repeated check mostly reads the table only.
 *
 * Each check is compared with the domain's last (keys.domainCompliance: its rules' statuses): when a
 * rule's status changed, the new statuses and `domain.compliance_changed` (`changes: [{rule, from,
 * to}]`, the status before and now) are written in one transaction, conditional on the statuses read,
 * so two checks at once raise it once. A domain's first check records its statuses and raises nothing.
 * The check runs when asked (this route; the console's Deliverability screen asks on each visit) and
 * on a schedule (`checkDueCompliance`, the compliance-check worker): every domain every
 * COMPLIANCE_CHECK_EVERY_MS (shared/domains/compliance-schedule.ts), the first right after it is created, so a
 * change is told without anyone asking. Every check moves the domain's next one.
 */
import type { Caller } from '../platform/caller';
import { cachedMx, cachedTxt } from '../platform/net/dns';
import { errorMessage } from './drops';
import { getDomain } from '../domains/domains';
import { reportAddress } from '../domains/report-addresses';
import { reputationOver } from '../emails/reputation';
import { nowIso } from '../platform/ids';
import { now } from '../platform/clock';
import * as keys from '../platform/db/keys';
import { applyUpdate, del, getItem, isConditionFailed, queryGsi1Pages, transact, update } from '../platform/db/table';
import { eventWrite } from '../events/events';
import { ApiError } from '../platform/errors';
import { logger } from '../platform/log';
import { COMPLIANCE_CHECK_EVERY_MS, complianceDueAt } from '../domains/compliance-schedule';

export type RuleStatus = 'pass' | 'warn' | 'fail';
export interface ComplianceRule {
  rule: string;
  status: RuleStatus;
  evidence: string;
  fix: string | null;
}

export const COMPLAINT_RATE_WARN = 0.001;
export const COMPLAINT_RATE_FAIL = 0.003;
const WEEK_HOURS = 7 * 24;

const rule = (name: string, status: RuleStatus, evidence: string, fix: string | null = null): ComplianceRule => ({
  rule: name,
  status,
  evidence,
  fix: status === 'pass' ? null : fix,
});

/** `lookup`'s answer, or the rule to give when DNS could not answer. */
async function looked<T>(name: string, lookup: () => Promise<T>): Promise<T | ComplianceRule> {
  try {
    return await lookup();
  } catch (error) {
    return rule(name, 'warn', `DNS lookup failed: ${errorMessage(error)}`, 'Check again later.');
  }
}
const isRule = (value: unknown): value is ComplianceRule =>
  typeof value === 'object' && value !== null && 'rule' in value && 'status' in value;

/** The tags of a DMARC or TLS-RPT record (`p=none; rua=...` -> {p: 'none', rua: '...'}), names lower-cased. */
function tagsOf(record: string): Record<string, string> {
  return Object.fromEntries(
    record
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf('=');
        return at < 0 ? [part.toLowerCase(), ''] : [part.slice(0, at).trim().toLowerCase(), part.slice(at + 1).trim()];
      }),
  );
}

/** The DMARC record that applies to `name` and where it was found: its own, else a parent's (up to two labels). */
async function dmarcRecordOf(name: string): Promise<{ at: string; record: string } | undefined> {
  const labels = name.split('.');
  for (let i = 0; i <= labels.length - 2; i++) {
    const at = `_dmarc.${labels.slice(i).join('.')}`;
    const record = (await cachedTxt(at)).find((v) => /^v=DMARC1\s*(;|$)/i.test(v.trim()));
    if (record) return { at, record };
  }
  return undefined;
}

export async function domainCompliance(caller: Caller, domainId: string) {
  return (await checkCompliance(caller, domainId)).checked;
}

async function checkCompliance(caller: Caller, domainId: string) {
  const domain = await getDomain(caller, domainId);
  const { name } = domain;
  const mailFrom = `${domain.custom_return_path}.${name}`;
  const spfStatus = domain.records.find((r) => r.record === 'SPF')?.status;
  const dmarcAddress = reportAddress('dmarc', domainId);

  const [spfTxt, dmarc, mx, tlsRpt, reputation] = await Promise.all([
    looked('spf', () => cachedTxt(mailFrom)),
    looked('dmarc', () => dmarcRecordOf(name)),
    domain.capabilities.receiving === 'enabled' ? looked('mx', () => cachedMx(name)) : Promise.resolve(undefined),
    looked('tls', () => cachedTxt(`_smtp._tls.${name}`)),
    reputationOver(caller.projectId, WEEK_HOURS),
  ]);
  const rules: ComplianceRule[] = [];

  // SPF of the envelope sender
  if (isRule(spfTxt)) rules.push(spfTxt);
  else {
    const spf = spfTxt.find((v) => /^v=spf1(\s|$)/i.test(v.trim()));
    const fix = `Publish TXT "v=spf1 include:amazonses.com ~all" at ${mailFrom}.`;
    if (!spf) rules.push(rule('spf', 'fail', `No SPF record at ${mailFrom}.`, fix));
    else if (!/\binclude:amazonses\.com\b/i.test(spf))
      rules.push(rule('spf', 'fail', `SPF at ${mailFrom} does not include amazonses.com: "${spf}".`, fix));
    else rules.push(rule('spf', 'pass', `SPF at ${mailFrom}: "${spf}".`));
  }

  // DKIM
  const dkimFix = "Publish the domain's three DKIM CNAME records (its `records`), then POST /domains/{id}/verify.";
  if (domain.status === 'verified') rules.push(rule('dkim', 'pass', 'SES signs with the domain: DKIM verified.'));
  else if (domain.status === 'failed')
    rules.push(rule('dkim', 'fail', 'SES could not find the DKIM records: DKIM failed.', dkimFix));
  else rules.push(rule('dkim', 'warn', `SES DKIM status: ${domain.status}.`, dkimFix));

  // DMARC record and policy, and its reports
  let dmarcTags: Record<string, string> | undefined;
  if (isRule(dmarc)) rules.push(dmarc);
  else {
    const suggested = `Publish TXT "v=DMARC1; p=none;${dmarcAddress ? ` rua=mailto:${dmarcAddress};` : ''}" at _dmarc.${name}.`;
    if (!dmarc) rules.push(rule('dmarc', 'fail', `No DMARC record at _dmarc.${name} or a parent domain.`, suggested));
    else {
      dmarcTags = tagsOf(dmarc.record);
      const policy = dmarcTags.p?.toLowerCase();
      if (!policy || !['none', 'quarantine', 'reject'].includes(policy))
        rules.push(rule('dmarc', 'fail', `DMARC at ${dmarc.at} has no valid p=: "${dmarc.record}".`, suggested));
      else
        rules.push(
          rule(
            'dmarc',
            'pass',
            `DMARC at ${dmarc.at}: p=${policy}${policy === 'none' ? ' (monitoring: the least the rules ask)' : ''}.`,
          ),
        );
    }
  }
  if (dmarcAddress) {
    const named = (dmarcTags?.rua ?? '').toLowerCase().includes(`mailto:${dmarcAddress}`);
    rules.push(
      named
        ? rule('dmarc_reports', 'pass', `rua names ${dmarcAddress}: reports reach GET /domains/{id}/dmarc.`)
        : rule(
            'dmarc_reports',
            'warn',
            'The DMARC record does not send aggregate reports here.',
            `Add mailto:${dmarcAddress} to the record's rua= (comma-separated with any other).`,
          ),
    );
  }

  // alignment of From with DKIM and SPF, as SES sends
  const dkimAligned = domain.status === 'verified';
  const spfAligned = spfStatus === 'verified' && dmarcTags?.aspf?.toLowerCase() !== 's';
  const aligned = [dkimAligned && 'DKIM (d=' + name + ')', spfAligned && `SPF (MAIL FROM ${mailFrom}, relaxed)`].filter(
    Boolean,
  );
  rules.push(
    aligned.length === 2
      ? rule('alignment', 'pass', `From ${name} aligns with ${aligned.join(' and ')}.`)
      : rule(
          'alignment',
          aligned.length === 1 ? 'warn' : 'fail',
          aligned.length
            ? `From ${name} aligns with ${aligned[0]} only.`
            : `From ${name} aligns with neither DKIM nor SPF.`,
          dkimAligned
            ? `Verify the MAIL FROM records at ${mailFrom}${dmarcTags?.aspf?.toLowerCase() === 's' ? ', and use aspf=r' : ''}.`
            : dkimFix,
        ),
  );

  // MX for receiving
  if (domain.capabilities.receiving !== 'enabled')
    rules.push(rule('mx', 'pass', 'Receiving is disabled: no MX needed.'));
  else if (isRule(mx)) rules.push(mx);
  else {
    const inbound = `inbound-smtp.${domain.region}.amazonaws.com`;
    const found = (mx ?? []).map((r) => `${r.priority} ${r.exchange}`);
    rules.push(
      (mx ?? []).some((r) => r.exchange === inbound)
        ? rule('mx', 'pass', `MX: ${found.join(', ')}.`)
        : rule(
            'mx',
            'fail',
            found.length ? `MX does not name ${inbound}: ${found.join(', ')}.` : `No MX record at ${name}.`,
            `Publish MX 10 ${inbound} at ${name}.`,
          ),
    );
  }

  rules.push(
    rule(
      'one_click_unsubscribe',
      'pass',
      'Broadcast emails carry List-Unsubscribe and List-Unsubscribe-Post: List-Unsubscribe=One-Click (RFC 8058).',
    ),
  );

  const rate = reputation.complaint_rate;
  const percent = `${(rate * 100).toFixed(3)}%`;
  const evidence = `${reputation.complained} complaints in ${reputation.sent} live sends of the project over 7 days (${percent}).`;
  rules.push(
    rate < COMPLAINT_RATE_WARN
      ? rule('complaint_rate', 'pass', evidence)
      : rule(
          'complaint_rate',
          rate < COMPLAINT_RATE_FAIL ? 'warn' : 'fail',
          evidence,
          'Send only to people who asked for the mail, honour unsubscribes at once, and remove inactive contacts.',
        ),
  );

  if (isRule(tlsRpt)) rules.push(tlsRpt);
  else {
    const tls =
      domain.tls === 'enforced' ? 'only over TLS (tls: enforced)' : 'over TLS whenever the receiver offers it';
    const reporting = tlsRpt.find((v) => /^v=TLSRPTv1\s*(;|$)/i.test(v.trim()));
    const tlsAddress = reportAddress('tls', domainId);
    rules.push(
      reporting
        ? rule('tls', 'pass', `SES delivers ${tls}; TLS-RPT at _smtp._tls.${name}: "${reporting}".`)
        : rule(
            'tls',
            'warn',
            `SES delivers ${tls}; no TLS-RPT record at _smtp._tls.${name}.`,
            `Publish TXT "v=TLSRPTv1; rua=mailto:${tlsAddress ?? 'an address of yours'}" at _smtp._tls.${name}.`,
          ),
    );
  }

  const worst: RuleStatus = rules.some((r) => r.status === 'fail')
    ? 'fail'
    : rules.some((r) => r.status === 'warn')
      ? 'warn'
      : 'pass';
  const checked = {
    object: 'domain_compliance' as const,
    domain_id: domainId,
    name,
    status: worst,
    checked_at: nowIso(),
    rules,
  };
  return { checked, changed: await recordChanges(caller, checked) };
}

const COMPLIANCE_TTL_SECONDS = 400 * 86_400;

/**
 * Records the check: its statuses when they differ from the last check's, with `domain.compliance_changed`
 * unless it is the first; and, changed or not, when it was made and when the next is due. True when the
 * statuses changed.
 */
async function recordChanges(
  caller: Caller,
  checked: { domain_id: string; name: string; status: RuleStatus; rules: ComplianceRule[] },
): Promise<boolean> {
  const key = keys.domainCompliance(caller.projectId, checked.domain_id);
  const last = await getItem(key);
  const first = !last?.rules; // no record, or the one the domain was created with
  const before = (last?.rules ?? {}) as Record<string, RuleStatus>;
  const changes = checked.rules
    .filter((r) => before[r.rule] !== r.status)
    .map((r) => ({ rule: r.rule, from: before[r.rule] ?? null, to: r.status }));
  const at = now();
  const checkedNow = {
    project_id: caller.projectId,
    livemode: caller.livemode,
    checked_at: new Date(at).toISOString(),
    ...complianceDueAt(at + COMPLIANCE_CHECK_EVERY_MS, checked.domain_id),
    expires_at: Math.floor(at / 1000) + COMPLIANCE_TTL_SECONDS,
  };
  if (!first && changes.length === 0) {
    // nothing changed: only the next check moves (never bringing back a record deleted with its domain meanwhile)
    await applyUpdate(
      update(key, { set: checkedNow, condition: { expression: 'attribute_exists(PK)' } }, { tag: 'gone' }),
    ).catch((error: unknown) => {
      if (!isConditionFailed(error, 'gone')) throw error;
    });
    return false;
  }
  // conditional on the statuses read: two checks at once record (and raise) one change
  const unchangedSince = last
    ? { expression: 'version = :version', values: { ':version': last.version } }
    : { expression: 'attribute_not_exists(PK)' };
  const record = update(
    key,
    {
      set: {
        type: 'domain_compliance',
        domain_id: checked.domain_id,
        status: checked.status,
        rules: Object.fromEntries(checked.rules.map((r) => [r.rule, r.status])),
        version: Number(last?.version ?? 0) + 1,
        ...checkedNow,
      },
      condition: unchangedSince,
    },
    { tag: 'compliance moved' },
  );
  try {
    await transact([
      record,
      ...(first
        ? []
        : [
            eventWrite(caller, 'domain.compliance_changed', {
              object: 'domain_compliance_change',
              domain_id: checked.domain_id,
              name: checked.name,
              status: checked.status,
              previous_status: last?.status,
              changes,
            }),
          ]),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, 'compliance moved')) throw error; // another check recorded it meanwhile
    return false;
  }
  return !first;
}

interface ComplianceRecord {
  PK: string;
  SK: string;
  project_id: string;
  domain_id: string;
  livemode: boolean;
}

/**
 * The scheduled check: every domain whose next check is due (GSI1 `DOMAIN_COMPLIANCE_DUE` before now,
 * oldest first), checked as GET /domains/{id}/compliance checks it, until `deadline` (epoch ms, the
 * machine's: the worker's remaining time). A record whose domain is gone is deleted; one domain failing
 * is logged and does not stop the rest (it stays due: the next run tries it again).
 */
export async function checkDueCompliance(deadline: number): Promise<{ checked: number; changed: number }> {
  let checked = 0;
  let changed = 0;
  const due = queryGsi1Pages<ComplianceRecord>(keys.DOMAINS_COMPLIANCE_DUE, {
    below: new Date(now()).toISOString(),
    pageSize: 25,
  });
  for await (const page of due) {
    for (const record of page) {
      if (Date.now() >= deadline) return { checked, changed };
      const caller: Caller = { projectId: record.project_id, livemode: record.livemode, permission: 'full_access' };
      try {
        checked += 1;
        if ((await checkCompliance(caller, record.domain_id)).changed) changed += 1;
      } catch (error) {
        if (error instanceof ApiError && error.statusCode === 404)
          await transact([del({ PK: record.PK, SK: record.SK })]);
        else logger.error('compliance check failed', { domain_id: record.domain_id, error });
      }
    }
  }
  return { checked, changed };
}
