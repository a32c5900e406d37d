/**
 * The sender's branches for test mode (shared/emails/sender.ts, shared/emails/test-mode-send.ts):
 * the real test-sender and sender handlers, run as their functions (their `needs` enforced, as
 * on AWS by IAM), against a table of this test's own in the runtime's DynamoDB Local, two queues
 * of its own standing in for the SES feedback queues (QUEUE_URL_SES_EVENTS,
 * QUEUE_URL_SES_SUPPRESSION), and an SES v2 endpoint of its own that records every request.
 *
 * - A test-mode email: no request reaches SES and no call goes through an SES client (the call
 *   guard, which every AWS client passes, sees none; the SES send client is never asked); its
 *   message is stored, it is `sent`, and the simulated events reach both queues as SNS would put
 *   them there: SNS envelopes, bounces and complaints on the suppression queue too, a moment apart.
 * - A redelivered send message publishes nothing more; a publish that keeps failing leaves the
 *   email `sent` and logs the error.
 * - A live email of the same kind does reach SES (so the endpoint above would have seen a test send),
 *   through the live sender, whose needs hold nothing of test mode (functions/workers.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import PostalMime from 'postal-mime';
import { createTableInput } from '../../lib/table-definition';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { domainClaimKey } from '../../shared/domains/domains';
import { putEmailContent, renderedMessageKey } from '../../shared/emails/content';
import { emailWrites, type EmailItem } from '../../shared/emails/emails';
import { PUBLISH_ATTEMPTS } from '../../shared/emails/test-mode-send';
import { installAwsCallChecker, type AwsCall } from '../../shared/platform/aws/call-guard';
import { getObject } from '../../shared/platform/aws/s3';
import { sesSendClient } from '../../shared/platform/aws/ses';
import { parseSnsEnvelope } from '../../shared/platform/aws/sns-envelope';
import type { Caller } from '../../shared/platform/caller';
import * as keys from '../../shared/platform/db/keys';
import { getItem, put, putItem, transact } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { sqsRecord } from '../support/sqs';
import { useRuntimeTable } from '../support/table';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: runtimeCredentials() };
const tableName = `sender-test-mode-${newId().slice(-12)}`;
const saved = { ...process.env };
const VARIABLES = [
  'TABLE_NAME',
  'AWS_ENDPOINT_URL_SESV2',
  'AWS_ENDPOINT_URL_SQS',
  'QUEUE_URL_SES_EVENTS',
  'QUEUE_URL_SES_SUPPRESSION',
  'SEND_RATE_PER_SECOND',
];
const HTML = '<p>Hello</p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a>';

let dynamo: DynamoDBClient;
const sqs = new SQSClient({ ...config, endpoint: runtime.sqsEndpoint });
let ses: Server;
const sesRequests: string[] = [];
const awsCalls: AwsCall[] = [];
const queueUrls: Record<'events' | 'suppression', string> = { events: '', suppression: '' };
let sender: (event: SQSEvent) => Promise<SQSBatchResponse>;
let testSender: (event: SQSEvent) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false }))); // no stream: nothing reads it (lib/table-definition.ts)
  ses = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      sesRequests.push(`${request.method} ${request.url}`);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify(
          request.url === '/v2/email/account'
            ? { SendQuota: { MaxSendRate: 100, Max24HourSend: 50_000 } }
            : { MessageId: `ses-${sesRequests.length}` },
        ),
      );
    });
  });
  await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
  const suffix = newId().slice(-12);
  for (const name of ['events', 'suppression'] as const) {
    queueUrls[name] = (await sqs.send(new CreateQueueCommand({ QueueName: `test-mode-ses-${name}-${suffix}` })))
      .QueueUrl!;
  }
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_SESV2: `http://127.0.0.1:${(ses.address() as AddressInfo).port}`,
    AWS_ENDPOINT_URL_SQS: runtime.sqsEndpoint,
    QUEUE_URL_SES_EVENTS: queueUrls.events,
    QUEUE_URL_SES_SUPPRESSION: queueUrls.suppression,
    SEND_RATE_PER_SECOND: '100',
  });
  // Imported after the environment points at this test's SES and queues; the invocations' own check of needs
  // (local/lambda/invocation.ts, installed when it loaded) still runs, after this record of every call.
  const handlers = {
    sender: (await import('../../functions/workers/sender')).handler,
    test: (await import('../../functions/workers/test-sender')).handler,
  };
  const check = globalThis.__awsCallChecker;
  installAwsCallChecker((call) => {
    awsCalls.push(call);
    check?.(call);
  });
  sender = (event) => invoke(workerFunction('sender'), handlers.sender as never, event) as Promise<SQSBatchResponse>;
  testSender = (event) =>
    invoke(workerFunction('test-sender'), handlers.test as never, event) as Promise<SQSBatchResponse>;
});

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  for (const url of Object.values(queueUrls))
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  await new Promise((resolve) => ses.close(resolve));
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
  sqs.destroy();
});

const sqsEvent = (messageId: string, body: unknown): SQSEvent => ({
  Records: [sqsRecord(messageId, JSON.stringify(body), 'arn:aws:sqs:ap-southeast-2:000000000000:send')],
});

/** A queued email From a domain of a new project (its test twin for test mode), the domain tracking opens and clicks. */
async function queuedEmail(
  livemode: boolean,
  to: string[],
  subject = 'Hello',
): Promise<{ caller: Caller; email: EmailItem }> {
  const caller: Caller = { projectId: livemode ? newId() : `${newId()}_test`, livemode, permission: 'full_access' };
  const domainId = newId();
  const name = `d-${domainId.slice(-12)}.example.com`;
  const configurationSet = `es-${domainId}`;
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
      configuration_set: configurationSet,
    }),
  );
  await putItem(
    put({
      ...keys.domain(caller.projectId, domainId),
      type: 'domain',
      id: domainId,
      project_id: caller.projectId,
      name,
      open_tracking: true,
      click_tracking: true,
    }),
  );
  const email: EmailItem = {
    object: 'email',
    id: newId(),
    project_id: caller.projectId,
    livemode,
    message_id: null,
    from: `News <news@${name}>`,
    to,
    cc: [],
    bcc: [],
    reply_to: [],
    subject,
    tags: [{ name: 'campaign', value: 'nov' }],
    configuration_set: configurationSet,
    last_event: 'queued',
    scheduled_at: null,
    created_at: new Date().toISOString(),
  };
  await putEmailContent(caller.projectId, email.id, {
    html: HTML,
    text: 'Hello',
    headers: { 'X-Entity-Ref-ID': 'ref-1' },
  });
  await transact(emailWrites(caller, email));
  return { caller, email };
}

