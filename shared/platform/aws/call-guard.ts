/**
 * The one door every AWS call of the service passes: each SDK client is made with `guarded()`,
 * and the hand-signed S3 calls call `checkAwsCall` themselves. On AWS nothing stands behind the
 * door (IAM decides there) and the check is a property read. The local runtime installs a
 * checker (lib/local/lambda/needs.ts) that refuses a call outside the calling function's `needs`
 * (functions/needs.ts) with the error AWS gives, so every local test exercises the grants the
 * stack makes from the same declaration.
 */

/** What a function asks of AWS: the service, the API operation (`GetItem`, `SendMessageBatch`, `SendEmail`) and its input. */
export interface AwsCall {
  service: 'dynamodb' | 'sqs' | 'ses' | 's3';
  operation: string;
  input: unknown;
}

export type AwsCallChecker = (call: AwsCall) => void;

const CHECKER = Symbol.for('email-service.aws-call-checker');

/** Throws (AWS's AccessDeniedException) when the installed checker refuses the call; does nothing when none is installed. */
export function checkAwsCall(call: AwsCall): void {
  (globalThis as { [CHECKER]?: AwsCallChecker })[CHECKER]?.(call);
}

/** For the local runtime: the checker every guarded client consults. */
export function installAwsCallChecker(checker: AwsCallChecker | undefined): void {
  (globalThis as { [CHECKER]?: AwsCallChecker })[CHECKER] = checker;
}

interface MiddlewareClient {
  middlewareStack: {
    add(
      middleware: (next: (args: { input: unknown }) => Promise<unknown>, context: { commandName?: string }) => (args: { input: unknown }) => Promise<unknown>,
      options: { step: 'initialize'; name: string },
    ): void;
  };
}

/** The client, with the check before each of its calls (`GetItemCommand` -> operation `GetItem`). */
export function guarded<C>(service: AwsCall['service'], client: C): C {
  (client as unknown as MiddlewareClient).middlewareStack.add(
    (next, context) => async (args) => {
      checkAwsCall({ service, operation: (context.commandName ?? '').replace(/Command$/, ''), input: args.input });
      return next(args);
    },
    { step: 'initialize', name: 'awsCallGuard' },
  );
  return client;
}
