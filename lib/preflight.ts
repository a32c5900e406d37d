/**
 * `npm run preflight` (bin/preflight.ts): read-only calls with the operator's credentials before the
 * first `cdk deploy`, each turned into a check with what to fix. Nothing is changed in the account.
 *
 * - the region: the context's `region` (lib/region.ts, default ap-southeast-2) offers SES receiving,
 *   and the operators' CLIs (`cliRegion`: AWS_REGION, else the saved context) will talk to it;
 *   every call below goes to that region;
 * - SES (v2 GetAccount): production access (a sandbox account sends only to verified addresses),
 *   sending enabled, the account's standing, and its quotas (the send rate to deploy with);
 * - SES receiving (v1 DescribeActiveReceiptRuleSet): an account and region has ONE active receipt
 *   rule set, so activating the stack's replaces another team's;
 * - Lambda (GetAccountSettings): the concurrency quota (a new account's is 10);
 * - the alarm subscriber (no AWS call): the context the deploy will use (cdk.json, cdk.context.json
 *   and the `-c` values given to preflight as to `cdk deploy`) names `alarmEmail`, or no one receives
 *   the alarms. A loud warning, not a failure: a pager or chat may subscribe to the AlarmTopicArn
 *   output outside the stack, which nothing here can see before the deploy (`cdk deploy` warns too).
 *
 * SES v1 and Lambda have no client in this project: those two calls are signed with the SDK's own
 * SigV4 signer. Endpoints follow the SDK's `AWS_ENDPOINT_URL_<SERVICE>` convention, which is how
 * test/unit/preflight.test.ts points them at stubbed answers.
 */
import { GetAccountCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity } from '@smithy/types';
import { Sha256 } from '../shared/platform/aws/sha256';
import { NO_ALARM_SUBSCRIBER } from './constructs/monitoring';
import { receivingProblem, SES_RECEIVING_REGIONS, stackRegion } from './region';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  /** what to do, when the status is not ok */
  fix?: string;
}

export interface PreflightOptions {
  /** the region the operators' CLIs will use (lib/region.ts `cliRegion`), which must be the stack's */
  cliRegion: string;
  /** the operator's credentials (the SDK's default chain in bin/preflight.ts) */
  credentials: () => Promise<AwsCredentialIdentity>;
  /** the stack's rule set name starts with this (CloudFormation names it after the stack) */
  stackName: string;
  env?: NodeJS.ProcessEnv;
  /** the CDK context the deploy will use (bin/preflight.ts: cdk.json, cdk.context.json, `-c name=value`) */
  context?: Record<string, unknown>;
}

/** The options with the region the stack deploys to, which every call goes to. */
type RegionalOptions = PreflightOptions & { region: string };

