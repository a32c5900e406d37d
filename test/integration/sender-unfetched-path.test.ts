/**
 * The sender never fetches (shared/emails/sender.ts, shared/emails/attachment-fetch.ts): an email
 * accepted before there was a fetch stage, whose `path` attachment has no stored bytes and which is
 * not marked for the stage, is marked (`attachments_pending`) and left waiting, neither fetched,
 * sent nor failed; the due-email dispatcher then routes it to the fetch stage (./due.ts,
 * firstQueueOf). The real sender handler, run as its function, against a table of this test's own.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createTableInput } from '../../lib/table-definition';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { domainClaimKey } from '../../shared/domains/domains';
import { putEmailContent } from '../../shared/emails/content';
import { emailWrites, type EmailItem } from '../../shared/emails/emails';
import type { Caller } from '../../shared/platform/caller';
import * as keys from '../../shared/platform/db/keys';
import { getItem, put, putItem, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { sqsRecord } from '../support/sqs';
import { useRuntimeTable } from '../support/table';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: runtimeCredentials() };
const tableName = `sender-unfetched-${newId().slice(-12)}`;
const savedTable = process.env.TABLE_NAME;
let dynamo: DynamoDBClient;
let files: Server;
let requests = 0;
let sender: (event: SQSEvent) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false })));
  files = createServer((_request, response) => {
    requests += 1;
    response.end('the file');
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  process.env.TABLE_NAME = tableName;
  const { handler } = await import('../../functions/workers/sender');
  sender = (event) => invoke(workerFunction('sender'), handler as never, event) as Promise<SQSBatchResponse>;
});

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  await new Promise((resolve) => files.close(resolve));
  if (savedTable === undefined) delete process.env.TABLE_NAME;
  else process.env.TABLE_NAME = savedTable;
  dynamo.destroy();
});

it('marks an email whose path attachment was never fetched for the fetch stage, and fetches nothing', async () => {
  const caller: Caller = { projectId: newId(), livemode: true, permission: 'full_access' };
  const name = `d-${newId().slice(-12)}.example.com`;
  await putItem(
    put({
      ...domainClaimKey(caller.projectId, name),
      type: 'domain_name',
      project_id: caller.projectId,
      domain_id: newId(),
      name,
      state: 'active',
      status: 'verified',
      sending: 'enabled',
    }),
  );
  const id = newId();
  const path = `http://127.0.0.1:${(files.address() as AddressInfo).port}/report.pdf`;
  await putEmailContent(caller.projectId, id, {
    html: null,
    text: 'see attached',
    headers: {},
    attachments: [
      { id: newId(), filename: 'report.pdf', content_type: 'application/pdf', content_id: null, size: null, path },
    ],
  });
  const email: EmailItem = {
    object: 'email',
    id,
    project_id: caller.projectId,
    livemode: true,
    message_id: null,
    from: `files@${name}`,
    to: ['reader@example.com'],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 'from before the fetch stage',
    tags: [],
    last_event: 'queued',
    scheduled_at: null,
    created_at: new Date().toISOString(),
  };
  await transact(emailWrites(caller, email));

  const event: SQSEvent = {
    Records: [
      sqsRecord(
        'm-1',
        JSON.stringify({ project_id: caller.projectId, email_id: id }),
        'arn:aws:sqs:ap-southeast-2:000000000000:send',
      ),
    ],
  };
  expect(await sender(event)).toEqual({ batchItemFailures: [] });
  expect(await getItem(keys.email(caller.projectId, id))).toMatchObject({
    last_event: 'queued',
    attachments_pending: true,
  });
  expect(requests).toBe(0);
});
