/**
 * Where a domain's DMARC aggregate reports (RFC 7489) and TLS reports (RFC 8460) go: addresses the
 * service owns on the deployment's reports domain (REPORTS_DOMAIN: `cdk deploy -c reportsDomain=...`,
 * a domain the deployment's SES receives for; locally `reports.localhost`), one pair per domain:
 * `dmarc+<domain id>@<reports domain>` and `tls+<domain id>@<reports domain>`. The domain's records
 * then suggest `rua=mailto:` them (./records.ts); the inbound worker reads what arrives there
 * (shared/deliverability/ingest.ts). Without a reports domain there are no report addresses and the
 * records suggest DMARC without `rua`, as before.
 *
 * The reports domain is not the reported domain, so DMARC's external destination check (RFC 7489
 * §7.1) applies: the deployment publishes `*._report._dmarc.<reports domain> TXT "v=DMARC1"` once,
 * which authorises reports about every domain (docs/deploying.md).
 */
import { bareAddressOf } from '../platform/mail/bare-address';

export type ReportKind = 'dmarc' | 'tls';

export const reportsDomain = (): string | undefined => process.env.REPORTS_DOMAIN?.toLowerCase() || undefined;

/** The address `kind` reports about domain `domainId` go to, when the deployment has a reports domain. */
export function reportAddress(kind: ReportKind, domainId: string, domain = reportsDomain()): string | undefined {
  return domain ? `${kind}+${domainId}@${domain}` : undefined;
}

const LOCAL_PART = /^(dmarc|tls)\+([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** What a recipient address is, when it is a report address of this deployment: the kind and the domain id it names. */
export function reportAddressOf(
  recipient: string,
  domain = reportsDomain(),
): { kind: ReportKind; domainId: string } | undefined {
  if (!domain) return undefined;
  const address = bareAddressOf(recipient);
  if (!address.endsWith(`@${domain}`)) return undefined;
  const match = LOCAL_PART.exec(address.slice(0, -domain.length - 1));
  return match ? { kind: match[1] as ReportKind, domainId: match[2] } : undefined;
}
