import type { Construct } from 'constructs';

/**
 * A whole number (at least `min`) from the CDK context (`cdk deploy -c <name>=90`), else `fallback`;
 * `unit` names what it counts in the error (`days`).
 */
export function wholeNumberFromContext(
  scope: Construct,
  name: string,
  fallback: number,
  min: number,
  unit?: string,
): number {
  const value = scope.node.tryGetContext(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min)
    throw new Error(
      `${name} must be a whole number${unit ? ` of ${unit}` : ''} (at least ${min}), got ${JSON.stringify(value)}`,
    );
  return n;
}

/** A whole number of days (at least 1) from the CDK context, else `fallback`. */
export const daysFromContext = (scope: Construct, name: string, fallback: number): number =>
  wholeNumberFromContext(scope, name, fallback, 1, 'days');

/** A domain name from the CDK context (`-c <name>=in.example.com`), lower-cased; undefined unless given. */
function domainFromContext(scope: Construct, name: string): string | undefined {
  const value = scope.node.tryGetContext(name);
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(value))
    throw new Error(`${name} must be a domain name, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

/**
 * The domain of the inboxes' forwarding addresses (`-c inboxForwardingDomain=in.example.com`): a domain the
 * deployment's SES receives for (a verified identity whose MX is SES's inbound endpoint); none unless given.
 */
export const inboxForwardingDomain = (scope: Construct): string | undefined =>
  domainFromContext(scope, 'inboxForwardingDomain');

/**
 * The domain of the domains' DMARC and TLS report addresses (`-c reportsDomain=reports.example.com`,
 * shared/domains/report-addresses.ts): a domain the deployment's SES receives for, as the forwarding
 * domain (it may be the same one); none unless given, and then no report addresses.
 */
export const reportsDomain = (scope: Construct): string | undefined => domainFromContext(scope, 'reportsDomain');

/** An on/off switch from the CDK context (`-c <name>=true`; the CLI passes strings): off unless given. */
export function flagFromContext(scope: Construct, name: string): boolean {
  const value = scope.node.tryGetContext(name);
  if (value === undefined || value === false || value === 'false') return false;
  if (value === true || value === 'true') return true;
  throw new Error(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** A fraction between 0 and 1 (exclusive) from the CDK context (`-c <name>=0.04`), else `fallback`. */
export function fractionFromContext(scope: Construct, name: string, fallback: number): number {
  const value = scope.node.tryGetContext(name);
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || n >= 1)
    throw new Error(`${name} must be a fraction between 0 and 1 (0.04 for 4%), got ${JSON.stringify(value)}`);
  return n;
}
