/**
 * The inbound worker against the running local runtime: SES receipt notifications in SNS
 * envelopes, put straight on the runtime's real `inbound` queue (as the inbound topic delivers
 * them), with their raw messages in the bucket stand-in. Duplicate and concurrent deliveries,
 * a message for several projects, bodies too large for the item, messages too large to parse,
 * and poison messages that end in the DLQ.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { QueuePoller } from '../../local/lambda/queue-poller';
import { snsEnvelope } from '../../local/aws/ses-events';
import { LOCAL_INBOUND_TOPIC_ARN, receiptNotification } from '../../local/aws/smtp-inbound';
import { getObject, putObject } from '../../shared/platform/aws/s3';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { workerFunction } from '../../local/lambda/invocation';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const info = JSON.parse(readFileSync(join(process.env.TEST_DATA_DIR!, 'runtime.json'), 'utf8')) as {
  s3Endpoint: string;
  inboundBucket: string;
};
process.env.AWS_ENDPOINT_URL_S3 = info.s3Endpoint;
process.env.INBOUND_BUCKET = info.inboundBucket;
process.env.LOG_LEVEL = 'ERROR'; // the worker also runs in this process: its expected warnings would only be noise
const receiveInbound = async (...args: Parameters<typeof import('../../shared/receiving/inbound').receiveInbound>) =>
  (await import('../../shared/receiving/inbound')).receiveInbound(...args);

const sqs = new SQSClient({
  endpoint: runtime.sqsEndpoint,
  region: 'ap-southeast-2',
  credentials: runtimeCredentials(),
});
afterAll(() => sqs.destroy());

let counter = 0;
const uniqueDomain = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}.example.com`;
const sesMessageId = () => randomUUID().replace(/-/g, '') + 'inbound';

interface Project {
  key: string;
  domain: string;
}
async function receivingProject(name = uniqueDomain('intake')): Promise<Project & { id: string }> {
  const { key } = await createOtherProject();
  const res = await api.post('/domains', { name, capabilities: { receiving: 'enabled' } }, { key });
  expect(res.status).toBe(201);
  return { key, domain: res.body.name, id: res.body.id };
}
/** A receiving project whose domain has verified (the local SES verifies after about a second). */
async function verifiedReceivingProject(): Promise<Project> {
  const project = await receivingProject();
  await waitFor(
    () => api.post(`/domains/${project.id}/verify`, undefined, { key: project.key }),
    (r) => r.body.status === 'verified',
    10_000,
    200,
  );
  return project;
}

let one: Project;
let two: Project;
let queueUrl: string;
beforeAll(async () => {
  [one, two] = await Promise.all([verifiedReceivingProject(), verifiedReceivingProject()]);
  queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'inbound' }))).QueueUrl!;
});

const message = (to: string, subject: string, body = 'hello') =>
  Buffer.from(`From: a@outside.example\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\n${body}\r\n`, 'utf8');

/** The raw message in the bucket, as SES's S3 action leaves it, and the notification SNS would deliver. */
async function stored(raw: Buffer, recipients: string[]): Promise<{ id: string; body: string }> {
  const id = sesMessageId();
  await putObject(`raw/${id}`, raw, 'message/rfc822');
  const notification = await receiptNotification({
    raw,
    messageId: id,
    source: 'a@outside.example',
    recipients,
    bucket: info.inboundBucket,
  });
  return { id, body: JSON.stringify(snsEnvelope(notification, LOCAL_INBOUND_TOPIC_ARN)) };
}

const received = async (project: Project) =>
  (await api.get('/emails/receiving?limit=100', { key: project.key })).body.data as any[];
const withSubject = (project: Project, subject: string) =>
  waitFor(
    () => received(project),
    (list) => list.some((e) => e.subject === subject),
  ).then((list) => list.filter((e) => e.subject === subject));
