/**
 * The broadcast fan-out killed in the middle of a page, and losing its next-page message, still
 * gives every recipient exactly one email and counts each recipient once.
 *
 * The real fan-out handler runs here, fed by a queue poller of our own (Lambda's batch
 * semantics, local/lambda/queue-poller.ts) from a fan-out queue and a table of this test's own in
 * the runtime's DynamoDB Local and SQS, so the runtime's workers never see these items. The send
 * queue is ours too: nothing consumes it, the test reads what was enqueued.
 *   page 1: done, but its next-page message cannot be sent (the queue URL points nowhere): the
 *           chain stops until the due-broadcast dispatcher finds the lease run out;
 * Pages of 40 (a page of sends is two transactions of at most 100 actions).
 *   page 2: the first transaction of the page commits, then the Lambda "dies" as it sends the
 *           second (the AWS call guard, every call's door, throws instead): the message comes back
 *           and the page is done again;
 *   page 3: as it should.
 */
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { handler as fanOut } from '../../functions/workers/broadcast-fanout';
import { QueuePoller } from '../../local/lambda/queue-poller';
import { createTableInput } from '../../lib/table-definition';
import { dispatchDueBroadcasts } from '../../shared/broadcasts/due';
import { fanOutQueue } from '../../shared/broadcasts/queue';
import { FANOUT_LEASE_MS } from '../../shared/broadcasts/broadcasts';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import * as table from '../../shared/platform/db/table';
import { installAwsCallChecker } from '../../shared/platform/aws/call-guard';
import { newId } from '../../shared/platform/ids';
import { readUnsubscribeToken } from '../../shared/broadcasts/unsubscribe';
import { getEmailContent } from '../../shared/emails/content';
import { useRuntimeTable } from '../support/table';
import { receiveAndDeleteAll, sqsRecord } from '../support/sqs';
import { invoke, workerFunction } from '../../local/lambda/invocation';
import { fanOutParallelism, MAX_PAGE_ATTEMPTS } from '../../shared/broadcasts/fanout';
import { runtimeCredentials } from '../support/stand-ins';

const runtime = useRuntimeTable();
const config = { region: 'ap-southeast-2', credentials: runtimeCredentials() };
const suffix = newId().slice(-12);
const tableName = `broadcast-fanout-${suffix}`;
const saved = { ...process.env };
const VARIABLES = [
  'TABLE_NAME',
  'AWS_ENDPOINT_URL_SQS',
  'SEND_RATE_PER_SECOND',
  'QUEUE_URL_BROADCAST_FANOUT',
  'QUEUE_URL_SEND',
  'QUEUE_URL_SEND_BULK',
  'BROADCAST_PAGE_SIZE',
  'PUBLIC_API_URL',
];

let dynamo: DynamoDBClient;
let sqs: SQSClient;
let fanOutQueueUrl: string;
let sendQueueUrl: string;

// The local runtime's check of each AWS call against the calling function's needs
// (local/lambda/invocation.ts): a test that injects a fault there puts it back after.
const checkNeeds = globalThis.__awsCallChecker;
afterEach(() => installAwsCallChecker(checkNeeds));

beforeAll(async () => {
  dynamo = new DynamoDBClient({ ...config, endpoint: runtime.dynamoDbEndpoint });
  sqs = new SQSClient({ ...config, endpoint: runtime.sqsEndpoint });
  await dynamo.send(new CreateTableCommand(createTableInput(tableName, { stream: false }))); // no stream: nothing reads it (lib/table-definition.ts)
  fanOutQueueUrl = (
    await sqs.send(
      new CreateQueueCommand({ QueueName: `broadcast-fanout-${suffix}`, Attributes: { VisibilityTimeout: '1' } }),
    )
  ).QueueUrl!;
  sendQueueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `send-${suffix}` }))).QueueUrl!;
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    AWS_ENDPOINT_URL_SQS: runtime.sqsEndpoint,
    QUEUE_URL_BROADCAST_FANOUT: fanOutQueueUrl,
    QUEUE_URL_SEND: sendQueueUrl,
    QUEUE_URL_SEND_BULK: sendQueueUrl, // broadcast emails go to the bulk lane
    BROADCAST_PAGE_SIZE: '40',
    SEND_RATE_PER_SECOND: '10',
    PUBLIC_API_URL: 'https://email.example.test',
  });
});

