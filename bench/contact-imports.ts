/**
 * Contact imports: a CSV of BENCH_IMPORT_ROWS contacts (100,000 by default) through the real
 * contact-imports worker handler (pages of 25 contacts, each one transaction with the import's
 * cursor), beside the raw BatchWriteItem rate of the same DynamoDB Local in the same run (the
 * same three items per contact: contact, address claim, event). Goal: at least half the raw rate.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoDbLocal } from '../lib/local/aws/dynamodb';
import { startLocalS3 } from '../lib/local/aws/s3';
import { freePort } from '../lib/local/ports';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import { writeRaw } from './raw-write';

export interface ContactImportsResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  rawContactsPerSecond: number;
  status: string;
  created: number;
  invocations: number;
}

export async function benchContactImports(rows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000)): Promise<ContactImportsResult> {
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  const region = 'ap-southeast-2';
  const dynamo = await startDynamoDbLocal({ port: freePort });
  const { createSqsServer } = await import('local-aws-sqs');
  const sqsServer = await createSqsServer({ port: 0, hostname: '127.0.0.1', region, emulateQueueCreationLifecycle: false });
  const sqsEndpoint = `http://127.0.0.1:${(sqsServer.address() as AddressInfo).port}`;
  const s3Root = mkdtempSync(join(tmpdir(), 'email-service-bench-s3-'));
  const s3 = await startLocalS3(s3Root);
  try {
    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region, credentials });
    await ensureTable(admin, LOCAL_TABLE_NAME);
    const writer = DynamoDBDocumentClient.from(admin);
    const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'contact-imports' }))).QueueUrl!;
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE_NAME,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SQS: sqsEndpoint,
      QUEUE_URL_CONTACT_IMPORTS: queueUrl,
      AWS_ENDPOINT_URL_S3: s3.endpoint,
      CONTENT_BUCKET: 'bench-content',
      LOG_LEVEL: 'ERROR',
    });
    const { handler } = await import('../functions/workers/contact-imports');
    const { createImport } = await import('../shared/audience/imports');
    const { getItem } = await import('../shared/platform/db/table');
    const keys = await import('../shared/platform/db/keys');
    const { newId, nowIso } = await import('../shared/platform/ids');

    // 1. the raw rate: the same three items per contact in another project, BatchWrite, 16 in flight
    const rawProject = newId();
    const at = nowIso();
    const items: Record<string, unknown>[] = [];
    for (let i = 0; i < rows; i++) {
      const id = newId();
      const email = `raw${i}@readers.example.com`;
      items.push(
        {
          ...keys.contact(rawProject, id),
          type: 'contact',
          project_id: rawProject,
          id,
          email,
          first_name: `Raw${i}`,
          last_name: null,
          unsubscribed: false,
          properties: {},
          segment_ids: [],
          topics: {},
          created_at: at,
          updated_at: at,
        },
        { ...keys.contactEmail(rawProject, email), type: 'contact_email', project_id: rawProject, contact_id: id },
        { ...keys.event(rawProject, newId()), type: 'event', project_id: rawProject, event_type: 'contact.created', data: { id, email }, created_at: at },
      );
    }
    const rawSeconds = await writeRaw(writer, LOCAL_TABLE_NAME, items);

    // 2. the import: accepted as the request does it, then the worker's invocations (each 120 s, continuing) until done
    const projectId = newId();
    const csv = ['email,first_name,last_name,plan', ...Array.from({ length: rows }, (_, i) => `reader${i}@readers.example.com,Reader${i},Lee,pro`)].join('\n');
    const started = process.hrtime.bigint();
    const { id } = await createImport(
      { projectId, livemode: true, permission: 'full_access' },
      { file: Buffer.from(csv).toString('latin1'), column_map: { properties: { plan: { column: 'plan' } } } },
    );
    let invocations = 0;
    let record: Record<string, any> | undefined;
    do {
      invocations++;
      const deadline = Date.now() + 120_000;
      await handler({ Records: [{ messageId: `m${invocations}`, body: JSON.stringify({ project_id: projectId, import_id: id }) }] } as never, {
        getRemainingTimeInMillis: () => deadline - Date.now(),
      });
      record = await getItem(keys.contactImport(projectId, id));
    } while (record?.status === 'in_progress' || record?.status === 'queued');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { rows, seconds, rowsPerSecond: rows / seconds, rawContactsPerSecond: rows / rawSeconds, status: String(record?.status), created: Number(record?.created), invocations };
  } finally {
    await new Promise((resolve) => s3.server.close(resolve));
    await new Promise((resolve) => sqsServer.close(resolve));
    await dynamo.stop();
    rmSync(s3Root, { recursive: true, force: true });
  }
}

export function formatContactImports(r: ContactImportsResult): string {
  return [
    '| what | rate |',
    '|---|---|',
    `| import of ${r.rows.toLocaleString('en')} rows (worker handler, ${r.invocations} invocation(s) of 120 s) | ${r.rowsPerSecond.toFixed(0)} rows/s (${r.seconds.toFixed(1)} s) |`,
    `| raw DynamoDB Local BatchWriteItem of the same 3 items per contact (16 in flight) | ${r.rawContactsPerSecond.toFixed(0)} contacts/s |`,
    '',
    `The import is ${((r.rowsPerSecond / r.rawContactsPerSecond) * 100).toFixed(0)}% of the raw write rate (goal: at least 50%); status ${r.status}, ${r.created.toLocaleString('en')} created.`,
  ].join('\n');
}
