/**
 * SES feedback on the email's status: sends through the local SES (mailbox simulator addresses)
 * come back as SES events through SNS-shaped messages on the email-events queue, and the
 * email-status worker moves `last_event` forward and writes `email.*` events. Out-of-order and
 * repeated notifications are put on the real local queue by hand.
 */
import { GetQueueUrlCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { snsEnvelope } from '../../local/aws/ses-events';
import { api } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const sqs = new SQSClient({
  endpoint: runtime.sqsEndpoint,
  region: 'ap-southeast-2',
  credentials: runtimeCredentials(),
});
afterAll(() => sqs.destroy());

let domain: string;
beforeAll(async () => {
  domain = `status-${Date.now().toString(36)}.example.com`;
  const created = await api.post('/domains', { name: domain });
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`),
    (r) => r.body.status === 'verified',
  );
});

const send = async (to: string) => {
  const res = await api.post('/emails', { from: `n@${domain}`, to, subject: `to ${to}`, text: 'x' });
  expect(res.status).toBe(200);
  return res.body.id as string;
};
const lastEvent = (id: string, expected: string) =>
  waitFor(
    () => api.get(`/emails/${id}`).then((r) => r.body),
    (e) => e.last_event === expected,
  );

async function eventsOf(emailId: string, projectId = runtime.projectId) {
  // newest first: the project's newest events hold this test's, whatever the project holds before them
  return (await projectEvents(projectId))
    .reverse()
    .map((i) => i.event)
    .filter((e) => e.data.object.id === emailId);
}

it('marks a send to success@ delivered, with an email.delivered event', async () => {
  const id = await send('success@simulator.amazonses.com');
  await lastEvent(id, 'delivered');
  const delivered = (await eventsOf(id)).filter((e) => e.type === 'email.delivered');
  expect(delivered).toHaveLength(1);
  expect(delivered[0].data.object).toMatchObject({
    id,
    last_event: 'delivered',
    delivery: { recipients: ['success@simulator.amazonses.com'] },
  });
});

it('marks a send to bounce@ bounced, with the bounce detail', async () => {
  const id = await send('bounce@simulator.amazonses.com');
  await lastEvent(id, 'bounced');
  const [bounced] = (await eventsOf(id)).filter((e) => e.type === 'email.bounced');
  expect(bounced.data.object.bounce).toMatchObject({ type: 'Permanent', subtype: 'General' });
});

it('marks a send to complaint@ complained (after delivered) and ooto@ delivered', async () => {
  const complaint = await send('complaint@simulator.amazonses.com');
  const ooto = await send('ooto@simulator.amazonses.com');
  await lastEvent(complaint, 'complained');
  await lastEvent(ooto, 'delivered');
  const types = (await eventsOf(complaint)).map((e) => e.type);
  expect(types).toEqual(expect.arrayContaining(['email.delivered', 'email.complained']));
  expect((await eventsOf(complaint)).find((e) => e.type === 'email.complained').data.object.complaint).toMatchObject({
    feedback_type: 'abuse',
  });
});

it('never moves backwards, and applies a repeated notification once', async () => {
  const id = await send('reader@example.com');
  const email = await lastEvent(id, 'delivered');
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ses-events' }));
  const mail = {
    messageId: email.ses_message_id,
    tags: { email_id: [id], project_id: [runtime.projectId] },
    destination: ['reader@example.com'],
  };
  const open = {
    eventType: 'Open',
    mail,
    open: { timestamp: new Date().toISOString(), userAgent: 'test', ipAddress: '127.0.0.1' },
  };
  const lateDelay = {
    eventType: 'DeliveryDelay',
    mail,
    deliveryDelay: { timestamp: new Date().toISOString(), delayType: 'MailboxFull', delayedRecipients: [] },
  };
  for (const body of [open, open, lateDelay])
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(snsEnvelope(body)) }));

  await lastEvent(id, 'opened');
  await waitFor(
    () => eventsOf(id),
    (events) => events.some((e) => e.type === 'email.delivery_delayed'),
  );
  const events = await eventsOf(id);
  expect(events.filter((e) => e.type === 'email.opened')).toHaveLength(1); // the repeat changed nothing
  expect((await api.get(`/emails/${id}`)).body.last_event).toBe('opened'); // the late delay did not move it back
});

describe('feedback reaches only the project that sent the email', () => {
  // Project B, with a delivered email of its own: the email project A's forged tags would name.
  let other: { projectId: string; key: string };
  let otherEmail: { id: string; message_id: string };
  beforeAll(async () => {
    other = await createOtherProject();
    const name = `status-b-${Date.now().toString(36)}.example.com`;
    const created = await api.post('/domains', { name }, { key: other.key });
    await waitFor(
      () => api.post(`/domains/${created.body.id}/verify`, undefined, { key: other.key }),
      (r) => r.body.status === 'verified',
    );
    const sent = await api.post(
      '/emails',
      { from: `n@${name}`, to: 'reader-b@example.com', subject: 'b', text: 'x' },
      { key: other.key },
    );
    expect(sent.status).toBe(200);
    otherEmail = await waitFor(
      () => api.get(`/emails/${sent.body.id}`, { key: other.key }).then((r) => r.body),
      (e) => e.last_event === 'delivered',
    );
  });

  it.each(['project_id', 'email_id', 'Project_ID'])(
    'refuses a send tagged %s (422), on POST /emails and /emails/batch',
    async (name) => {
      const email = {
        from: `n@${domain}`,
        to: 'bounce@simulator.amazonses.com',
        subject: 'forged',
        text: 'x',
        tags: [
          { name: 'ok', value: 'yes' },
          { name, value: other.projectId },
        ],
      };
      const single = await api.post('/emails', email);
      expect(single.status).toBe(422);
      expect(single.body).toMatchObject({
        name: 'validation_error',
        errors: [{ path: 'tags.1.name', message: expect.stringContaining('reserved') }],
      });
      const batch = await api.post('/emails/batch', [{ ...email, tags: [] }, email]);
      expect(batch.status).toBe(422);
      expect(batch.body.errors).toEqual([expect.objectContaining({ path: '1.tags.1.name' })]);
    },
  );

  it('routes SES feedback by its message id alone: tags naming another project and email are ignored', async () => {
    const address = `reader-${Date.now().toString(36)}@example.com`;
    const id = await send(address);
    const email = await lastEvent(id, 'delivered');
    // What a send with forged tags would publish: A's message id, B's project and email in the tags.
    const mail = {
      messageId: email.ses_message_id,
      tags: { email_id: [otherEmail.id], project_id: [other.projectId] },
      destination: [address],
    };
    const bounce = {
      eventType: 'Bounce',
      mail,
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: address }] },
    };
    for (const QueueName of ['ses-events', 'ses-suppression']) {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(snsEnvelope(bounce)) }));
    }

    // the email and the suppression list of the project the message id names
    await lastEvent(id, 'bounced');
    const entry = await waitFor(
      () => api.get(`/suppressions/${encodeURIComponent(address)}`),
      (r) => r.status === 200,
    );
    expect(entry.body).toMatchObject({ source: 'bounce', message_id: id });
    // and nothing of the project the tags name
    expect((await api.get(`/emails/${otherEmail.id}`, { key: other.key })).body.last_event).toBe('delivered');
    expect((await eventsOf(otherEmail.id, other.projectId)).map((e) => e.type)).not.toContain('email.bounced');
    expect((await api.get(`/suppressions/${encodeURIComponent(address)}`, { key: other.key })).status).toBe(404);
  });

  it('drops an SES event whose configuration set is not the one the email was sent through', async () => {
    const address = `reader-${Date.now().toString(36)}@example.com`;
    const id = await send(address);
    const email = await lastEvent(id, 'delivered');
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'ses-events' }));
    const mail = { messageId: email.ses_message_id, destination: [address] };
    const open = {
      eventType: 'Open',
      mail: { ...mail, tags: { 'ses:configuration-set': ['es-not-this-one'] } },
      open: { timestamp: new Date().toISOString(), userAgent: 'test', ipAddress: '127.0.0.1' },
    };
    // then, in the same batch (handled in order), an event SES published without the tag: its effect shows the batch was handled
    const delay = {
      eventType: 'DeliveryDelay',
      mail,
      deliveryDelay: { timestamp: new Date().toISOString(), delayType: 'MailboxFull', delayedRecipients: [] },
    };
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [open, delay].map((body, i) => ({ Id: String(i), MessageBody: JSON.stringify(snsEnvelope(body)) })),
      }),
    );
    await waitFor(
      () => eventsOf(id),
      (events) => events.some((e) => e.type === 'email.delivery_delayed'),
    );
    expect((await eventsOf(id)).map((e) => e.type)).not.toContain('email.opened');
    expect((await api.get(`/emails/${id}`)).body.last_event).toBe('delivered');
  });
});