interface Received {
  eventType: string;
  messageId: string;
  at: number;
}

/** Reads a queue until `count` messages came (or `waitMs` passed), each with its SES event type and when it became visible. */
async function receive(queue: 'events' | 'suppression', count: number, waitMs = 8000): Promise<Received[]> {
  const got: Received[] = [];
  const deadline = Date.now() + waitMs;
  while (got.length < count && Date.now() < deadline) {
    const out = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrls[queue],
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
      }),
    );
    for (const message of out.Messages ?? []) {
      const envelope = JSON.parse(message.Body!);
      expect(envelope).toMatchObject({ Type: 'Notification', TopicArn: expect.stringMatching(/^arn:aws:sns:/) });
      const event = parseSnsEnvelope(message.Body!) as { eventType: string; mail: { messageId: string } };
      got.push({ eventType: event.eventType, messageId: event.mail.messageId, at: Date.now() });
    }
    if (got.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return got;
}

it('sends a test-mode email without SES: message stored, `sent`, the simulated events on both queues in order', async () => {
  sesRequests.length = 0;
  awsCalls.length = 0;
  const sendSpy = jest.spyOn(sesSendClient, 'send');
  const { caller, email } = await queuedEmail(
    false,
    ['click@simulator.amazonses.com', 'bounced+x@resend.dev', 'Ann <complaint+1@simulator.amazonses.com>'],
    'Grüße',
  );
  const started = Date.now();
  expect(
    (await testSender(sqsEvent('m-1', { project_id: caller.projectId, email_id: email.id }))).batchItemFailures,
  ).toEqual([]);

  const item = (await getItem(keys.email(caller.projectId, email.id))) as EmailItem;
  expect(item).toMatchObject({ last_event: 'sent', message_id: expect.stringMatching(/^test-/) });
  expect(await getItem(keys.sesMessage(item.message_id!))).toMatchObject({
    project_id: caller.projectId,
    email_id: email.id,
    configuration_set: email.configuration_set,
  });
  // no SES at all
  expect(sesRequests).toEqual([]);
  expect(sendSpy).not.toHaveBeenCalled();
  expect(awsCalls.filter((call) => call.service === 'ses')).toEqual([]);
  sendSpy.mockRestore();

  // the message a recipient would have got
  const raw = await getObject(renderedMessageKey(caller.projectId, email.id), 'content');
  const parsed = await PostalMime.parse(raw!);
  expect(parsed).toMatchObject({
    subject: 'Grüße',
    messageId: `<${item.message_id}@test-mode.invalid>`,
    text: 'Hello\n',
    html: `${HTML}\n`,
  });
  expect(parsed.to?.map((a) => a.address)).toEqual([
    'click@simulator.amazonses.com',
    'bounced+x@resend.dev',
    'complaint+1@simulator.amazonses.com',
  ]);
  expect(parsed.headers.find((h) => h.key === 'x-entity-ref-id')?.value).toBe('ref-1');

  // every event on ses-events, the bounce and the complaint on ses-suppression too, all of this send
  const events = await receive('events', 7);
  const suppression = await receive('suppression', 2);
  expect(events.map((e) => e.eventType).sort()).toEqual([
    'Bounce',
    'Click',
    'Click',
    'Complaint',
    'Delivery',
    'Open',
    'Send',
  ]);
  expect(suppression.map((e) => e.eventType).sort()).toEqual(['Bounce', 'Complaint']);
  expect(new Set([...events, ...suppression].map((e) => e.messageId))).toEqual(new Set([item.message_id]));
  // delayed in SES's order: Send at once, the clicks (3 s) visible well after it
  const at = (type: string) => events.find((e) => e.eventType === type)!.at - started;
  expect(at('Send')).toBeLessThan(at('Click'));
  expect(at('Click')).toBeGreaterThanOrEqual(2500);

  // a redelivered send message finds the email sent: nothing more is published
  expect(
    (await testSender(sqsEvent('m-1', { project_id: caller.projectId, email_id: email.id }))).batchItemFailures,
  ).toEqual([]);
  expect(await receive('events', 1, 4000)).toEqual([]);
  expect(sesRequests).toEqual([]);
}, 60_000);

