/**
 * The local runtime refuses what AWS refuses (local/lambda/): a call outside the function's
 * needs gets AWS's AccessDenied, a function past its timeout is stopped (its later calls never
 * reach AWS), API Gateway's and Lambda's payload limits and timeouts give API Gateway's answers,
 * event source batches stay within Lambda's 6 MB, and every queue refuses a message over SQS's
 * limit. The handlers here are small stand-ins for our own; the clients, DynamoDB Local and the
 * runtime's queues are the real ones.
 */
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { QUEUE_MAX_MESSAGE_BYTES, queues, queueUrlVariable } from '../../functions/workers';
import { integrate } from '../../local/lambda/http-gateway';
import {
  eventsWithin,
  invoke,
  MAX_BATCH_EVENT_BYTES,
  payloadBytes,
  workerFunction,
  type FunctionIdentity,
} from '../../local/lambda/invocation';
import { documentClient, tableName } from '../../shared/platform/db/client';
import { sendQueue } from '../../shared/emails/send-queue';
import { useRuntimeTable } from '../support/table';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const MB = 1024 * 1024;
const key = (id: string) => ({ PK: `TEST#lambda-emulation`, SK: id });
const fn = (name: string, needs: FunctionIdentity['needs'], timeoutMs = 5_000): FunctionIdentity => ({
  name,
  needs,
  timeoutMs,
});

describe('a function may call only what its needs grant', () => {
  it('refuses a table action it is not granted with AWS AccessDenied naming the function and the action', async () => {
    const reader = fn('GetThings', { table: ['GetItem'] });
    await expect(
      invoke(reader, async () => documentClient.send(new GetCommand({ TableName: tableName(), Key: key('a') })), {}),
    ).resolves.toBeDefined();
    const writing = invoke(
      reader,
      async () => documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key('a') } })),
      {},
    );
    await expect(writing).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringMatching(/GetThings is not authorized to perform: dynamodb:PutItem/),
    });
    expect(await documentClient.send(new GetCommand({ TableName: tableName(), Key: key('a') }))).not.toHaveProperty(
      'Item',
    ); // nothing written
  });

  it('checks each item of a transaction: a ConditionCheck needs ConditionCheckItem', async () => {
    const transaction = () =>
      documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName(), Item: { ...key('b') } } },
            {
              ConditionCheck: {
                TableName: tableName(),
                Key: key('b-claim'),
                ConditionExpression: 'attribute_not_exists(PK)',
              },
            },
          ],
        }),
      );
    await expect(invoke(fn('PutThings', { table: ['PutItem'] }), transaction, {})).rejects.toMatchObject({
      message: expect.stringMatching(/dynamodb:ConditionCheckItem/),
    });
    await expect(
      invoke(fn('PutThingsChecked', { table: ['PutItem', 'ConditionCheckItem'] }), transaction, {}),
    ).resolves.toBeDefined();
  });

  it('lets a function send only to the queues it names', async () => {
    const sqs = new SQSClient({
      endpoint: runtime.sqsEndpoint,
      region: 'ap-southeast-2',
      credentials: runtimeCredentials(),
    });
    process.env.AWS_ENDPOINT_URL_SQS = runtime.sqsEndpoint;
    process.env[queueUrlVariable('send')] = (await sqs.send(new GetQueueUrlCommand({ QueueName: 'send' }))).QueueUrl;
    sqs.destroy();
    // an email that does not exist: the sender drops the message
    const sendOne = () => sendQueue.enqueue([{ project_id: 'no-such-project', email_id: 'no-such-email' }]);
    await expect(invoke(fn('NamesNoQueue', {}), sendOne, {})).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message: expect.stringMatching(/NamesNoQueue is not authorized to perform: sqs:SendMessage/),
    });
    await expect(invoke(fn('NamesTheSendQueue', { queues: ['send'] }), sendOne, {})).resolves.toBeUndefined();
  });

  it('does not check calls made outside an invocation (the runtime itself, a test)', async () => {
    await expect(
      documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key('outside') } })),
    ).resolves.toBeDefined();
  });
});

describe('timeouts', () => {
  it('fails an invocation past its timeout and refuses the AWS calls it still makes', async () => {
    let lateCall: Promise<unknown> | undefined;
    const slow = invoke(
      fn('SlowThing', { table: ['PutItem'] }, 100),
      async () => {
        await new Promise((r) => setTimeout(r, 300));
        lateCall = documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key('late') } }));
        return lateCall;
      },
      {},
    );
    await expect(slow).rejects.toMatchObject({
      name: 'Sandbox.Timedout',
      message: expect.stringMatching(/Task timed out after 0.10 seconds/),
    });
    await new Promise((r) => setTimeout(r, 400));
    await expect(lateCall).rejects.toMatchObject({ name: 'InvocationTimedOut' });
    expect(await documentClient.send(new GetCommand({ TableName: tableName(), Key: key('late') }))).not.toHaveProperty(
      'Item',
    );
  });
});