afterAll(async () => {
  await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
  for (const url of [fanOutQueueUrl, sendQueueUrl])
    await sqs.send(new DeleteQueueCommand({ QueueUrl: url })).catch(() => undefined);
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  dynamo.destroy();
  sqs.destroy();
});

/** The fan-out function fed from a fan-out queue of this test's, one message per invocation, through `handler`. */
async function fanOutPoller(
  handler: (event: never) => ReturnType<typeof fanOut>,
  queueUrl = fanOutQueueUrl,
): Promise<QueuePoller> {
  const queueArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] })))
    .Attributes!.QueueArn!;
  return new QueuePoller({
    fn: workerFunction('broadcast-fanout'),
    sqs,
    queueUrl,
    queueArn,
    batchSize: 1,
    handler: handler as never,
    idleMs: 20,
  });
}

/** Every item of a (sharded) collection of this test's table. */
async function queryAll(collection: { PKs: string[]; prefix: string }) {
  const items: Record<string, unknown>[] = [];
  for (const pk of collection.PKs) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const out = await documentClient.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :p)',
          ExpressionAttributeValues: { ':pk': pk, ':p': collection.prefix },
          ExclusiveStartKey,
        }),
      );
      items.push(...(out.Items ?? []));
      ExclusiveStartKey = out.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return items;
}

/** Every message of the queue, deleted as it is read: a message only received would come back after its visibility and be counted again by a later test of this file (a slow run did). */
const drain = (queueUrl: string): Promise<string[]> => receiveAndDeleteAll(sqs, queueUrl);

