/**
 * The synthesized stack for the infra suites. A synth of this app costs seconds (more than 20 s the
 * first time in a process on a busy machine), so the suites synthesize the default app once and
 * share it: `synthesized()` is memoized per test file (jest gives every file its own module
 * registry, so once per file is what a memo can do; the construct tree the tests read cannot be
 * cached on disk), and the infra topics are one test file for that reason (test/infra/infra.test.ts
 * loads every `test/infra/*.infra.ts`). Tests that need another app (other context, bundling on)
 * call `synth(...)`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type App, type CfnElement, NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildApp, type EmailServiceStack } from '../../lib/email-service-stack';

/** cdk.json's feature flags: only the CDK CLI reads that file, so tests pass them like it does. */
export const cdkJsonContext: Record<string, unknown> = JSON.parse(
  fs.readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8'),
).context;

/** A template resource: its properties are arbitrary JSON, which the tests walk freely. */
export type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

export interface Synthesized {
  app: App;
  stack: EmailServiceStack;
  /** the parent stack's template */
  template: Template;
  /** the resources of the parent and of its nested stacks (the route groups), by logical id */
  resources: Record<string, Resource>;
}

/** A nested template's value with its parameters replaced by what the parent stack passes for them. */
function resolveParameters(value: unknown, parameters: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveParameters(v, parameters));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    if (
      entries.length === 1 &&
      entries[0][0] === 'Ref' &&
      typeof entries[0][1] === 'string' &&
      entries[0][1] in parameters
    )
      return parameters[entries[0][1]];
    return Object.fromEntries(entries.map(([k, v]) => [k, resolveParameters(v, parameters)]));
  }
  return value;
}

/**
 * A new app, synthesized: the stack's template, and the resources of it and of its nested stacks
 * in one map, the nested ones with their parameters resolved to the parent's values, so a test can
 * follow a route's function to its role, log group, integration and the table it names.
 */
export function synth(options: { bundle: boolean; context?: Record<string, unknown> }): Synthesized {
  const build = () => buildApp({ bundle: options.bundle, context: options.context ?? cdkJsonContext });
  const { app, stack } = options.bundle ? withEsbuildFromBin(build) : build();
  const template = Template.fromStack(stack);
  const resources: Record<string, Resource> = { ...template.toJSON().Resources };
  for (const nested of stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c))) {
    const parameters =
      resources[stack.getLogicalId(nested.nestedStackResource as CfnElement)].Properties.Parameters ?? {};
    for (const [id, resource] of Object.entries(
      Template.fromStack(nested).toJSON().Resources as Record<string, Resource>,
    )) {
      if (id in resources) throw new Error(`logical id ${id} is in two templates`);
      resources[id] = resolveParameters(resource, parameters) as Resource;
    }
  }
  return { app, stack, template, resources };
}

/**
 * NodejsFunction runs esbuild as `npx --no-install esbuild` when esbuild is a dependency of the
 * project: one npm start-up per function (about a second each, more on a busy machine, ~90
 * functions). For the test's bundled synth it runs node_modules/.bin/esbuild itself: the same
 * binary with the same arguments, so the bundles are the ones `cdk deploy` builds. This sets
 * aws-cdk-lib's cached esbuild detection (an internal: `Bundling.esbuildInstallation`); if a CDK
 * upgrade moves it, bundling goes back to npx, slower but the same.
 */
function withEsbuildFromBin<T>(build: () => T): T {
  const root = path.join(__dirname, '..', '..');
  let bundling: { esbuildInstallation?: { isWorkspacePackage: boolean; version: string } } | undefined;
  try {
    bundling = require(
      path.join(path.dirname(require.resolve('aws-cdk-lib/aws-lambda-nodejs')), 'lib', 'bundling.js'),
    ).Bundling;
  } catch {
    return build();
  }
  if (!bundling || !('esbuildInstallation' in bundling)) return build();
  const saved = { installation: bundling.esbuildInstallation, path: process.env.PATH };
  bundling.esbuildInstallation = { isWorkspacePackage: false, version: require('esbuild/package.json').version };
  process.env.PATH = `${path.join(root, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH ?? ''}`;
  try {
    return build();
  } finally {
    bundling.esbuildInstallation = saved.installation;
    if (saved.path === undefined) delete process.env.PATH;
    else process.env.PATH = saved.path;
  }
}

let shared: Synthesized | undefined;

/**
 * The app as `cdk synth` builds it (cdk.json's context), bundling skipped, synthesized once per
 * test file (for the infra topics: once). Read it, never change it: every describe block of the
 * file gets the same objects.
 */
export function synthesized(): Synthesized {
  shared ??= synth({ bundle: false });
  return shared;
}

/** The certificate of `tunedContext`'s custom API domain (ACM, in the stack's region). */
export const TUNED_CERTIFICATE_ARN = 'arn:aws:acm:ap-southeast-2:123456789012:certificate/abcd-1234';

/**
 * Every context value the infra suites set away from its default, in one app: each suite asserts
 * the part it is about (a synth costs seconds; one app for all of them instead of one each).
 */
export const tunedContext: Record<string, unknown> = {
  ...cdkJsonContext,
  alarmEmail: 'oncall@example.com',
  reputationBounceRate: '0.03',
  reputationMinSends: '500',
  lambdaConcurrencyQuota: 5000,
  apiRateLimit: 50,
  apiBurstLimit: 60,
  contactLimitPerProject: 5000,
  backupPlan: 'true',
  apiDomainName: 'email-api.example.com',
  apiCertificateArn: TUNED_CERTIFICATE_ARN,
  activateReceiptRuleSet: 'true',
  sesSendRate: '500',
  tracing: 'true',
  inboundRetentionDays: 90,
};

let tuned: Synthesized | undefined;

/** The app with `tunedContext`, bundling skipped, synthesized once per test file (for the infra topics: once). Read it, never change it. */
export function synthesizedTuned(): Synthesized {
  tuned ??= synth({ bundle: false, context: tunedContext });
  return tuned;
}