const eventsOf = async (project: Project, id: string) =>
  ((await api.get('/events', { key: project.key })).body.data as any[])
    .filter((e) => e.data.object.id === id)
    .map((e) => e.type);
/** Both events exist (email.stored comes last, right after the attachments are in the bucket). */
const settledEvents = (project: Project, id: string) =>
  waitFor(
    () => eventsOf(project, id),
    (types) => types.includes('email.stored'),
  );

it('stores a notification delivered twice, or twice at once, only once, with one email.received and one email.stored', async () => {
  const subject = `Twice ${Date.now()}`;
  const { body } = await stored(message(`x@${one.domain}`, subject), [`x@${one.domain}`]);
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const [record] = await withSubject(one, subject);
  expect((await settledEvents(one, record.id)).sort()).toEqual(['email.received', 'email.stored']);

  // again, later (SQS redelivery) and twice in one batch (two concurrent deliveries)
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: [0, 1].map((i) => ({ Id: String(i), MessageBody: body })),
    }),
  );
  // a marker sent after them: once it is stored, the duplicates before it have been handled
  const marker = `Marker ${Date.now()}`;
  await sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: (await stored(message(`m@${one.domain}`, marker), [`m@${one.domain}`])).body,
    }),
  );
  await withSubject(one, marker);
  await waitFor(
    async () =>
      (
        await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: queueUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        )
      ).Attributes!,
    (a) => a.ApproximateNumberOfMessages === '0' && a.ApproximateNumberOfMessagesNotVisible === '0',
  );
  expect(await withSubject(one, subject)).toHaveLength(1);
  expect((await eventsOf(one, record.id)).sort()).toEqual(['email.received', 'email.stored']);
});

it('gives each project its own record of a message sent to several, and drops the recipients nobody receives for', async () => {
  const subject = `Both ${Date.now()}`;
  const recipients = [`a@${one.domain}`, `b@${two.domain}`, `c@${uniqueDomain('nobody')}`];
  const { id, body } = await stored(message(recipients.join(', '), subject), recipients);
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const [forOne] = await withSubject(one, subject);
  const [forTwo] = await withSubject(two, subject);
  expect(forOne.received_for).toEqual([`a@${one.domain}`]);
  expect(forTwo.received_for).toEqual([`b@${two.domain}`]);
  expect(forOne.id).not.toBe(forTwo.id);
  expect(forOne.to).toEqual(recipients);
  expect(await settledEvents(two, forTwo.id)).toEqual(expect.arrayContaining(['email.received', 'email.stored']));
  expect((await api.get(`/emails/receiving/${forTwo.id}`, { key: one.key })).status).toBe(404);
  expect(await getObject(`raw/${id}`)).toBeDefined(); // kept: somebody received it
});

it('keeps a body too large for the item in the bucket, and returns it whole', async () => {
  const subject = `Long ${Date.now()}`;
  const html = `<p>${'lorem ipsum '.repeat(30_000)}</p>`; // ~360 KB
  const raw = Buffer.from(
    `From: a@outside.example\r\nTo: l@${one.domain}\r\nSubject: ${subject}\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n`,
  );
  await sqs.send(
    new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: (await stored(raw, [`l@${one.domain}`])).body }),
  );
  const [record] = await withSubject(one, subject);
  const full = await api.get(`/emails/receiving/${record.id}`, { key: one.key });
  expect(full.body.html.trim()).toBe(html);
  expect(full.body.headers.subject).toBe(subject);
});

