/**
 * Credentials for calling the local stand-ins (S3, KMS, SQS, the SES front), which verify every
 * request's SigV4 signature (local/aws/sigv4.ts):
 * - `runtimeCredentials()`: the shared test runtime's, generated at its start and kept in
 *   TEST_DATA_DIR/credentials.json (local/aws/credentials.ts), as a script finds them in DATA_DIR;
 * - `OWN_STAND_IN_CREDENTIALS`: for suites that start a stand-in of their own in process, given to
 *   the stand-in and to the suite's clients alike.
 * DynamoDB Local accepts any credentials.
 */
import { readStandInCredentials, type StandInCredentials } from '../../local/aws/credentials';

export function runtimeCredentials(dataDir = process.env.TEST_DATA_DIR): StandInCredentials {
  if (!dataDir) throw new Error('TEST_DATA_DIR is not set: run the suites through jest');
  return readStandInCredentials(dataDir);
}

export const OWN_STAND_IN_CREDENTIALS: StandInCredentials = {
  accessKeyId: 'LKIATESTSTANDIN23456',
  secretAccessKey: 'own/stand+in/secret/for/tests/0123456789',
};
