/**
 * SES throttles a send: the sender makes exactly one call (the SDK does not retry it behind the
 * send-rate limiter's back), puts the email back to `queued` and reports the message as a batch
 * item failure; the redelivered message sends it, once; a duplicate message sends nothing.
 * An error SES keeps answering is tried MAX_SEND_ATTEMPTS times, then the email is `failed` with
 * it; a send SES never answers (the connection dropped) may have gone out: `failed`, not retried.
 *
 * The real sender handler runs here against a table of this test's own in the runtime's
 * DynamoDB Local, and an SES v2 endpoint of the test's own that throttles the first send, so the
 * runtime's workers never see these emails.
 */
import { putEmailContent } from '../../shared/emails/content';
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTableInput } from '../../lib/table-definition';
import type { Caller } from '../../shared/platform/caller';
import * as keys from '../../shared/platform/db/keys';
import { getItem, put, putItem, queryPage, transact } from '../../shared/platform/db/table';
import { MAX_SEND_ATTEMPTS, UNCONFIRMED_SEND } from '../../shared/emails/sender';
import { emailWrites, type EmailItem } from '../../shared/emails/emails';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';
import { sqsRecord } from '../support/sqs';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: runtimeCredentials() };
const tableName = `sender-throttling-${newId().slice(-12)}`;
const saved = { ...process.env };
const VARIABLES = ['TABLE_NAME', 'AWS_ENDPOINT_URL_SESV2', 'SEND_RATE_PER_SECOND'];

let dynamo: DynamoDBClient;
let ses: Server;
/** what the fake SES answers next: a throttling error, an accepted send, an error it does not explain, or nothing (the connection dropped) */
let answer: 'throttle' | 'accept' | 'fault' | 'drop' = 'throttle';
const sesCalls: string[] = [];
let sender: (event: SQSEvent, context?: never) => Promise<SQSBatchResponse>;

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false }))); // no stream: nothing reads it (lib/table-definition.ts)
  ses = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/v2/email/account') {
        // GetAccount: the sender reads the daily quota (the rate is SEND_RATE_PER_SECOND's); not a send
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ SendQuota: { Max24HourSend: 50_000, MaxSendRate: 100, SentLast24Hours: 0 } }));
        return;
      }
      sesCalls.push(`${request.method} ${request.url}`);
      if (answer === 'drop') {
        request.socket.destroy();
      } else if (answer === 'fault') {
        response.writeHead(500, { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalFailure' });
        response.end(JSON.stringify({ message: 'Something SES does not explain' }));
      } else if (answer === 'throttle') {
        response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
        response.end(JSON.stringify({ message: 'Maximum sending rate exceeded.' }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ MessageId: `ses-${sesCalls.length}` }));
      }
    });
  });
  await new Promise<void>((resolve) => ses.listen(0, '127.0.0.1', resolve));
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_SESV2: `http://127.0.0.1:${(ses.address() as AddressInfo).port}`,
    SEND_RATE_PER_SECOND: '100',
  });
  // Imported after the environment points at this test's SES (the client reads it when made).
  sender = (await import('../../functions/workers/sender')).handler;
});

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  await new Promise((resolve) => ses.close(resolve));
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
});

const sqsEvent = (messageId: string, body: unknown): SQSEvent => ({
  Records: [sqsRecord(messageId, JSON.stringify(body), 'arn:aws:sqs:ap-southeast-2:000000000000:send')],
});

/** A queued live email of a new project, From its verified domain (the sender re-checks the domain's claim). */
async function queuedEmail(subject: string, sameProject?: Caller): Promise<{ caller: Caller; email: EmailItem }> {
  const caller: Caller = sameProject ?? { projectId: newId(), livemode: true, permission: 'full_access' };
  const domainId = newId();
  if (!sameProject)
    await putItem(
      put({
        ...keys.domainName('throttled.example.com'),
        type: 'domain_name',
        project_id: caller.projectId,
        domain_id: domainId,
        name: 'throttled.example.com',
        state: 'active',
        status: 'verified',
        sending: 'enabled',
        configuration_set: `es-${domainId}`,
      }),
    );
  const email: EmailItem = {
    object: 'email',
    id: newId(),
    project_id: caller.projectId,
    livemode: true,
    message_id: null,
    from: 'news@throttled.example.com',
    to: ['reader@example.com'],
    cc: [],
    bcc: [],
    reply_to: [],
    subject,
    tags: [],
    last_event: 'queued',
    scheduled_at: null,
    created_at: new Date().toISOString(),
  };
  await putEmailContent(caller.projectId, email.id, { html: null, text: 'hello', headers: {} });
  await transact(emailWrites(caller, email));
  return { caller, email };
}

