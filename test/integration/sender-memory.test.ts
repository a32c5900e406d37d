/**
 * The sender keeps to its declared memory with large emails (issue 32, 3; shared/emails/sender-memory.ts):
 * the real sender handler, run as its function (its needs, and the local runtime's memory check:
 * local/memory-watch.ts), gets one SQS event of 4 live emails with 24 MiB of stored
 * attachments each, against a table of this test's own and an SES v2 endpoint of its own that
 * reads and drops each request. Sent side by side, as before the budget, the four held about
 * 4 x 3.3 x 24 MiB at once, over the sender's 256 MB; now each reserves its share of the budget
 * and they go one at a time: every one is sent, and the invocation's estimated peak stays within
 * 256 MB.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createTableInput } from '../../lib/table-definition';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { largestMeasures } from '../../local/memory-watch';
import { workerMemoryMb } from '../../functions/needs';
import { workers } from '../../functions/workers';
import { domainClaimKey } from '../../shared/domains/domains';
import { putAttachments } from '../../shared/emails/attachments';
import { contentBytes, putEmailContent, type EmailContent } from '../../shared/emails/content';
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
const tableName = `sender-memory-${newId().slice(-12)}`;
const saved = { ...process.env };
const VARIABLES = ['TABLE_NAME', 'AWS_ENDPOINT_URL_SESV2', 'SEND_RATE_PER_SECOND'];
const MiB = 2 ** 20;
const EMAILS = 4;
const ATTACHMENT = randomBytes(24 * MiB);

let dynamo: DynamoDBClient;
let ses: Server;
let sesSends = 0;
let sender: (event: SQSEvent) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false })));
  ses = createServer((request, response) => {
    request.resume(); // read and dropped: only the sender's memory is measured
    request.on('end', () => {
      const account = request.url === '/v2/email/account';
      if (!account) sesSends += 1;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          account ? { SendQuota: { MaxSendRate: 100, Max24HourSend: 50_000 } } : { MessageId: `ses-${newId()}` },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_SESV2: `http://127.0.0.1:${(ses.address() as AddressInfo).port}`,
    SEND_RATE_PER_SECOND: '100',
  });
  const { handler } = await import('../../functions/workers/sender');
  sender = (event) => invoke(workerFunction('sender'), handler as never, event) as Promise<SQSBatchResponse>;
}, 60_000);

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  await new Promise((resolve) => ses.close(resolve));
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
});

/** A queued live email From a verified domain of a new project, with one stored attachment of 24 MiB. */
async function largeEmail(): Promise<EmailItem> {
  const caller: Caller = { projectId: newId(), livemode: true, permission: 'full_access' };
  const domainId = newId();
  const name = `d-${domainId.slice(-12)}.example.com`;
  await putItem(
    put({
      ...domainClaimKey(caller.projectId, name),
      type: 'domain_name',
      project_id: caller.projectId,
      domain_id: domainId,
      name,
      state: 'active',
      status: 'verified',
      sending: 'enabled',
    }),
  );
  const id = newId();
  const attachmentId = newId();
  const content: EmailContent = {
    html: null,
    text: 'see attached',
    headers: {},
    attachments: [
      {
        id: attachmentId,
        filename: 'big.bin',
        content_type: 'application/octet-stream',
        content_id: null,
        size: ATTACHMENT.length,
      },
    ],
  };
  await Promise.all([
    putEmailContent(caller.projectId, id, content),
    putAttachments(caller.projectId, id, [
      { id: attachmentId, bytes: ATTACHMENT, content_type: 'application/octet-stream' },
    ]),
  ]);
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
    subject: 'large',
    tags: [],
    last_event: 'queued',
    scheduled_at: null,
    created_at: new Date().toISOString(),
    content_bytes: contentBytes(content),
    attachment_bytes: ATTACHMENT.length,
  };
  await transact(emailWrites(caller, email));
  return email;
}

it('sends a batch of large emails within the memory the sender is deployed with', async () => {
  const emails: EmailItem[] = [];
  for (let i = 0; i < EMAILS; i++) emails.push(await largeEmail());
  const sendsBefore = sesSends;
  const event: SQSEvent = {
    Records: emails.map((e, i) =>
      sqsRecord(
        `m-${i}`,
        JSON.stringify({ project_id: e.project_id, email_id: e.id }),
        'arn:aws:sqs:ap-southeast-2:000000000000:send',
      ),
    ),
  };

  expect(await sender(event)).toEqual({ batchItemFailures: [] });
  const states = await Promise.all(
    emails.map(async (e) => (await getItem(keys.email(e.project_id, e.id)))?.last_event),
  );
  expect(states).toEqual(emails.map(() => 'sent'));
  expect(sesSends - sendsBefore).toBe(EMAILS);

  const measure = largestMeasures().find((m) => m.function === 'SenderWorker');
  const declared = workerMemoryMb(workers.find((w) => w.name === 'sender')!);
  expect(measure).toMatchObject({ memoryMb: declared, over: false });
  expect(measure!.estimatedPeakMb).toBeLessThanOrEqual(declared);
}, 120_000);