it('sends every recipient exactly one email when a page dies halfway and a next-page message is lost', async () => {
  const projectId = newId();
  const segmentId = newId();
  const topicId = newId();
  const broadcastId = newId();
  const at = new Date().toISOString();
  const base = { project_id: projectId, created_at: at, updated_at: at };
  const contacts = Array.from({ length: 100 }, (_, i) => ({
    ...keys.contact(projectId, newId()),
    ...base,
    type: 'contact',
    email: `reader${i}@example.com`,
    first_name: `Reader${i}`,
    last_name: null,
    unsubscribed: i === 0,
    properties: { plan: i % 2 ? 'pro' : 'free' },
    segment_ids: [segmentId],
    topics: i === 2 ? { [topicId]: 'opt_out' } : {},
  })).map((c) => ({ ...c, id: c.SK.slice('CONTACT#'.length) }));
  const items = [
    { ...keys.segment(projectId, segmentId), ...base, type: 'segment', id: segmentId, name: 'All' },
    {
      ...keys.topic(projectId, topicId),
      ...base,
      type: 'topic',
      id: topicId,
      name: 'News',
      description: null,
      default_subscription: 'opt_in',
      visibility: 'public',
    },
    { ...keys.suppression(projectId, contacts[1].email), ...base, type: 'suppression', email: contacts[1].email },
    // the sending domain's name claim, as createDomain leaves it: the fan-out takes its configuration set
    {
      ...keys.domainName('example.com'),
      type: 'domain_name',
      project_id: projectId,
      domain_id: 'd-1',
      name: 'example.com',
      state: 'active',
      claimed_at: at,
      configuration_set: 'es-d-1',
      status: 'verified',
      sending: 'enabled',
    },
    ...contacts,
    ...contacts.map((c) => ({
      ...keys.segmentMember(projectId, segmentId, c.id),
      ...base,
      type: 'segment_member',
      segment_id: segmentId,
      contact_id: c.id,
    })),
    {
      ...keys.broadcast(projectId, broadcastId),
      ...keys.broadcastDue(projectId, broadcastId, new Date(Date.now() + FANOUT_LEASE_MS).toISOString()),
      ...base,
      type: 'broadcast',
      id: broadcastId,
      name: 'November',
      segment_id: segmentId,
      topic_id: topicId,
      from: 'News <news@example.com>',
      subject: 'Hello {{{FIRST_NAME}}}',
      reply_to: null,
      preview_text: null,
      status: 'queued',
      scheduled_at: null,
      sent_at: null,
      count_recipients: 0,
      count_sent: 0,
      count_skipped: 0,
      count_failed: 0,
      livemode: true,
      cursor: '',
    },
    {
      ...keys.broadcastContent(projectId, broadcastId),
      type: 'broadcast_content',
      html: '<p>Hi {{FIRST_NAME}} ({{{plan}}})</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
      text: 'Hi {{FIRST_NAME}}',
    },
  ];
  for (let i = 0; i < items.length; i += 25)
    await table.transact(items.slice(i, i + 25).map((item) => table.put(item)));

  // page 1's next-page message goes nowhere; page 2 dies after its first transaction
  let pages = 0;
  let pageTwoTransactions = 0;
  installAwsCallChecker((call) => {
    checkNeeds?.(call);
    if (pages === 2 && call.operation === 'TransactWriteItemsCommand' && ++pageTwoTransactions === 2)
      throw new Error('the Lambda died here');
  });
  const poller = await fanOutPoller(async (event) => {
    pages++;
    if (pages === 1)
      process.env.QUEUE_URL_BROADCAST_FANOUT = `${runtime.sqsEndpoint}/000000000000/no-such-queue-${suffix}`;
    try {
      return await fanOut(event);
    } finally {
      process.env.QUEUE_URL_BROADCAST_FANOUT = fanOutQueueUrl;
    }
  });
  const broadcast = () => table.getItem(keys.broadcast(projectId, broadcastId));
  const pollUntil = async (done: () => Promise<boolean>) => {
    // generous: on a busy 2-core machine (the whole suite, two workers) the died page's retry took over 20 s
    for (const deadline = Date.now() + 45_000; !(await done()) && Date.now() < deadline; ) {
      await poller.pollOnce();
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  await fanOutQueue.enqueue([{ project_id: projectId, broadcast_id: broadcastId, after: '' }]);
  await pollUntil(async () => pages >= 1);
  // page 1 done and its message deleted (not failed: it would come back after its 1 s visibility), and no next page enqueued
  const fanOutBacklog = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: fanOutQueueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  expect(fanOutBacklog.Attributes).toEqual({
    ApproximateNumberOfMessages: '0',
    ApproximateNumberOfMessagesNotVisible: '0',
    ApproximateNumberOfMessagesDelayed: '0',
  });
  expect(await poller.pollOnce()).toBe(0); // nothing: the next-page message was lost
  expect(pages).toBe(1);
  expect(await broadcast()).toMatchObject({ status: 'sending', count_recipients: 40 });

  // the dispatcher, once the lease has run out, resumes from the cursor
  expect(await dispatchDueBroadcasts(new Date(Date.now() + FANOUT_LEASE_MS + 1000))).toBe(1);
  await pollUntil(async () => (await broadcast())?.status === 'sent');

  expect(pages).toBe(4); // 1, 2 (died), 2 again, 3
  expect(await broadcast()).toMatchObject({
    status: 'sent',
    count_recipients: 100,
    count_sent: 97,
    count_skipped: 3,
    count_failed: 0,
  });

  const emails = await queryAll(keys.emails(projectId));
  expect(emails).toHaveLength(97);
  const recipients = emails.map((e) => (e.to as string[])[0]);
  expect(new Set(recipients).size).toBe(97);
  expect(recipients).not.toEqual(expect.arrayContaining([contacts[0].email, contacts[1].email, contacts[2].email]));
  const sample = emails.find((e) => (e.to as string[])[0] === 'reader7@example.com')!;
  expect(sample).toMatchObject({
    broadcast_id: broadcastId,
    subject: 'Hello Reader7',
    last_event: 'queued',
    from: 'News <news@example.com>',
    configuration_set: 'es-d-1',
  });
  expect(sample).not.toHaveProperty('html'); // the content is stored once, apart from the email's item
  const content = (await getEmailContent(projectId, sample.id as string))!;
  expect(content.text).toBe('Hi Reader7');
  expect(content.html).toMatch(
    /^<p>Hi Reader7 \(pro\)<\/p><a href="https:\/\/email\.example\.test\/unsubscribe\/[A-Za-z0-9_-]+">/,
  );
  const headers = content.headers;
  expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
  const token = /^<https:\/\/email\.example\.test\/unsubscribe\/([A-Za-z0-9_-]+)>$/.exec(
    headers['List-Unsubscribe'],
  )![1];
  expect(await readUnsubscribeToken(token)).toEqual({ projectId, contactId: contacts[7].id, topicId });

  const outcomes = await queryAll(keys.broadcastRecipients(projectId, broadcastId));
  expect(outcomes).toHaveLength(100);
  expect(Object.fromEntries(outcomes.filter((o) => o.outcome === 'skipped').map((o) => [o.email, o.reason]))).toEqual({
    [contacts[0].email]: 'unsubscribed',
    [contacts[1].email]: 'suppressed',
    [contacts[2].email]: 'topic_opt_out',
  });

  // each email's send lease lasts until about its turn at 10/s, so the dispatcher does not re-enqueue the backlog
  const dues = emails.map((e) => Date.parse(String(e.GSI1SK).split('#')[0])).sort((a, b) => a - b);
  expect(dues[dues.length - 1] - dues[0]).toBeGreaterThan(8_000); // 97 emails at 10/s: ~9.6 s apart first to last

  // every email went on the send queue (some pages' emails twice would be harmless: the sender claims them)
  const enqueued = new Set((await drain(sendQueueUrl)).map((body) => JSON.parse(body).email_id as string));
  expect(enqueued).toEqual(new Set(emails.map((e) => e.id as string)));
}, 120_000);

it('ends a broadcast failed, with the page and the error, when a page keeps failing', async () => {
  const { projectId, broadcastId } = await queuedBroadcast(1);
  // every transaction of the fan-out fails, as DynamoDB refuses one that is too large
  installAwsCallChecker((call) => {
    checkNeeds?.(call);
    if (call.operation === 'TransactWriteItemsCommand')
      throw Object.assign(new Error('Transaction payload size cannot exceed 4MB'), { name: 'ValidationException' });
  });
  const message = { project_id: projectId, broadcast_id: broadcastId, after: '' };
  const event = { Records: [sqsRecord('m', JSON.stringify(message))] };
  const answers = [];
  for (let attempt = 1; attempt <= MAX_PAGE_ATTEMPTS; attempt++)
    answers.push(
      ((await invoke(workerFunction('broadcast-fanout'), fanOut as never, event)) as { batchItemFailures: unknown[] })
        .batchItemFailures.length,
    );
  expect(answers).toEqual([1, 1, 1, 1, 0]); // retried four times, then done with: the broadcast has ended
  const ended = await table.getItem(keys.broadcast(projectId, broadcastId));
  expect(ended).toMatchObject({
    status: 'failed',
    failure_reason: `the page of recipients at the start of the segment failed ${MAX_PAGE_ATTEMPTS} times: ValidationException: Transaction payload size cannot exceed 4MB`,
  });
  expect(ended?.GSI1PK).toBeUndefined(); // the due-broadcast dispatcher will not bring it back
});

it("drops a message that is not the broadcast's cursor, and reports an unreadable one as a batch item failure", async () => {
  const stale = JSON.stringify({ project_id: newId(), broadcast_id: newId(), after: '' }); // readable, no such broadcast: done with
  const result = await fanOut({
    Records: [sqsRecord('bad-json', '{'), sqsRecord('bad-shape', '{"project_id":1}'), sqsRecord('stale', stale)],
  } as never);
  expect(result.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['bad-json', 'bad-shape']);
});

/** A queued broadcast of `count` contacts (none skipped) from a verified domain, straight into this test's table. */
async function queuedBroadcast(count: number) {
  const projectId = newId();
  const segmentId = newId();
  const broadcastId = newId();
  const at = new Date().toISOString();
  const base = { project_id: projectId, created_at: at, updated_at: at };
  const domain = `${newId().slice(-8)}.${suffix}.example.com`; // a name of its own: the claim is deployment-wide
  const contactIds = Array.from({ length: count }, () => newId());
  const items = [
    { ...keys.segment(projectId, segmentId), ...base, type: 'segment', id: segmentId, name: 'All' },
    {
      ...keys.domainName(domain),
      type: 'domain_name',
      project_id: projectId,
      domain_id: 'd-3',
      name: domain,
      state: 'active',
      claimed_at: at,
      configuration_set: 'es-d-3',
      status: 'verified',
      sending: 'enabled',
    },
    ...contactIds.flatMap((id, i) => [
      {
        ...keys.contact(projectId, id),
        ...base,
        type: 'contact',
        id,
        email: `member${i}@example.com`,
        first_name: null,
        last_name: null,
        unsubscribed: false,
        segment_ids: [segmentId],
        topics: {},
      },
      {
        ...keys.segmentMember(projectId, segmentId, id),
        ...base,
        type: 'segment_member',
        segment_id: segmentId,
        contact_id: id,
      },
    ]),
    {
      ...keys.broadcast(projectId, broadcastId),
      ...keys.broadcastDue(projectId, broadcastId, new Date(Date.now() + FANOUT_LEASE_MS).toISOString()),
      ...base,
      type: 'broadcast',
      id: broadcastId,
      segment_id: segmentId,
      topic_id: null,
      from: `news@${domain}`,
      subject: 'Hello',
      status: 'queued',
      livemode: true,
      cursor: '',
      pages_in_flight: 0,
      exhausted: false,
    },
    {
      ...keys.broadcastContent(projectId, broadcastId),
      type: 'broadcast_content',
      html: '<p>Hi {{EMAIL}}</p>',
      text: null,
    },
  ];
  for (let i = 0; i < items.length; i += 25)
    await table.transact(items.slice(i, i + 25).map((item) => table.put(item)));
  return { projectId, broadcastId };
}

it('runs pages of one broadcast side by side, as many as the send rate needs, and still sends each recipient once', async () => {
  process.env.SEND_RATE_PER_SECOND = '200'; // fanOutParallelism(200) = 4 pages in flight
  expect(fanOutParallelism(200)).toBe(4);
  expect(fanOutParallelism(14)).toBe(1); // SES's default rate: one chain keeps up
  const { projectId, broadcastId } = await queuedBroadcast(200); // 5 pages of 40
  // a queue of its own whose visibility outlasts the function's timeout (30 s), as Lambda needs: a page
  // still running never comes back to a second poller (the same message id would own the page twice),
  // while a page that threw or timed out (CI, a loaded machine) comes back within the deadline and is resumed
  const queueUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: `broadcast-fanout-parallel-${suffix}`,
        Attributes: { VisibilityTimeout: '35' },
      }),
    )
  ).QueueUrl!;
  process.env.QUEUE_URL_BROADCAST_FANOUT = queueUrl;
  const pagesInFlight = async () =>
    (await queryAll({ PKs: [keys.broadcastPages(projectId, broadcastId).PK], prefix: 'PAGE#' })).length;
  let most = 0;
  const poller = await fanOutPoller(fanOut, queueUrl);
  // pages claimed and not yet done, sampled all along (one at a time at most, were pages one chain)
  const broadcast = async () => {
    const item = await table.getItem(keys.broadcast(projectId, broadcastId));
    most = Math.max(most, Number(item?.pages_in_flight ?? 0));
    return item;
  };
  await fanOutQueue.enqueue([{ project_id: projectId, broadcast_id: broadcastId, after: '' }]);
  // four Lambdas at once, as the fan-out function's concurrency allows, and the sampler
  const deadline = Date.now() + 100_000;
  const going = async () => (await broadcast())?.status !== 'sent' && Date.now() < deadline;
  await Promise.all([
    ...Array.from({ length: 4 }, async () => {
      while (await going()) {
        if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 100));
      }
    }),
    (async () => {
      while (await going()) await new Promise((r) => setTimeout(r, 50)); // a page takes ~0.4 s alone: sampled often enough, without crowding DynamoDB Local
    })(),
  ]);
  process.env.QUEUE_URL_BROADCAST_FANOUT = fanOutQueueUrl;
  expect(await broadcast()).toMatchObject({
    status: 'sent',
    count_recipients: 200,
    count_sent: 200,
    count_skipped: 0,
    pages_in_flight: 0,
    exhausted: true,
  });
  expect(most).toBeGreaterThanOrEqual(2); // pages did run side by side ...
  expect(most).toBeLessThanOrEqual(4); // ... never more than the rate needs
  expect(await pagesInFlight()).toBe(0);
  const emails = await queryAll(keys.emails(projectId));
  expect(new Set(emails.map((e) => (e.to as string[])[0])).size).toBe(200);
  expect(emails).toHaveLength(200);
  // each page done once: another message for a page in flight is dropped, not a second run of it
  expect((await drain(sendQueueUrl)).filter((body) => JSON.parse(body).project_id === projectId)).toHaveLength(200);
  await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
}, 150_000);