it('sends a test-mode bounce from the test lane the same way, nothing through SES', async () => {
  const { caller, email } = await queuedEmail(false, ['bounce@simulator.amazonses.com']);
  expect(
    (await testSender(sqsEvent('b-1', { project_id: caller.projectId, email_id: email.id }))).batchItemFailures,
  ).toEqual([]);
  expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({ last_event: 'sent' });
  expect((await receive('suppression', 1)).map((e) => e.eventType)).toEqual(['Bounce']);
  expect((await receive('events', 2)).map((e) => e.eventType).sort()).toEqual(['Bounce', 'Send']);
  expect(sesRequests).toEqual([]);
}, 30_000);

it('leaves the email `sent` and logs the error when the events cannot be published', async () => {
  const { caller, email } = await queuedEmail(false, ['delivered@resend.dev']);
  const errors: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const spy = jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
      errors.push(String(chunk));
      return write(chunk, ...(rest as []));
    });
  process.env.QUEUE_URL_SES_EVENTS = `${runtime.sqsEndpoint}/000000000000/no-such-queue-${newId().slice(-8)}`;
  try {
    expect(
      (await testSender(sqsEvent('f-1', { project_id: caller.projectId, email_id: email.id }))).batchItemFailures,
    ).toEqual([]);
  } finally {
    process.env.QUEUE_URL_SES_EVENTS = queueUrls.events;
    spy.mockRestore();
  }
  expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({ last_event: 'sent' });
  expect(errors.filter((line) => line.includes('simulated SES events were not published'))).toHaveLength(1);
  expect(PUBLISH_ATTEMPTS).toBeGreaterThan(1);
}, 30_000);

it('sends a live email through SES, publishing nothing itself', async () => {
  sesRequests.length = 0;
  const { caller, email } = await queuedEmail(true, ['bounce@simulator.amazonses.com']);
  expect(
    (await sender(sqsEvent('l-1', { project_id: caller.projectId, email_id: email.id }))).batchItemFailures,
  ).toEqual([]);
  expect(sesRequests).toContain('POST /v2/email/outbound-emails');
  expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({
    last_event: 'sent',
    message_id: expect.stringMatching(/^ses-/),
  });
  expect(await receive('events', 1, 2000)).toEqual([]);
}, 30_000);
