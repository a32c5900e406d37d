/**
 * The one way this project makes a Lambda function: runtime, architecture, log group and
 * bundling are fixed here so every function is built exactly like the bundle-size benchmark
 * measures it (lib/bundling.ts), and table access is granted per action, never `grantReadWriteData`.
 */
import * as path from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { wholeNumberFromContext } from './context';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  ROUTE_TIMEOUT_SECONDS,
  SECRETS_KEY_ACTIONS,
  type Needs,
  type SesAction,
  type TableAction,
} from '../functions/needs';
import { CONFIGURATION_SET_PREFIX } from '../shared/domains/model';
import { SECRETS_KEY_CONTEXT, SECRETS_KEY_VARIABLE } from '../shared/platform/aws/secrets-key';
import { bundleOptions } from './bundling';

/** Repository root: esbuild resolves the `#shared/*` imports from its package.json. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');

export interface ApiFunctionProps {
  /** module under functions/, without extension, exporting `handler` (as `Route.handler`) */
  handler: string;
  /** how long CloudWatch keeps the function's logs */
  logRetention?: logs.RetentionDays;
  timeout?: Duration;
  /** MB, from the function's declaration (functions/needs.ts `routeMemoryMb`, `workerMemoryMb`): no default, so nothing is deployed with a figure the local runtime does not check */
  memoryMb: number;
  /**
   * The web console's files go into the function's asset, in `dashboard/` beside index.mjs, where
   * functions/dashboard/serve.ts reads them: built after the bundle by functions/dashboard/build.ts
   * (the same esbuild, run by tsx from the project), so the handler's own bundle stays a few KB.
   */
  consoleAssets?: boolean;
}

export class ApiFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    // An explicit log group (not the deprecated logRetention custom resource) so retention is a
    // plain CloudFormation property and the logs go away with the stack. Created in the parent
    // scope because a subclass cannot create children of itself before super().
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const entry = path.join(PROJECT_ROOT, 'functions', `${props.handler}.ts`);
    // lib/bundling.ts's options, the ones the bundle test builds every function with (test/infra/bundles.test.ts)
    const esbuild = bundleOptions(PROJECT_ROOT, entry);
    super(scope, id, {
      entry,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      // Graviton: cheaper per GB-second than x86, and nothing here is native code.
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memoryMb,
      timeout: props.timeout ?? Duration.seconds(ROUTE_TIMEOUT_SECONDS),
      logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        minify: esbuild.minify,
        // Off: a source map doubles the bundle and NODE_OPTIONS=--enable-source-maps slows init.
        sourceMap: false,
        format: { esm: OutputFormat.ESM, cjs: OutputFormat.CJS }[esbuild.format],
        target: esbuild.target,
        mainFields: esbuild.mainFields,
        banner: esbuild.banner.js,
        // Bundle the AWS SDK too (lib/bundling.ts says why).
        externalModules: [],
        // NodejsFunction has no `alias` option; the CLI flag is the same thing.
        esbuildArgs: { '--alias': Object.entries(esbuild.alias).map(([from, to]) => `${from}=${to}`) },
        ...(props.consoleAssets ? { commandHooks: consoleAssetsHooks } : {}),
      },
    });
  }

  /**
   * Tells the function which table to use and allows exactly `actions` on it and its indexes,
   * together, so a function can never know the table without its grant or the reverse.
   * No actions: the name only (the shared DB client needs it to load), no permission at all.
   */
  bindTable(table: dynamodb.ITable, actions: readonly TableAction[], byKeys: Needs['tableByKeys'] = {}): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    // `-c contactLimitPerProject`: the contacts a project may hold unless it has a limit of its own
    // (unset: the code's default, shared/project/settings.ts), for whichever function creates contacts
    const contactLimit = wholeNumberFromContext(this, 'contactLimitPerProject', 0, 1);
    if (actions.length > 0 && contactLimit > 0) this.addEnvironment('CONTACT_LIMIT_PER_PROJECT', String(contactLimit));
    if (actions.length > 0) {
      this.addToRolePolicy(
        new iam.PolicyStatement({
          actions: actions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn, `${table.tableArn}/index/*`],
        }),
      );
    }
    // actions on items of some partitions only (`Needs.tableByKeys`): the table itself, IAM's LeadingKeys condition
    for (const [action, patterns] of Object.entries(byKeys)) {
      this.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [`dynamodb:${action}`],
          resources: [table.tableArn],
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...(patterns ?? [])] } },
        }),
      );
    }
    const all = [...actions, ...(Object.keys(byKeys) as TableAction[])];
    if (all.length > 0) {
      // The table's customer managed key, as DynamoDB uses it for the caller, reads and writes alike:
      // DynamoDB protects items with a table key of its own, which it decrypts with this key on the
      // caller's behalf (kms:Decrypt; DescribeKey for the key's metadata) and caches; it never
      // calls Encrypt or GenerateDataKey for an item operation (GenerateDataKey only at table
      // creation, as the table's creator). A PutItem or DeleteItem without Decrypt is refused
      // (aws-cdk#10010, #19531: Decrypt is what made writes work); Encrypt was granted by habit.
      if (table.encryptionKey) table.encryptionKey.grant(this, 'kms:Decrypt', 'kms:DescribeKey');
    }
    return this;
  }

  /**
   * Tells the function the secrets key (shared/platform/secrets.ts) and allows what `access` says
   * on it (GenerateDataKey to seal, Decrypt to open), only with the service's encryption context:
   * the same key used any other way is refused.
   */
  bindSecretsKey(key: kms.IKey, access: NonNullable<Needs['secretsKey']>): this {
    this.addEnvironment(SECRETS_KEY_VARIABLE, key.keyArn);
    const conditions = {
      StringEquals: Object.fromEntries(
        Object.entries(SECRETS_KEY_CONTEXT).map(([name, value]) => [`kms:EncryptionContext:${name}`, value]),
      ),
    };
    this.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...SECRETS_KEY_ACTIONS[access]], resources: [key.keyArn], conditions }),
    );
    return this;
  }

  /**
   * Allows exactly `actions` (SES v2 IAM actions, `ses:CreateEmailIdentity`) and nothing else of
   * SES, each on the resources it acts on (sesResources): this account's identities in this
   * region, and the service's configuration sets (`es-<domain id>`); GetAccount has no resource.
   */
  bindSes(actions: readonly SesAction[]): this {
    const byResources = new Map<string, SesAction[]>();
    for (const action of actions) {
      const resources = sesResources(Stack.of(this), action).join(' ');
      byResources.set(resources, [...(byResources.get(resources) ?? []), action]);
    }
    for (const [resources, grouped] of byResources)
      this.addToRolePolicy(new iam.PolicyStatement({ actions: grouped.sort(), resources: resources.split(' ') }));
    return this;
  }
}

