/**
 * Direct access to the test runtime's table, for tests that check what a request wrote (the
 * outbox event of a change) or that need a second project. Points the shared data modules at
 * the runtime's DynamoDB Local (and its S3 stand-in's buckets and KMS stand-in's secrets key) through the same variables the handlers use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeCredentials } from './stand-ins';

export interface RuntimeInfo {
  apiUrl: string;
  dynamoDbEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  mailViewerUrl: string;
  tableName: string;
  projectId: string;
  s3Endpoint: string;
  kmsEndpoint: string;
  secretsKeyArn: string;
  inboundBucket: string;
  contentBucket: string;
}

export function useRuntimeTable(): RuntimeInfo {
  const dataDir = process.env.TEST_DATA_DIR;
  if (!dataDir) throw new Error('TEST_DATA_DIR is not set: run the suites through jest');
  const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as RuntimeInfo;
  const credentials = runtimeCredentials(dataDir); // the stand-ins check every signature
  Object.assign(process.env, {
    TABLE_NAME: runtime.tableName,
    AWS_ENDPOINT_URL_DYNAMODB: runtime.dynamoDbEndpoint,
    AWS_ENDPOINT_URL_S3: runtime.s3Endpoint,
    AWS_ENDPOINT_URL_KMS: runtime.kmsEndpoint,
    SECRETS_KEY_ARN: runtime.secretsKeyArn,
    INBOUND_BUCKET: runtime.inboundBucket,
    CONTENT_BUCKET: runtime.contentBucket,
    AWS_REGION: 'ap-southeast-2',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
  return runtime;
}

/** A second project with its own live key, to prove that one project never sees another's resources. */
export async function createOtherProject(): Promise<{ projectId: string; key: string }> {
  const { createProject } = await import('../../shared/project/projects');
  const { createApiKey } = await import('../../shared/access/api-keys');
  const project = await createProject('other');
  const { token } = await createApiKey(
    { projectId: project.id, livemode: true, permission: 'full_access' },
    { name: 'other', mode: 'live' },
  );
  return { projectId: project.id, key: token };
}

/**
 * A project's stored event items (the outbox), oldest first: its newest `max`, read through the keys
 * module (events are sharded). Each item's `event` as it leaves the service (webhooks, GET /events):
 * with Resend's flat fields, which the item itself does not store.
 */
export async function projectEvents(projectId: string, max = 1000): Promise<Record<string, any>[]> {
  const keys = await import('../../shared/platform/db/keys');
  const { queryPage } = await import('../../shared/platform/db/table');
  const { withResendFields } = await import('../../shared/events/events');
  const { items } = await queryPage(keys.events(projectId), { limit: max });
  return items.reverse().map((item) => ({ ...item, event: withResendFields(item.event) }));
}
