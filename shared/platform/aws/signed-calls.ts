/**
 * What the service's hand-signed AWS calls share (./s3.ts, ./kms.ts: small REST and JSON calls
 * signed with the SDK's own SigV4 signer instead of whole clients): the credentials of
 * the DynamoDB client's chain (on Lambda, the role's: ./lambda-credentials.ts), and the error a
 * service's refusal becomes.
 */
import type { AwsCredentialIdentity } from '@smithy/types';
import { documentClient } from '../db/client';

/** An AWS service refused a hand-signed call: its HTTP status and error code (`NoSuchKey`, `InvalidCiphertextException`). */
export class AwsCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export const signingCredentials = (): Promise<AwsCredentialIdentity> =>
  (documentClient.config.credentials as () => Promise<AwsCredentialIdentity>)();