/** Bundling hooks that build the console into the function's asset (`ApiFunctionProps.consoleAssets`). */
const consoleAssetsHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (inputDir: string, outputDir: string) => [
    `node "${path.join(inputDir, 'node_modules', 'tsx', 'dist', 'cli.mjs')}" "${path.join(inputDir, 'functions', 'dashboard', 'build.ts')}" "${path.join(outputDir, 'dashboard')}"`,
  ],
};

/** The ARN pattern of the service's SES tenants (`es-<project id>/<tenant id>`, shared/domains/tenants.ts), in this account and region. */
export const serviceTenantsArn = (stack: Stack): string =>
  stack.formatArn({
    service: 'ses',
    resource: 'tenant',
    resourceName: 'es-*',
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });

/** The ARN pattern of the service's SES configuration sets (`es-*`, shared/domains/identity.ts), in this account and region. */
export const serviceConfigurationSetsArn = (stack: Stack): string =>
  stack.formatArn({
    service: 'ses',
    resource: 'configuration-set',
    resourceName: `${CONFIGURATION_SET_PREFIX}*`,
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });

/**
 * Where an SES v2 action applies: identity actions on this account's identities in this region
 * (customers' domains, named at run time), configuration-set actions on the service's own
 * (`es-*`, shared/domains/identity.ts), SendEmail on both (SES authorizes the From identity and
 * the configuration set), GetAccount on `*` (it has no resource type).
 */
export function sesResources(stack: Stack, action: SesAction): string[] {
  const identities = stack.formatArn({
    service: 'ses',
    resource: 'identity',
    resourceName: '*',
    arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
  });
  const configurationSets = serviceConfigurationSetsArn(stack);
  const tenants = serviceTenantsArn(stack);
  if (action === 'ses:GetAccount') return ['*'];
  if (action === 'ses:SendEmail') return [identities, configurationSets, tenants]; // a send names the project's tenant
  if (action === 'ses:CreateTenantResourceAssociation') return [tenants, identities, configurationSets];
  if (action === 'ses:GetReputationEntity') return [tenants]; // GET /project reads its tenant's reputation entity
  if (action === 'ses:UpdateReputationEntityPolicy')
    return [tenants, `arn:${stack.partition}:ses:${stack.region}:aws:reputation-policy/*`]; // SES's managed policies
  if (action.includes('Tenant') || action === 'ses:TagResource') return [tenants]; // TagResource: the tag on CreateTenant
  if (action.includes('ConfigurationSet')) return [configurationSets];
  if (action.includes('EmailIdentity')) return [identities, configurationSets];
  throw new Error(`no SES resource known for ${action}: add it to sesResources (lib/api-function.ts)`);
}
