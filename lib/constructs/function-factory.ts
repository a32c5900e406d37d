/**
 * How the constructs of the stack make their functions. They never build an `ApiFunction` or
 * grant anything themselves: the stack implements this with its one `grantNeeds`, the single
 * place a function's `needs` (functions/needs.ts) become IAM and the environment that goes with
 * each grant.
 */
import type { Duration } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { Needs } from '../../functions/needs';
import type { ApiFunction } from '../api-function';

export interface FunctionSpec {
  /** module under functions/, without extension, exporting `handler` */
  handler: string;
  /** everything the function may do on AWS, and nothing else */
  needs: Needs;
  /** default: a route's (ROUTE_TIMEOUT_SECONDS) */
  timeout?: Duration;
  /** MB: the function's declaration (functions/needs.ts `routeMemoryMb`, `workerMemoryMb`), which the local runtime checks invocations against */
  memoryMb: number;
  /** the console's files in the function's asset (lib/api-function.ts) */
  consoleAssets?: boolean;
}

export interface FunctionFactory {
  /** The function `id` (its name in `EmailServiceStack.functions`) in `scope`, granted exactly `spec.needs`. */
  makeFunction(scope: Construct, id: string, spec: FunctionSpec): ApiFunction;
}