it('puts a throttled email back in the queue after one SES call, then sends it exactly once', async () => {
  answer = 'throttle';
  sesCalls.length = 0;
  const { caller, email } = await queuedEmail('throttled once');
  const message = { project_id: caller.projectId, email_id: email.id };

  const first = await sender(sqsEvent('m-1', message));
  expect(first.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
  expect(sesCalls).toHaveLength(1); // one attempt: no SDK retry outside the rate limiter
  const afterThrottle = await getItem(keys.email(caller.projectId, email.id));
  expect(afterThrottle).toMatchObject({ last_event: 'queued', message_id: null });
  expect(Date.parse(String(afterThrottle!.GSI1SK).split('#')[0])).toBeGreaterThan(Date.now()); // due again later

  answer = 'accept';
  const redelivered = await sender(sqsEvent('m-1', message));
  expect(redelivered.batchItemFailures).toEqual([]);
  expect(sesCalls).toHaveLength(2);
  expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({
    last_event: 'sent',
    message_id: 'ses-2',
  });

  const duplicate = await sender(sqsEvent('m-2', message));
  expect(duplicate.batchItemFailures).toEqual([]);
  expect(sesCalls).toHaveLength(2); // already sent: SES is not called again
  expect(sesCalls.every((call) => call === 'POST /v2/email/outbound-emails')).toBe(true);
  // two claims, one email.sending: a webhook subscriber hears of the send once
  expect(await eventTypes(caller.projectId)).toEqual(['email.queued', 'email.sending', 'email.sent']);
});

/** The types of a project's events, oldest first. */
async function eventTypes(projectId: string): Promise<string[]> {
  const { items } = await queryPage(keys.events(projectId), { limit: 100 });
  return items.reverse().map((item) => String(item.event_type));
}

it('at a rate of 1 a second, a burst waits for its slots without writing anything, and each email is sent once', async () => {
  answer = 'accept';
  sesCalls.length = 0;
  process.env.SEND_RATE_PER_SECOND = '1';
  try {
    const first = await queuedEmail('slow 1');
    const emails = [first, ...(await Promise.all([2, 3, 4, 5].map((n) => queuedEmail(`slow ${n}`, first.caller))))];
    const byMessage = new Map(
      emails.map(({ caller, email }, n) => [`s-${n}`, { project_id: caller.projectId, email_id: email.id }]),
    );
    let pending = [...byMessage.keys()];
    const waited: string[] = [];
    for (let round = 0; pending.length && round < 20; round++) {
      const event = { Records: pending.flatMap((id) => sqsEvent(id, byMessage.get(id)).Records) } as SQSEvent;
      // an invocation with 12 s left may wait 2 s for slots: at 1 a second, not all five get one
      const result = await sender(event, { getRemainingTimeInMillis: () => 12_000 } as never);
      pending = result.batchItemFailures.map((f) => f.itemIdentifier);
      waited.push(...pending);
    }
    expect(pending).toEqual([]);
    expect(waited.length).toBeGreaterThan(0); // some had to come back later ...
    expect(sesCalls).toHaveLength(5); // ... and nothing was sent twice
    for (const { caller, email } of emails)
      expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({
        last_event: 'sent',
        send_attempts: 1,
      });
    const types = await eventTypes(first.caller.projectId);
    for (const type of ['email.queued', 'email.sending', 'email.sent'])
      expect(types.filter((t) => t === type)).toHaveLength(5);
  } finally {
    process.env.SEND_RATE_PER_SECOND = '100';
  }
}, 120_000);

it(`tries an error SES keeps answering ${MAX_SEND_ATTEMPTS} times, then ends the email failed with that error`, async () => {
  answer = 'fault';
  sesCalls.length = 0;
  const { caller, email } = await queuedEmail('never accepted');
  const message = { project_id: caller.projectId, email_id: email.id };
  for (let attempt = 1; attempt < MAX_SEND_ATTEMPTS; attempt++) {
    expect((await sender(sqsEvent(`f-${attempt}`, message))).batchItemFailures).toHaveLength(1);
    expect(await getItem(keys.email(caller.projectId, email.id))).toMatchObject({
      last_event: 'queued',
      send_attempts: attempt,
    });
  }
  expect((await sender(sqsEvent('f-last', message))).batchItemFailures).toEqual([]);
  expect(sesCalls).toHaveLength(MAX_SEND_ATTEMPTS);
  const failed = await getItem(keys.email(caller.projectId, email.id));
  expect(failed).toMatchObject({
    last_event: 'failed',
    failure_reason: `InternalFailure: Something SES does not explain (after ${MAX_SEND_ATTEMPTS} attempts)`,
  });
  expect(failed?.GSI1PK).toBeUndefined(); // the dispatcher will not bring it back

  expect((await sender(sqsEvent('f-again', message))).batchItemFailures).toEqual([]);
  expect(sesCalls).toHaveLength(MAX_SEND_ATTEMPTS); // a late message changes nothing
}, 90_000); // five sender invocations: on a busy 2-core machine over 30 s (clean-clone runs)

it('ends an email failed, without trying again, when SES never answered (it may have sent it)', async () => {
  answer = 'drop';
  sesCalls.length = 0;
  const { caller, email } = await queuedEmail('no answer');
  const message = { project_id: caller.projectId, email_id: email.id };
  expect((await sender(sqsEvent('d-1', message))).batchItemFailures).toEqual([]);
  expect(sesCalls).toHaveLength(1);
  const failed = await getItem(keys.email(caller.projectId, email.id));
  expect(failed?.last_event).toBe('failed');
  expect(String(failed?.failure_reason)).toMatch(new RegExp(`^${UNCONFIRMED_SEND.replace(/[.;]/g, '.')} \\(`));
});