/** A signed call to an AWS API the project has no client for. */
async function signedFetch(
  options: RegionalOptions,
  service: string,
  url: URL,
  method: 'GET' | 'POST',
  body?: string,
): Promise<string> {
  const signer = new SignatureV4({ service, region: options.region, credentials: options.credentials, sha256: Sha256 });
  const headers: Record<string, string> = {
    host: url.host,
    ...(body ? { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' } : {}),
  };
  const signed = await signer.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    headers,
    body,
  });
  const response = await fetch(url, { method, headers: signed.headers, body });
  const text = await response.text();
  if (!response.ok) throw new Error(`${service} answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

const endpoint = (env: NodeJS.ProcessEnv, variable: string, fallback: string) => new URL(env[variable] || fallback);

async function checkSes(options: RegionalOptions): Promise<Check[]> {
  const client = new SESv2Client({ region: options.region, credentials: options.credentials, maxAttempts: 2 });
  try {
    const account = await client.send(new GetAccountCommand({}));
    const quota = account.SendQuota ?? {};
    const checks: Check[] = [];
    checks.push(
      account.ProductionAccessEnabled
        ? { name: 'SES production access', status: 'ok', detail: 'the account may send to any address' }
        : {
            name: 'SES production access',
            status: 'fail',
            detail: 'the account is in the SES sandbox: it sends only to verified addresses, at 1 email a second',
            fix: `SES console (${options.region}) -> Account dashboard -> Request production access (docs/deploying.md: AWS answers in about a day)`,
          },
    );
    const standing = account.EnforcementStatus ?? 'HEALTHY';
    checks.push(
      account.SendingEnabled === false || standing === 'SHUTDOWN'
        ? {
            name: 'SES sending',
            status: 'fail',
            detail: `sending is ${account.SendingEnabled === false ? 'disabled' : 'shut down'} (${standing})`,
            fix: 'see the SES console account dashboard and AWS Support',
          }
        : standing === 'PROBATION'
          ? {
              name: 'SES sending',
              status: 'warn',
              detail: 'the account is on probation (bounces or complaints)',
              fix: 'bring the bounce and complaint rates down before sending more',
            }
          : { name: 'SES sending', status: 'ok', detail: `enabled, ${standing.toLowerCase()}` },
    );
    const rate = quota.MaxSendRate ?? 1;
    checks.push({
      name: 'SES quotas',
      status: 'ok',
      detail: `${rate} emails a second, ${quota.Max24HourSend ?? '?'} a day (${quota.SentLast24Hours ?? 0} sent in the last 24 hours): deploy with \`-c sesSendRate=${rate}\``,
    });
    return checks;
  } finally {
    client.destroy();
  }
}

async function checkReceiving(options: RegionalOptions): Promise<Check> {
  const env = options.env ?? process.env;
  const xml = await signedFetch(
    options,
    'ses',
    endpoint(env, 'AWS_ENDPOINT_URL_SES', `https://email.${options.region}.amazonaws.com/`),
    'POST',
    'Action=DescribeActiveReceiptRuleSet&Version=2010-12-01',
  );
  const active = /<Metadata>[\s\S]*?<Name>([^<]+)<\/Name>/.exec(xml)?.[1];
  if (!active)
    return {
      name: 'SES receiving',
      status: 'ok',
      detail:
        "no receipt rule set is active: the stack's can be, with `-c activateReceiptRuleSet=true` or after the deploy by hand",
    };
  if (active.startsWith(options.stackName))
    return {
      name: 'SES receiving',
      status: 'ok',
      detail: `the stack's receipt rule set (${active}) is the active one`,
    };
  return {
    name: 'SES receiving',
    status: 'warn',
    detail: `another receipt rule set is active (${active}): an account and region has one, so activating the stack's stops that one receiving mail`,
    fix: 'agree with its owner first; sending works without receiving (leave activateReceiptRuleSet off), or move its rules into one set',
  };
}

/** The concurrency the service needs at the least: the API's routes and the workers at their maximum concurrency. */
export const MIN_CONCURRENCY_QUOTA = 100;

async function checkLambda(options: RegionalOptions): Promise<Check> {
  const env = options.env ?? process.env;
  const base = endpoint(env, 'AWS_ENDPOINT_URL_LAMBDA', `https://lambda.${options.region}.amazonaws.com/`);
  const settings = JSON.parse(
    await signedFetch(options, 'lambda', new URL('/2016-08-19/account-settings/', base), 'GET'),
  ) as { AccountLimit?: { ConcurrentExecutions?: number } };
  const quota = settings.AccountLimit?.ConcurrentExecutions ?? 0;
  if (quota < MIN_CONCURRENCY_QUOTA) {
    return {
      name: 'Lambda concurrency',
      status: 'fail',
      detail: `the account may run ${quota} functions at once (a new account's quota), fewer than the service's ${MIN_CONCURRENCY_QUOTA}`,
      fix: 'Service Quotas -> AWS Lambda -> Concurrent executions: request 1,000 (usually granted within a day)',
    };
  }
  return {
    name: 'Lambda concurrency',
    status: 'ok',
    detail: `${quota} concurrent executions: deploy with \`-c lambdaConcurrencyQuota=${quota}\``,
  };
}

export const ALARM_SUBSCRIBER_CHECK = 'Alarm subscriber';

