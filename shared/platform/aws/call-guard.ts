/**
 * The one door every AWS call of the service passes: each SDK client is made with `guarded()`,
 * and the hand-signed S3, KMS and Scheduler calls call `checkAwsCall` themselves. On AWS nothing stands behind the
 * door (IAM decides there) and the check is a property read. The local runtime installs a
 * checker (local/lambda/needs.ts) that refuses a call outside the calling function's `needs`
 * (functions/needs.ts) with the error AWS gives, so every local test exercises the grants the
 * stack makes from the same declaration.
 */

/** What a function asks of AWS: the service, the API operation (`GetItem`, or as the SDK names its command, `GetItemCommand`) and its input. */
export interface AwsCall {
  service: 'dynamodb' | 'sqs' | 'ses' | 's3' | 'kms' | 'scheduler';
  operation: string;
  input: unknown;
}

export type AwsCallChecker = (call: AwsCall) => void;

// The global the local runtime sets, named out in full where it is read (every bundle carries these bytes).
declare global {
  var __awsCallChecker: AwsCallChecker | undefined;
  var __awsGrantScope: (() => string) | undefined;
}

/**
 * Whose grants the calling code runs under: '' on AWS, where a process is one function; locally,
 * where every function shares one process, the running function's name. A per-process cache of
 * something a grant fetched (a data key, a decrypted secret) is kept per scope, so locally no
 * function uses what only another function's grant could fetch.
 */
export const grantScope = (): string => globalThis.__awsGrantScope?.() ?? '';

/** For the local runtime: tells `grantScope` which function is running. */
export function installGrantScope(scope: (() => string) | undefined): void {
  globalThis.__awsGrantScope = scope;
}

/** Throws (AWS's AccessDeniedException) when the installed checker refuses the call; does nothing when none is installed. */
export function checkAwsCall(call: AwsCall): void {
  globalThis.__awsCallChecker?.(call);
}

/** For the local runtime: the checker every guarded client consults. */
export function installAwsCallChecker(checker: AwsCallChecker | undefined): void {
  globalThis.__awsCallChecker = checker;
}

interface MiddlewareClient {
  middlewareStack: {
    /** a middleware of the `initialize` step, the first (the SDK's default step) */
    add(
      middleware: (
        next: (args: { input: unknown }) => Promise<unknown>,
        context: { commandName?: string },
      ) => (args: { input: unknown }) => Promise<unknown>,
    ): void;
  };
}

/** The client, with the check before each of its calls (the operation as the SDK names its command: `GetItemCommand`). */
export function guarded<C>(service: AwsCall['service'], client: C): C {
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next, context) => (args) => (
      globalThis.__awsCallChecker?.({ service, operation: context.commandName ?? '', input: args.input }), next(args)
    ),
  );
  return client;
}
