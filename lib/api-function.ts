/**
 * The one way this project makes a Lambda function: runtime, architecture, log group and
 * bundling are fixed here so every function is built exactly like the bundle-size benchmark
 * measures it (lib/bundling.ts), and table access is granted per action, never `grantReadWriteData`.
 */
import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ROUTE_TIMEOUT_SECONDS, type SesAction, type TableAction } from '../functions/needs';
import { BUNDLE_ALIAS, BUNDLE_BANNER, BUNDLE_MAIN_FIELDS, BUNDLE_TARGET } from './bundling';

/** Repository root: esbuild resolves the `#shared/*` imports from its package.json. */
export const PROJECT_ROOT = path.resolve(__dirname, '..');

export interface ApiFunctionProps {
  /** module under functions/, without extension, exporting `handler` (as `Route.handler`) */
  handler: string;
  /** how long CloudWatch keeps the function's logs */
  logRetention?: logs.RetentionDays;
  timeout?: Duration;
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
    super(scope, id, {
      entry: path.join(PROJECT_ROOT, 'functions', `${props.handler}.ts`),
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      // Graviton: cheaper per GB-second than x86, and nothing here is native code.
      architecture: lambda.Architecture.ARM_64,
      // Lambda gives CPU in proportion to memory, and loading a ~400 KB bundle (70 ms init
      // budget) is CPU-bound; 256 MB doubles 128 MB's CPU share while requests are short I/O waits.
      memorySize: 256,
      timeout: props.timeout ?? Duration.seconds(ROUTE_TIMEOUT_SECONDS),
      logGroup,
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      bundling: {
        minify: true,
        // Off: a source map doubles the bundle and NODE_OPTIONS=--enable-source-maps slows init.
        sourceMap: false,
        format: OutputFormat.ESM,
        target: BUNDLE_TARGET,
        mainFields: BUNDLE_MAIN_FIELDS,
        banner: BUNDLE_BANNER,
        // Bundle the AWS SDK too (lib/bundling.ts says why).
        externalModules: [],
        // NodejsFunction has no `alias` option; the CLI flag is the same thing.
        esbuildArgs: { '--alias': Object.entries(BUNDLE_ALIAS).map(([from, to]) => `${from}=${to}`) },
      },
    });
  }

  /**
   * Tells the function which table to use and allows exactly `actions` on it and its indexes,
   * together, so a function can never know the table without its grant or the reverse.
   * No actions: the name only (the shared DB client needs it to load), no permission at all.
   */
  bindTable(table: dynamodb.ITable, actions: readonly TableAction[]): this {
    this.addEnvironment('TABLE_NAME', table.tableName);
    if (actions.length > 0) {
      this.addToRolePolicy(
        new iam.PolicyStatement({
          actions: actions.map((action) => `dynamodb:${action}`),
          resources: [table.tableArn, `${table.tableArn}/index/*`],
        }),
      );
    }
    return this;
  }

  /**
   * Allows exactly `actions` (SES v2 IAM actions, `ses:CreateEmailIdentity`) and nothing else of
   * SES. On `*`: the identities and configuration sets a function works on are named after
   * customers' domains and ids created at run time, so their ARNs are not known when the stack is
   * built. No actions: no statement at all.
   */
  bindSes(actions: readonly SesAction[]): this {
    if (actions.length > 0) this.addToRolePolicy(new iam.PolicyStatement({ actions: [...actions].sort(), resources: ['*'] }));
    return this;
  }
}