it("drops a second message for a page another message is doing, and takes the page over once its lease ran out (the dispatcher's re-send)", async () => {
  const { projectId, broadcastId } = await queuedBroadcast(80); // 2 pages of 40
  const message = { project_id: projectId, broadcast_id: broadcastId, after: '' };
  const run = (messageId: string) =>
    invoke(workerFunction('broadcast-fanout'), fanOut as never, {
      Records: [sqsRecord(messageId, JSON.stringify(message))],
    }) as Promise<{ batchItemFailures: unknown[] }>;
  // the first message claims page 1 and its Lambda dies at the page's first transaction after the claim
  let transactions = 0;
  installAwsCallChecker((call) => {
    checkNeeds?.(call);
    if (call.operation === 'TransactWriteItemsCommand' && ++transactions === 2) throw new Error('the Lambda died here');
  });
  expect((await run('first')).batchItemFailures).toHaveLength(1);
  installAwsCallChecker(checkNeeds);
  const page = () => table.getItem(keys.broadcastPage(projectId, broadcastId, ''));
  expect(await page()).toMatchObject({ claimed_by: 'first', contact_ids: expect.any(Array) });

  // another message for the same page, while the first one's lease lasts: dropped, nothing written
  expect((await run('second')).batchItemFailures).toEqual([]);
  expect(await queryAll(keys.emails(projectId))).toEqual([]);
  expect(await page()).toMatchObject({ claimed_by: 'first' });

  // the first message is lost for good; once the broadcast's and the page's leases ran out, the dispatcher
  // re-sends the cursor's page and the page in flight, and the latter's new message takes the page over
  await table.updateItem(
    table.update(keys.broadcastPage(projectId, broadcastId, ''), {
      set: { lease_until: new Date(Date.now() - 1000).toISOString() },
    }),
  );
  expect(await dispatchDueBroadcasts(new Date(Date.now() + FANOUT_LEASE_MS + 1000))).toBe(2);
  const poller = await fanOutPoller(fanOut);
  const broadcast = () => table.getItem(keys.broadcast(projectId, broadcastId));
  for (const deadline = Date.now() + 30_000; (await broadcast())?.status !== 'sent' && Date.now() < deadline; ) {
    if ((await poller.pollOnce()) === 0) await new Promise((r) => setTimeout(r, 50));
  }
  expect(await broadcast()).toMatchObject({ status: 'sent', count_recipients: 80, count_sent: 80, pages_in_flight: 0 });
  expect(await page()).toBeUndefined();
  const emails = await queryAll(keys.emails(projectId));
  expect(new Set(emails.map((e) => (e.to as string[])[0])).size).toBe(80);
  expect(emails).toHaveLength(80);
  await drain(sendQueueUrl);
}, 60_000);
