/**
 * The suppression writer against the running local runtime: real SES notification JSON (the event
 * publishing format of a configuration set, and the older identity notification format) in real
 * SNS envelopes, put on the runtime's real `ses-suppression` queue; the runtime's poller runs the
 * worker, and the suppressions API shows what it wrote.
 *
 * The runtime's queue keeps a 30 s visibility timeout, so the DLQ case drives the same handler
 * through a QueuePoller on a queue of its own (1 s, two receives) on the runtime's SQS.
 */
import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { QueuePoller } from '../../local/lambda/queue-poller';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { workerFunction } from '../../local/lambda/invocation';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const sqs = new SQSClient({
  endpoint: runtime.sqsEndpoint,
  region: 'ap-southeast-2',
  credentials: runtimeCredentials(),
});
afterAll(() => sqs.destroy());

let project: { projectId: string; key: string };
let queueUrl: string;
beforeAll(async () => {
  project = await createOtherProject();
  queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'ses-suppression' }))).QueueUrl!;
});

const address = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.net`;
const sesMessageId = () => `0108019${randomUUID().replace(/-/g, '')}-000000`;

/** The `mail` object SES publishes with every event of a send through a configuration set (tags included). */
function mail(messageId: string, recipients: string[], tags: Record<string, string[]> | undefined) {
  return {
    timestamp: '2026-11-22T08:00:00.000Z',
    source: 'Notifications <news@mail.example.com>',
    sourceArn: 'arn:aws:ses:ap-southeast-2:123456789012:identity/mail.example.com',
    sendingAccountId: '123456789012',
    messageId,
    destination: recipients,
    headersTruncated: false,
    headers: [
      { name: 'From', value: 'Notifications <news@mail.example.com>' },
      { name: 'To', value: recipients.join(', ') },
      { name: 'Subject', value: 'Your receipt' },
    ],
    commonHeaders: {
      from: ['Notifications <news@mail.example.com>'],
      to: recipients,
      messageId,
      subject: 'Your receipt',
    },
    ...(tags
      ? {
          tags: {
            'ses:configuration-set': [CONFIGURATION_SET],
            'ses:source-ip': ['192.0.2.10'],
            'ses:from-domain': ['mail.example.com'],
            ...tags,
          },
        }
      : {}),
  };
}

interface Send {
  emailId: string;
  messageId: string;
  recipients: string[];
}

/** The configuration set the sends below went through (the `ses:configuration-set` tag of their events). */
const CONFIGURATION_SET = 'es-config';

/** A send SES accepted, not yet recorded: feedback for it finds no email. */
function unrecordedSend(recipients: string[]): Send {
  return { emailId: randomUUID(), messageId: sesMessageId(), recipients };
}

/** A send as the sender records it: the SES message id lookup, the only route from feedback to the project and email. */
async function newSend(recipients: string[], projectId = project.projectId): Promise<Send> {
  const send = unrecordedSend(recipients);
  await documentClient.send(
    new PutCommand({
      TableName: runtime.tableName,
      Item: {
        ...keys.sesMessage(send.messageId),
        type: 'ses_message',
        project_id: projectId,
        email_id: send.emailId,
        configuration_set: CONFIGURATION_SET,
      },
    }),
  );
  return send;
}

/** The tags the sender sets (no longer read for routing, but SES still carries them). */
const tagsOf = (send: Send) => ({ email_id: [send.emailId], project_id: [project.projectId] });

function bounceEvent(send: Send, bounceType: string, bounceSubType: string, diagnostics: (string | undefined)[] = []) {
  return {
    eventType: 'Bounce',
    bounce: {
      feedbackId: `0108019${randomUUID().replace(/-/g, '')}-000000`,
      bounceType,
      bounceSubType,
      bouncedRecipients: send.recipients.map((emailAddress, i) => ({
        emailAddress,
        action: bounceType === 'Permanent' ? 'failed' : 'delayed',
        status: bounceType === 'Permanent' ? '5.1.1' : '4.2.2',
        ...(diagnostics[i] ? { diagnosticCode: diagnostics[i] } : {}),
      })),
      timestamp: '2026-11-22T08:00:01.000Z',
      reportingMTA: 'dns; a27-30.smtp-out.ap-southeast-2.amazonses.com',
      remoteMtaIp: '198.51.100.25',
    },
    mail: mail(send.messageId, send.recipients, tagsOf(send)),
  };
}

function complaintEvent(send: Send, feedbackType: string | undefined) {
  return {
    eventType: 'Complaint',
    complaint: {
      feedbackId: `0108019${randomUUID().replace(/-/g, '')}-000000`,
      complaintSubType: null,
      complainedRecipients: send.recipients.map((emailAddress) => ({ emailAddress })),
      timestamp: '2026-11-22T09:00:00.000Z',
      userAgent: 'Yahoo!-Mail-Feedback/2.0',
      arrivalDate: '2026-11-22T08:59:58.000Z',
      ...(feedbackType ? { complaintFeedbackType: feedbackType } : {}),
    },
    mail: mail(send.messageId, send.recipients, tagsOf(send)),
  };
}

/** What SNS puts on an SQS queue it delivers to (no raw message delivery). */
function snsNotification(event: object): string {
  return JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:ap-southeast-2:123456789012:email-service-ses-events',
    Message: JSON.stringify(event),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature:
      'EXAMPLEpH+DcEwjAPg8O9mY8dReBSwksfg2S7WKQcikcNKWLQjwu6A4VbeS0QHVCkhRS7fUQvi2egU3N858fiTDN6bkkOxYDVrY0Ad8L10Hs3zH81mtnPk5uvvolIC1CXGu43obcgFxeL3khZl8IKvO61GWB6jI9b5+gLPoBc1Q=',
    SigningCertURL:
      'https://sns.ap-southeast-2.amazonaws.com/SimpleNotificationService-6aad65c2f9911b05cd53efda11f913f9.pem',
    UnsubscribeURL:
      'https://sns.ap-southeast-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=arn:aws:sns:ap-southeast-2:123456789012:email-service-ses-events:7e5c0a62-6a4c-4b0f-9d1e-3c2b1d0f9e8a',
  });
}

const publish = (...events: object[]) =>
  Promise.all(
    events.map((event) =>
      sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: snsNotification(event) })),
    ),
  );

const entry = (email: string) => api.get(`/suppressions/${encodeURIComponent(email)}`, { key: project.key });
const entryAppears = (email: string) =>
  waitFor(
    () => entry(email),
    (r) => r.status === 200,
  ).then((r) => r.body);

/** Until the runtime's poller has taken and finished every message of the queue. */
async function drained(): Promise<void> {
  await waitFor(
    () =>
      sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      ),
    (out) =>
      out.Attributes?.ApproximateNumberOfMessages === '0' &&
      out.Attributes?.ApproximateNumberOfMessagesNotVisible === '0',
  );
}

it('suppresses every recipient of a permanent bounce: subtype, diagnostic code as reason, our email id', async () => {
  const send = await newSend([address('gone'), address('nobody'), address('silent')]);
  await publish(
    bounceEvent(send, 'Permanent', 'General', [
      'smtp; 550 5.1.1 user unknown',
      'smtp; 550 5.1.1 <nobody>: Recipient address rejected',
    ]),
  );
  const entries = await Promise.all(send.recipients.map(entryAppears));
  expect(entries[0]).toEqual({
    object: 'suppression',
    id: expect.any(String),
    email: send.recipients[0],
    source: 'bounce',
    origin: 'bounce',
    subtype: 'General',
    reason: 'smtp; 550 5.1.1 user unknown',
    message_id: send.emailId,
    source_id: send.emailId,
    created_at: expect.any(String),
  });
  expect(entries[1]).toMatchObject({
    source: 'bounce',
    subtype: 'General',
    reason: 'smtp; 550 5.1.1 <nobody>: Recipient address rejected',
    message_id: send.emailId,
  });
  expect(entries[2]).toMatchObject({
    source: 'bounce',
    subtype: 'General',
    reason: expect.stringMatching(/^Permanent bounce/),
    message_id: send.emailId,
  });
});

it('keeps the SES bounce subtype (NoEmail, OnAccountSuppressionList)', async () => {
  const noEmail = await newSend([address('noemail')]);
  const onList = await newSend([address('onlist')]);
  await publish(
    bounceEvent(noEmail, 'Permanent', 'NoEmail'),
    bounceEvent(onList, 'Permanent', 'OnAccountSuppressionList'),
  );
  expect(await entryAppears(noEmail.recipients[0])).toMatchObject({
    subtype: 'NoEmail',
    reason: 'Permanent bounce: the address does not exist',
  });
  expect(await entryAppears(onList.recipients[0])).toMatchObject({ subtype: 'OnAccountSuppressionList' });
});

it('never suppresses for transient or undetermined bounces', async () => {
  const full = await newSend([address('full'), address('away')]);
  const unknown = await newSend([address('undetermined')]);
  await publish(
    bounceEvent(full, 'Transient', 'MailboxFull', ['smtp; 452 4.2.2 mailbox full']),
    bounceEvent(unknown, 'Undetermined', 'Undetermined'),
  );
  await drained();
  for (const email of [...full.recipients, ...unknown.recipients]) expect((await entry(email)).status).toBe(404);
});

it('suppresses for a complaint: the feedback type as subtype, null without one, other for auth-failure', async () => {
  const abuse = await newSend([address('abuse'), address('abuse-too')]);
  const none = await newSend([address('nofeedback')]);
  const auth = await newSend([address('authfail')]);
  await publish(complaintEvent(abuse, 'abuse'), complaintEvent(none, undefined), complaintEvent(auth, 'auth-failure'));
  for (const email of abuse.recipients)
    expect(await entryAppears(email)).toMatchObject({
      source: 'complaint',
      subtype: 'abuse',
      message_id: abuse.emailId,
    });
  expect(await entryAppears(none.recipients[0])).toMatchObject({
    source: 'complaint',
    subtype: null,
    message_id: none.emailId,
  });
  expect(await entryAppears(auth.recipients[0])).toMatchObject({ source: 'complaint', subtype: 'other' });
});

it('withdraws an earlier complaint on not-spam, never suppresses for it, and leaves other sources alone', async () => {
  const complained = await newSend([address('changed-mind')]);
  await publish(complaintEvent(complained, 'abuse'));
  await entryAppears(complained.recipients[0]);

  const bounced = await newSend([address('bounced-then-not-spam')]);
  await publish(bounceEvent(bounced, 'Permanent', 'General'));
  const bounceEntry = await entryAppears(bounced.recipients[0]);

  const fresh = address('never-complained');
  await publish(complaintEvent(await newSend([complained.recipients[0], bounced.recipients[0], fresh]), 'not-spam'));
  await waitFor(
    () => entry(complained.recipients[0]),
    (r) => r.status === 404,
  );
  await drained();
  expect((await entry(bounced.recipients[0])).body).toEqual(bounceEntry);
  expect((await entry(fresh)).status).toBe(404);
  const list = await api.get('/suppressions?source=complaint&limit=100', { key: project.key });
  expect(list.body.data.map((s: { email: string }) => s.email)).not.toContain(complained.recipients[0]);
});

it('applies a duplicate notification once: one entry, unchanged', async () => {
  const send = await newSend([address('twice')]);
  const body = snsNotification(bounceEvent(send, 'Permanent', 'General', ['smtp; 550 5.1.1 user unknown']));
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  const first = await entryAppears(send.recipients[0]);
  await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  // a complaint later for the same address does not replace the bounce entry either
  await publish(complaintEvent(send, 'abuse'));
  await drained();
  expect((await entry(send.recipients[0])).body).toEqual(first);
  const list = await api.get('/suppressions?limit=100', { key: project.key });
  expect(list.body.data.filter((s: { email: string }) => s.email === send.recipients[0])).toHaveLength(1);
});

it('reads the older notification format (notificationType, no tags) through the SES message id lookup', async () => {
  const send = await newSend([address('legacy')]);
  const { eventType: _, ...event } = bounceEvent(send, 'Permanent', 'General', ['smtp; 550 5.1.1 user unknown']);
  await publish({ notificationType: 'Bounce', ...event, mail: mail(send.messageId, send.recipients, undefined) });
  expect(await entryAppears(send.recipients[0])).toMatchObject({
    source: 'bounce',
    message_id: send.emailId,
    reason: 'smtp; 550 5.1.1 user unknown',
  });
});

it('routes by the SES message id alone: tags naming another project and email are ignored', async () => {
  const victim = await createOtherProject();
  const send = await newSend([address('forged')]);
  const forgedTags = { email_id: [randomUUID()], project_id: [victim.projectId] };
  await publish({
    ...bounceEvent(send, 'Permanent', 'General'),
    mail: mail(send.messageId, send.recipients, forgedTags),
  });
  expect(await entryAppears(send.recipients[0])).toMatchObject({ source: 'bounce', message_id: send.emailId });
  await drained();
  const victimList = await api.get('/suppressions?limit=100', { key: victim.key });
  expect(victimList.status).toBe(200);
  expect(victimList.body.data).toEqual([]);
});

it('drops a notification whose configuration set is not the one the send went through', async () => {
  const send = await newSend([address('other-set')]);
  const event = bounceEvent(send, 'Permanent', 'General');
  await publish({
    ...event,
    mail: { ...event.mail, tags: { ...event.mail.tags, 'ses:configuration-set': ['es-someone-else'] } },
  });
  await drained();
  expect((await entry(send.recipients[0])).status).toBe(404);
});

it('sends a malformed message to the DLQ after its receives, and processes the rest of its batch', async () => {
  const name = `suppression-writer-test-${randomUUID().slice(0, 8)}`;
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

  const good = await newSend([address('batch-ok-1'), address('batch-ok-2')]);
  const orphan = unrecordedSend([address('orphan')]);
  const { eventType: _, ...orphanEvent } = bounceEvent(orphan, 'Permanent', 'General');
  const malformed = [
    'this is not JSON',
    JSON.stringify({
      Type: 'Notification',
      MessageId: randomUUID(),
      TopicArn: 'arn:aws:sns:ap-southeast-2:123456789012:x',
    }), // no Message
    snsNotification({
      eventType: 'Bounce',
      ...orphanEvent,
      mail: mail(orphan.messageId, orphan.recipients, undefined),
    }), // no lookup: unknown message id
  ];
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queue.QueueUrl,
      Entries: [...malformed, snsNotification(bounceEvent(good, 'Permanent', 'General'))].map((MessageBody, i) => ({
        Id: String(i),
        MessageBody,
      })),
    }),
  );

  process.env.LOG_LEVEL ??= 'ERROR'; // the handler runs in this process: its expected warnings would only be noise
  const { handler } = await import('../../functions/workers/suppression-writer');
  const poller = new QueuePoller({
    fn: workerFunction('suppression-writer'),
    sqs,
    queueUrl: queue.QueueUrl!,
    queueArn,
    batchSize: 10,
    handler,
  });
  const dead: string[] = [];
  const deadline = Date.now() + 20_000;
  while (dead.length < malformed.length && Date.now() < deadline) {
    if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 200));
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: dlq.QueueUrl, MaxNumberOfMessages: 10 }));
    dead.push(...(out.Messages ?? []).map((m) => m.Body!));
  }
  expect(dead.sort()).toEqual([...malformed].sort());
  for (const email of good.recipients)
    expect((await entry(email)).body).toMatchObject({ source: 'bounce', message_id: good.emailId });
  expect((await entry(orphan.recipients[0])).status).toBe(404);
  expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.QueueUrl }))).Messages ?? []).toHaveLength(0);
});
