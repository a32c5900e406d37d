/**
 * The region the stack is deployed to: CDK context `region` (`cdk deploy -c region=eu-west-1`, or
 * `"region"` in cdk.context.json), default ap-southeast-2 (Sydney, the region the service was
 * designed in). Read here for everyone who needs it:
 *
 * - the stack (lib/email-service-stack.ts `buildApp`: `env.region`, and through it every ARN, the
 *   API certificate check and the outputs);
 * - `npm run preflight` (its calls go to that region, and it checks the CLIs will reach it);
 * - the operators' CLIs (bin/api-key.ts, project.ts, redrive.ts, ses-reconcile.ts): `cliRegion()`.
 *
 * The functions never read this module: on Lambda they read AWS_REGION, which Lambda sets to the
 * region they run in (shared/platform/aws/region.ts), so DNS record values and message ids follow
 * the deployment. The local runtime keeps its own region (local/runtime.ts).
 *
 * The stack receives mail with SES email receiving (lib/inbound.ts: a receipt rule set), which SES
 * offers in some regions only; the stack refuses a region outside `SES_RECEIVING_REGIONS` rather than
 * fail halfway through a deploy. AWS adds regions now and then: when the AWS General Reference
 * ("Amazon Simple Email Service endpoints and quotas", Email receiving endpoints) lists yours and
 * this list does not yet, `-c sesReceivingInRegion=true` says so and the deploy goes ahead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const DEFAULT_REGION = 'ap-southeast-2';

/**
 * The regions with an SES email receiving endpoint (`inbound-smtp.<region>.amazonaws.com`), as the
 * AWS General Reference listed them in January 2024.
 */
export const SES_RECEIVING_REGIONS: readonly string[] = [
  'us-east-1',
  'us-east-2',
  'us-west-2',
  'ca-central-1',
  'eu-west-1',
  'eu-west-2',
  'eu-central-1',
  'ap-southeast-1',
  'ap-southeast-2',
  'ap-southeast-3',
  'ap-northeast-1',
];

/** The context value that vouches for SES receiving in a region `SES_RECEIVING_REGIONS` lacks. */
export const RECEIVING_OVERRIDE = 'sesReceivingInRegion';

const REGION_PATTERN = /^[a-z]{2}(-[a-z]+)+-\d$/;

/** The region named by the context (`-c region=...`), else the default; throws on what is not a region's code. */
export function stackRegion(context: Record<string, unknown>): string {
  const value = context.region ?? DEFAULT_REGION;
  if (typeof value !== 'string' || !REGION_PATTERN.test(value))
    throw new Error(`region must be an AWS region code like eu-west-1, got ${JSON.stringify(value)}`);
  return value;
}

/** Why the stack cannot be deployed to `region`, or undefined when it can (see the module comment). */
export function receivingProblem(region: string, context: Record<string, unknown>): string | undefined {
  if (SES_RECEIVING_REGIONS.includes(region)) return undefined;
  const vouched = context[RECEIVING_OVERRIDE];
  if (vouched === true || vouched === 'true') return undefined;
  return (
    `SES email receiving, which the stack uses for inbound mail, is not offered in ${region} as far as this service knows; ` +
    `it is in ${SES_RECEIVING_REGIONS.join(', ')}. Deploy to one of those, or, if the AWS General Reference ` +
    `(Amazon SES endpoints, "Email receiving endpoints") now lists ${region}, add -c ${RECEIVING_OVERRIDE}=true`
  );
}

/** The region the stack deploys to, checked (`stackRegion`, then `receivingProblem`): what `buildApp` gives the stack. */
export function deployRegion(context: Record<string, unknown>): string {
  const region = stackRegion(context);
  const problem = receivingProblem(region, context);
  if (problem) throw new Error(problem);
  return region;
}

const PROJECT_ROOT = resolve(__dirname, '..');

/** The context kept in files, as the CDK CLI reads it before any `-c`: cdk.json's, then cdk.context.json's. */
export function savedContext(root = PROJECT_ROOT): Record<string, unknown> {
  const read = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
  return { ...read(join(root, 'cdk.json')).context, ...read(join(root, 'cdk.context.json')) };
}

/**
 * The region the operators' CLIs talk to the deployed stack in: AWS_REGION when set (the SDK's own
 * variable, so an explicit choice wins), else the `region` of cdk.json / cdk.context.json, else the
 * default. `npm run preflight` fails when this differs from the region being deployed to, so after
 * a green preflight the CLIs reach the stack.
 */
export function cliRegion(
  env: NodeJS.ProcessEnv = process.env,
  context: Record<string, unknown> = savedContext(),
): string {
  // unchecked: a saved region that is no region's code is preflight's to report, not a CLI's to crash on
  return env.AWS_REGION || (typeof context.region === 'string' ? context.region : DEFAULT_REGION);
}