describe('API Gateway and Lambda in front of a route', () => {
  const event = (body = ''): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: 'POST /things',
      rawPath: '/things',
      rawQueryString: '',
      headers: {},
      body,
      isBase64Encoded: false,
      requestContext: { requestId: 'r-1' },
    }) as never;
  let logged: jest.SpyInstance;
  beforeEach(() => (logged = jest.spyOn(console, 'error').mockImplementation(() => undefined)));
  afterEach(() => logged.mockRestore());
  const answer = (bytes: number) => async () => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ padding: 'x'.repeat(bytes) }),
  });

  it('answers 500 when the function returns more than 6 MB, as Lambda and HTTP API do', async () => {
    const big = await integrate(fn('BigAnswer', {}), answer(7 * MB), event());
    expect(big).toEqual({
      statusCode: 500,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Internal Server Error' }),
    });
    expect(logged).toHaveBeenCalledWith(expect.stringMatching(/"function":"BigAnswer".*ResponseSizeTooLarge/));
    expect((await integrate(fn('BigAnswer', {}), answer(5 * MB), event())).statusCode).toBe(200);
  });

  it("answers 413 when the event is over Lambda's 6 MB, without invoking the function", async () => {
    let invoked = false;
    const result = await integrate(
      fn('BigRequest', {}),
      async () => ((invoked = true), { statusCode: 200 }),
      event('y'.repeat(6 * MB + 1)),
    );
    expect(result).toMatchObject({ statusCode: 413, body: JSON.stringify({ message: 'Request Entity Too Large' }) });
    expect(invoked).toBe(false);
  });

  it('answers 500 for a function past its timeout and 503 when API Gateway stops waiting first', async () => {
    const slow = async () => (await new Promise((r) => setTimeout(r, 400)), { statusCode: 200 });
    expect((await integrate(fn('SlowRoute', {}, 100), slow, event())).statusCode).toBe(500);
    expect(await integrate(fn('SlowerThanGateway', {}, 5_000), slow, event(), 100)).toMatchObject({
      statusCode: 503,
      body: JSON.stringify({ message: 'Service Unavailable' }),
    });
  });
});

describe('event source batches and queue messages', () => {
  it('cuts a batch of records where its event would pass 6 MB, keeping their order', () => {
    const records = Array.from({ length: 10 }, (_, i) => ({ id: i, image: 'z'.repeat(800 * 1024) })); // stream records of up to 2 x 400 KB
    const batches = eventsWithin(records, MAX_BATCH_EVENT_BYTES);
    expect(batches.length).toBe(2);
    expect(batches.flat().map((r) => r.id)).toEqual(records.map((r) => r.id));
    for (const batch of batches) expect(payloadBytes({ Records: batch })).toBeLessThanOrEqual(MAX_BATCH_EVENT_BYTES);
  });

  it("makes every queue refuse a message over SQS's 256 KiB, as the stack configures it", async () => {
    const sqs = new SQSClient({
      endpoint: runtime.sqsEndpoint,
      region: 'ap-southeast-2',
      credentials: runtimeCredentials(),
    });
    for (const queue of queues) {
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queue.name }));
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['MaximumMessageSize'] }),
      );
      expect(Number(Attributes?.MaximumMessageSize)).toBe(QUEUE_MAX_MESSAGE_BYTES);
    }
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: 'send' }));
    const tooBig = sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'q'.repeat(QUEUE_MAX_MESSAGE_BYTES + 1) }));
    await expect(tooBig).rejects.toMatchObject({
      message: expect.stringMatching(/Message must be shorter than 262144 bytes/),
    });
    sqs.destroy();
  });
});

describe('grants whose call a shared cache hides locally', () => {
  // The runtime's functions share one process, so the account's send rate that one of them read is
  // cached for all (shared/emails/send-rate.ts): which function calls GetAccount first is a race.
  // Here each reads it with a cache of its own (a fresh module), as each Lambda does on AWS.
  it.each(['sender', 'bulk-sender', 'broadcast-fanout'])(
    'lets the %s worker read the account send rate from SES',
    async (worker) => {
      Object.assign(process.env, { AWS_ENDPOINT_URL_SESV2: runtime.sesEndpoint });
      delete process.env.SEND_RATE_PER_SECOND;
      let sendRate: typeof import('../../shared/emails/send-rate') | undefined;
      jest.isolateModules(() => {
        sendRate = require('../../shared/emails/send-rate');
      });
      const rate = await invoke(workerFunction(worker), () => sendRate!.maxSendRate(), {});
      expect(rate).toBeGreaterThanOrEqual(1);
    },
  );
});
