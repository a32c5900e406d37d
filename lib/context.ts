import type { Construct } from 'constructs';

/** A whole number of days (at least 1) from the CDK context (`cdk deploy -c <name>=90`), else `fallback`. */
export function daysFromContext(scope: Construct, name: string, fallback: number): number {
  const value = scope.node.tryGetContext(name);
  if (value === undefined) return fallback;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1) throw new Error(`${name} must be a whole number of days (at least 1), got ${JSON.stringify(value)}`);
  return days;
}