/** Whether someone receives the alarms: `alarmEmail` in the deploy's context (lib/constructs/monitoring.ts subscribes it). */
export function checkAlarmSubscriber(context: Record<string, unknown> = {}): Check {
  const email = context.alarmEmail;
  if (typeof email === 'string' && email.includes('@'))
    return {
      name: ALARM_SUBSCRIBER_CHECK,
      status: 'ok',
      detail: `every alarm emails ${email} (confirm the subscription AWS mails after the deploy)`,
    };
  return {
    name: ALARM_SUBSCRIBER_CHECK,
    status: 'warn',
    detail: NO_ALARM_SUBSCRIBER,
    fix: 'cdk deploy -c alarmEmail=oncall@example.com (and npm run preflight -- -c alarmEmail=... to check it), or subscribe a pager or chat to the AlarmTopicArn output',
  };
}

/** The region the stack deploys to (the context's `region`), whether SES receives mail there, and whether the CLIs will reach it. */
export function checkRegion(region: string, cliRegion: string, context: Record<string, unknown>): Check {
  const noReceiving = receivingProblem(region, context);
  if (noReceiving)
    return {
      name: 'Region',
      status: 'fail',
      detail: noReceiving,
      fix: `-c region=<one of ${SES_RECEIVING_REGIONS.join(', ')}>`,
    };
  if (cliRegion !== region) {
    return {
      name: 'Region',
      status: 'fail',
      detail: `the stack deploys to ${region}, but the CLIs (npm run api-key, redrive, ses-reconcile) would talk to ${cliRegion} (AWS_REGION, else "region" in cdk.context.json)`,
      fix: `export AWS_REGION=${region}, or put "region": "${region}" in cdk.context.json and deploy without -c region`,
    };
  }
  return { name: 'Region', status: 'ok', detail: `${region} (-c region=${region}; the CLIs use it too)` };
}

/** Every check; a call that fails becomes a failed check that says so, never a crash. */
export async function preflight(options: PreflightOptions): Promise<Check[]> {
  const context = options.context ?? {};
  let region: string;
  try {
    region = stackRegion(context);
  } catch (error) {
    // a region that is no region's code: no call can go anywhere
    return [
      {
        name: 'Region',
        status: 'fail',
        detail: (error as Error).message,
        fix: '-c region=<an AWS region code, like eu-west-1>',
      },
      checkAlarmSubscriber(context),
    ];
  }
  const checks: Check[] = [checkRegion(region, options.cliRegion, context)];
  const regional = { ...options, region };
  const failed =
    (name: string) =>
    (error: unknown): Check[] => [
      {
        name,
        status: 'fail',
        detail: `could not ask AWS: ${(error as Error).message}`,
        fix: 'check the credentials (aws sts get-caller-identity) and their permissions',
      },
    ];
  checks.push(...(await checkSes(regional).catch(failed('SES account'))));
  checks.push(...(await checkReceiving(regional).then((c) => [c], failed('SES receiving'))));
  checks.push(...(await checkLambda(regional).then((c) => [c], failed('Lambda concurrency'))));
  checks.push(checkAlarmSubscriber(options.context));
  return checks;
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'WARN', fail: 'FAIL' };

/** The report as the CLI prints it: one line per check, and what to do under each that is not ok. */
export function formatPreflight(checks: Check[]): string {
  const lines = checks.flatMap((c) => [
    `${MARK[c.status]} ${c.name}: ${c.detail}`,
    ...(c.fix ? [`     fix: ${c.fix}`] : []),
  ]);
  const failures = checks.filter((c) => c.status === 'fail').length;
  // said again last, where it cannot scroll away unseen
  if (checks.some((c) => c.name === ALARM_SUBSCRIBER_CHECK && c.status !== 'ok'))
    lines.push('', `!!! ${NO_ALARM_SUBSCRIBER} !!!`);
  lines.push('', failures ? `${failures} check(s) failed: fix them before \`cdk deploy\`.` : 'Ready for `cdk deploy`.');
  return lines.join('\n');
}
