/**
 * When a domain's compliance is checked without anyone asking (shared/deliverability/compliance.ts
 * `checkDueCompliance`): its compliance record (keys.domainCompliance) carries the time of its next
 * check in GSI1 (keys.domainComplianceDue), so the scheduled worker finds the due ones by key.
 *
 * The record is written with the domain, due at once (the first check records the statuses a later
 * change is told against), and deleted with it. Apart from compliance.ts so that creating and deleting
 * a domain does not take the check's DNS and reputation code into their bundles.
 */
import * as keys from '../platform/db/keys';
import { del, put, type WriteAction } from '../platform/db/table';

/**
 * A domain is checked this often: the rules move with DNS edits, SES's DKIM status and a week of
 * complaints, none of which needs minutes; four checks a day keep a domain's write cost at a few
 * units a day. A GET of the check also counts as one (and moves the next).
 */
export const COMPLIANCE_CHECK_EVERY_MS = 6 * 3_600_000;

/** The GSI1 entry of a record whose next check is `at` (epoch ms). */
export const complianceDueAt = (at: number, domainId: string) =>
  keys.domainComplianceDue(new Date(at).toISOString(), domainId);

/** The record of a new domain: no statuses yet, its first check due `at` (now). */
export function newComplianceRecord(
  domain: { project_id: string; id: string; livemode: boolean },
  at: number,
): WriteAction {
  return put({
    ...keys.domainCompliance(domain.project_id, domain.id),
    ...complianceDueAt(at, domain.id),
    type: 'domain_compliance',
    project_id: domain.project_id,
    domain_id: domain.id,
    livemode: domain.livemode,
    version: 0,
  });
}

/** The record goes with its domain (and with it, its scheduled checks). */
export const deleteComplianceRecord = (projectId: string, domainId: string): WriteAction =>
  del(keys.domainCompliance(projectId, domainId));
