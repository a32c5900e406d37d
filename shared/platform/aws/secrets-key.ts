/**
 * The KMS key that wraps the data keys of sealed secrets (shared/platform/secrets.ts), and the
 * encryption context every use of it carries: the stack grants GenerateDataKey and Decrypt only with
 * this context (lib/api-function.ts `bindSecretsKey`) and the local runtime refuses a call without it.
 */
export const SECRETS_KEY_CONTEXT: Readonly<Record<string, string>> = { purpose: 'email-service-secret' };

/** The environment variable that names the key, on AWS and locally. */
export const SECRETS_KEY_VARIABLE = 'SECRETS_KEY_ARN';

export function secretsKeyArn(): string {
  const arn = process.env[SECRETS_KEY_VARIABLE];
  if (!arn) throw new Error(`${SECRETS_KEY_VARIABLE} is not set`);
  return arn;
}