it('records a message too large to parse from the headers in the notification, with its raw download', async () => {
  const subject = `Too large ${Date.now()}`;
  const raw = message(`big@${one.domain}`, subject, 'x'.repeat(2000));
  const { id, body } = await stored(raw, [`big@${one.domain}`]);
  const outcome = await receiveInbound(body, { maxParseBytes: 1000 });
  expect(outcome).toMatchObject({ ses_message_id: id, dropped: [], stored: [{ new: true }] });
  const [record] = await withSubject(one, subject);
  const full = await api.get(`/emails/receiving/${record.id}`, { key: one.key });
  expect(full.body).toMatchObject({
    subject,
    from: 'a@outside.example',
    to: [`big@${one.domain}`],
    text: null,
    html: null,
    attachments: [],
  });
  expect(Buffer.from(await (await fetch(full.body.raw.download_url)).arrayBuffer()).equals(raw)).toBe(true);
  expect(await eventsOf(one, record.id)).toEqual(expect.arrayContaining(['email.received', 'email.stored']));
  // handled again: nothing new
  expect(await receiveInbound(body, { maxParseBytes: 1000 })).toMatchObject({
    stored: [{ received_email_id: record.id, new: false }],
  });
});

it('drops the recipients of a receiving-enabled domain that never verified, and keeps no raw message for them', async () => {
  const unverified = await receivingProject(`never-${Date.now().toString(36)}.example.invalid`); // the local SES never verifies `.invalid`
  const subject = `Unverified ${Date.now()}`;
  const to = `u@${unverified.domain}`;
  const { id, body } = await stored(message(to, subject), [to]);
  expect(await receiveInbound(body)).toEqual({ ses_message_id: id, stored: [], dropped: [to] });
  expect(await getObject(`raw/${id}`)).toBeUndefined();
  expect(await received(unverified)).toEqual([]);
  expect(
    ((await api.get('/events', { key: unverified.key })).body.data as any[]).filter((e) => e.type.startsWith('email.')),
  ).toEqual([]);
});

it('ignores SES notifications that are not receipts', async () => {
  expect(
    await receiveInbound(
      JSON.stringify(snsEnvelope({ notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'ok' })),
    ),
  ).toBeUndefined();
});

it('sends poison messages to the DLQ after their receives, and stores the rest of their batch', async () => {
  const name = `inbound-test-${randomUUID().slice(0, 8)}`;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const dlqArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn;
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: '1',
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
      },
    }),
  );
  const queueArn = (
    await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }))
  ).Attributes!.QueueArn!;

  const good = `Good ${Date.now()}`;
  const missingRaw = await receiptNotification({
    raw: message(`q@${one.domain}`, 'lost'),
    messageId: sesMessageId(),
    source: 'a@outside.example',
    recipients: [`q@${one.domain}`],
    bucket: info.inboundBucket,
  });
  const poison = [
    'this is not JSON',
    JSON.stringify({ Type: 'Notification', MessageId: randomUUID(), TopicArn: LOCAL_INBOUND_TOPIC_ARN }), // no Message
    JSON.stringify(snsEnvelope({ notificationType: 'Received', mail: {}, receipt: {} })), // a receipt without its parts
    JSON.stringify(snsEnvelope(missingRaw, LOCAL_INBOUND_TOPIC_ARN)), // its raw message is not in the bucket
  ];
  const goodBody = (await stored(message(`g@${one.domain}`, good), [`g@${one.domain}`])).body;
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queue.QueueUrl,
      Entries: [...poison, goodBody].map((MessageBody, i) => ({ Id: String(i), MessageBody })),
    }),
  );

  const { handler } = await import('../../functions/workers/inbound');
  const poller = new QueuePoller({
    fn: workerFunction('inbound'),
    sqs,
    queueUrl: queue.QueueUrl!,
    queueArn,
    batchSize: 10,
    handler,
  });
  const dead: string[] = [];
  const deadline = Date.now() + 20_000;
  while (dead.length < poison.length && Date.now() < deadline) {
    if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 200));
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl, MaxNumberOfMessages: 10 }));
    dead.push(...(out.Messages ?? []).map((m) => m.Body!));
  }
  expect(dead.sort()).toEqual([...poison].sort());
  expect(await withSubject(one, good)).toHaveLength(1);
  expect((await received(one)).some((e) => e.subject === 'lost')).toBe(false);
});
