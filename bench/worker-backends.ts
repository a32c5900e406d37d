/**
 * What a worker benchmark runs its handler against, in its own process: DynamoDB Local with the
 * service's table, a local SQS (in its own process: bench/local-sqs-process.ts) and the local S3 stand-in in a folder of the run's, and the
 * environment the handlers read pointing at them (bench/contact-imports.ts, bench/broadcast-fanout.ts).
 * `stop` takes it all down and removes the folder.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoDbLocal } from '../local/aws/dynamodb';
import { startLocalS3 } from '../local/aws/s3';
import { freePort } from '../local/ports';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import { startLocalSqsProcess } from './local-sqs-process';

export const BENCH_REGION = 'ap-southeast-2';
/** what the bench's own stand-ins accept (they verify every signature) */
export const BENCH_CREDENTIALS = {
  accessKeyId: 'LKIABENCHSTANDIN2345',
  secretAccessKey: 'bench/stand+in/secret/0123456789abcdefgh',
};

export async function startWorkerBackends() {
  const region = BENCH_REGION;
  const credentials = BENCH_CREDENTIALS;
  const dynamo = await startDynamoDbLocal({ port: freePort });
  // in memory, in a process of its own: the messages a run leaves on its queues are not the measured function's memory
  const localSqs = await startLocalSqsProcess({ region, credentials });
  const sqsEndpoint = localSqs.endpoint;
  const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
  // each email's content (and an import's file) goes to the content bucket: the local S3 stand-in
  const s3Root = mkdtempSync(join(tmpdir(), 'email-service-bench-s3-'));
  const s3 = await startLocalS3(s3Root, { credentials });
  const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region, credentials });
  const stop = async () => {
    sqs.destroy();
    await new Promise((resolve) => s3.server.close(resolve));
    rmSync(s3Root, { recursive: true, force: true });
    await localSqs.close();
    await dynamo.stop();
  };
  try {
    await ensureTable(admin, LOCAL_TABLE_NAME);
  } catch (error) {
    await stop();
    throw error;
  }
  Object.assign(process.env, {
    TABLE_NAME: LOCAL_TABLE_NAME,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: sqsEndpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    CONTENT_BUCKET: 'bench-content',
    LOG_LEVEL: 'ERROR',
  });
  return { region, credentials, sqs, sqsEndpoint, s3Root, admin, writer: DynamoDBDocumentClient.from(admin), stop };
}
