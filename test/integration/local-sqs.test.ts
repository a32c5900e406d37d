/**
 * The local SQS (local/aws/sqs.ts) through the real @aws-sdk/client-sqs, which checks every
 * answer's MD5 digests and maps errors to its own classes: a message from send to delete, what SQS
 * refuses, the dead-letter queue and its redrive, the long poll; then the journal: a stand-in
 * killed with SIGKILL in a process of its own comes back with every message it confirmed, each
 * visible again at its own time, and opens a journal whose last line a kill tore.
 *
 * In memory, the stand-in runs on a clock of this file's (as the runtime's LOCAL_CLOCK=manual):
 * delays and visibility timeouts run out when a test moves it, not when the machine's time passes.
 * How long a long poll holds its request stays the machine's time, as in the runtime
 * (local/clock.ts), and so does a move task's pace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListMessageMoveTasksCommand,
  type MessageAttributeValue,
  MessageNotInflight,
  QueueDoesNotExist,
  QueueNameExists,
  ReceiptHandleIsInvalid,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '../../local/aws/sqs';
import { OWN_STAND_IN_CREDENTIALS } from '../support/stand-ins';
import { waitFor } from '../support/wait';

const region = 'ap-southeast-2';
const client = (endpoint: string) => new SQSClient({ endpoint, region, credentials: OWN_STAND_IN_CREDENTIALS });
/** The latest move task of a dead-letter queue, once `done` holds for it (a task is paced on the machine's time). */
const moveTask = (
  sqs: SQSClient,
  SourceArn: string,
  done: (task: { Status?: string; ApproximateNumberOfMessagesMoved?: number } | undefined) => boolean,
  timeoutMs = 10_000,
) =>
  waitFor(
    async () => ((await sqs.send(new ListMessageMoveTasksCommand({ SourceArn }))).Results ?? [])[0],
    done,
    timeoutMs,
    20,
  );

describe('in memory', () => {
  let local: LocalSqs;
  let sqs: SQSClient;
  /** the stand-in's clock: it stands still until a test moves it (`advance`) */
  let t = Date.now();
  /** called the next time the stand-in reads its clock: a receive reads it once it looked at the queue, and waits right after */
  let onRead: (() => void) | undefined;
  const clock = {
    now: () => {
      onRead?.();
      return t;
    },
    manual: true,
  };
  /** Moves the stand-in's clock; its long polls look again. */
  const advance = (ms: number) => {
    t += ms;
    local.tick();
  };
  /** Resolves once the stand-in next reads its clock: call it before the request whose read it is. */
  const nextRead = () =>
    new Promise<void>((resolve) => {
      onRead = () => {
        onRead = undefined;
        resolve();
      };
    });
  beforeAll(async () => {
    local = await startLocalSqs({ region, credentials: OWN_STAND_IN_CREDENTIALS, clock });
    sqs = client(local.endpoint);
  });
  afterAll(async () => {
    sqs.destroy();
    await local.close();
  });

  const queue = async (QueueName: string, Attributes?: Record<string, string>) =>
    (await sqs.send(new CreateQueueCommand({ QueueName, Attributes }))).QueueUrl!;
  const receive = async (
    QueueUrl: string,
    options: { VisibilityTimeout?: number; WaitTimeSeconds?: number; MaxNumberOfMessages?: number } = {},
  ) =>
    (
      await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
          WaitTimeSeconds: 0,
          ...options,
        }),
      )
    ).Messages ?? [];
  const counts = async (QueueUrl: string) =>
    (
      await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: [
            'ApproximateNumberOfMessages',
            'ApproximateNumberOfMessagesNotVisible',
            'ApproximateNumberOfMessagesDelayed',
          ],
        }),
      )
    ).Attributes;

  it('sends, receives and deletes a message, with the digests SQS computes', async () => {
    const url = await queue('basic');
    expect(url).toBe(`${local.endpoint}/000000000000/basic`);
    // AWS's own samples of MD5OfMessageAttributes (the SDKs test against them)
    const samples: { attributes: Record<string, MessageAttributeValue>; md5: string }[] = [
      {
        attributes: { SellerName: { DataType: 'String', StringValue: 'Example Store' } },
        md5: 'cd28f3b68aeee4b2eac9c66f2f694b58',
      },
      {
        attributes: {
          test_attribute_name_2: { DataType: 'String', StringValue: 'test_attribute_value_2' },
          test_attribute_name_1: { DataType: 'String', StringValue: 'test_attribute_value_1' },
        },
        md5: 'd53f3b558fe951154770f25cb63dbba9',
      },
      {
        attributes: { test_attribute_name: { DataType: 'Binary', BinaryValue: Buffer.from('test_attribute_value') } },
        md5: '23f6bd27ea87aab7dfeadcc9aebee495',
      },
    ];
    for (const [i, { attributes, md5 }] of samples.entries()) {
      const sent = await sqs.send(
        new SendMessageCommand({ QueueUrl: url, MessageBody: `body ${i}`, MessageAttributes: attributes }),
      );
      expect(sent.MD5OfMessageAttributes).toBe(md5); // the body's digest the SDK checked itself
    }
    const received = await receive(url, { MaxNumberOfMessages: 10 });
    expect(received.map((m) => [m.Body, m.MD5OfMessageAttributes])).toEqual(
      samples.map(({ md5 }, i) => [`body ${i}`, md5]),
    );
    expect(Buffer.from(received[2].MessageAttributes!.test_attribute_name.BinaryValue!).toString()).toBe(
      'test_attribute_value',
    );
    expect(received[0].Attributes).toMatchObject({
      SenderId: OWN_STAND_IN_CREDENTIALS.accessKeyId, // the signing key's id
      ApproximateReceiveCount: '1',
      SentTimestamp: expect.stringMatching(/^\d{13}$/),
      ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
    });
    for (const message of received)
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
    expect(await counts(url)).toEqual({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
      ApproximateNumberOfMessagesDelayed: '0',
    });
  });

  it('answers a batch entry by entry, and refuses one larger than the queue takes', async () => {
    const url = await queue('batch', { MaximumMessageSize: '1024' });
    const out = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: [
          { Id: 'ok', MessageBody: 'fine', MessageGroupId: 'project-1' },
          { Id: 'control', MessageBody: 'bell \u0007' },
          { Id: 'late', MessageBody: 'x', DelaySeconds: 901 },
        ],
      }),
    );
    expect(out.Successful?.map((s) => s.Id)).toEqual(['ok']);
    expect(out.Failed).toEqual([
      { Id: 'control', SenderFault: true, Code: 'InvalidMessageContents', Message: expect.stringContaining("'#x7'") },
      {
        Id: 'late',
        SenderFault: true,
        Code: 'InvalidParameterValue',
        Message: expect.stringContaining('DelaySeconds must be >= 0 and <= 900'),
      },
    ]);
    expect((await receive(url))[0].Attributes).toMatchObject({ MessageGroupId: 'project-1' });
    const tooLong = sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['a', 'b'].map((Id) => ({ Id, MessageBody: 'x'.repeat(600) })),
      }),
    );
    await expect(tooLong).rejects.toMatchObject({
      name: 'BatchRequestTooLong',
      message: 'Batch requests cannot be longer than 1024 bytes. You have sent 1200 bytes.',
    });
    // a message's size counts its attributes' names, types and values: 1000 + 4 + 6 + 15 bytes
    const big = sqs.send(
      new SendMessageCommand({
        QueueUrl: url,
        MessageBody: 'x'.repeat(1000),
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'y'.repeat(15) } },
      }),
    );
    await expect(big).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringMatching(/Message must be shorter than 1024 bytes/),
    });
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'x'.repeat(1024) }));
  });

  it('hides a received message for its visibility timeout, which only its latest receipt handle changes', async () => {
    const url = await queue('visibility', { VisibilityTimeout: '30' });
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'once' }));
    const [first] = await receive(url);
    expect(await receive(url)).toEqual([]); // in flight for 30 s
    await sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 0 }),
    );
    const [second] = await receive(url, { VisibilityTimeout: 1 });
    expect(second).toMatchObject({ MessageId: first.MessageId, Attributes: { ApproximateReceiveCount: '2' } });
    expect(second.ReceiptHandle).not.toBe(first.ReceiptHandle);
    const stale = sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: first.ReceiptHandle, VisibilityTimeout: 10 }),
    );
    await expect(stale).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
    advance(1000); // its 1 s ran out: no longer in flight
    const late = sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: url, ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 10 }),
    );
    await expect(late).rejects.toBeInstanceOf(MessageNotInflight);
    const garbage = sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: 'not-a-handle' }));
    await expect(garbage).rejects.toBeInstanceOf(ReceiptHandleIsInvalid);
  });

  it('deletes nothing for an older receipt handle, as AWS documents', async () => {
    const url = await queue('stale-delete');
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'kept' }));
    const [first] = await receive(url, { VisibilityTimeout: 0 });
    const [second] = await receive(url, { VisibilityTimeout: 0 });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: first.ReceiptHandle })); // succeeds
    const [third] = await receive(url, { VisibilityTimeout: 0 });
    expect(third).toMatchObject({ MessageId: first.MessageId, Attributes: { ApproximateReceiveCount: '3' } });
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: second.ReceiptHandle })); // no longer the latest either
    expect(await receive(url, { VisibilityTimeout: 0 })).toHaveLength(1);
    const [latest] = await receive(url);
    await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: latest.ReceiptHandle }));
    expect(await counts(url)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '0',
    });
  });

  it('delays a message by its DelaySeconds', async () => {
    const url = await queue('delayed');
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'later', DelaySeconds: 1 }));
    expect(await counts(url)).toMatchObject({
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesDelayed: '1',
    });
    expect(await receive(url)).toEqual([]);
    advance(999);
    expect(await receive(url)).toEqual([]); // a millisecond early
    advance(1);
    expect((await receive(url)).map((m) => m.Body)).toEqual(['later']);
  });

  it('answers a long poll already waiting with a delayed message when its delay ends, not at the end of the poll', async () => {
    const url = await queue('delayed-long-poll');
    const started = Date.now();
    const waiting = nextRead();
    const polled = receive(url, { WaitTimeSeconds: 20 });
    await waiting; // the poll found the queue empty and waits
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'in a second', DelaySeconds: 1 }));
    advance(1000);
    expect((await polled).map((m) => m.Body)).toEqual(['in a second']);
    expect(Date.now() - started).toBeLessThan(10_000); // the poll's own end is 20 s (machine time)
  });

  it('moves a message received more than maxReceiveCount times to the DLQ, and a move task sends it back', async () => {
    const dlqUrl = await queue('poison-dlq');
    const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] })))
      .Attributes!.QueueArn!;
    const sourceUrl = await queue('poison', {
      VisibilityTimeout: '0',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 2 }),
    });
    const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl: sourceUrl, MessageBody: 'poison' }));
    expect((await receive(sourceUrl)).map((m) => m.Attributes!.ApproximateReceiveCount)).toEqual(['1']);
    expect((await receive(sourceUrl)).map((m) => m.Attributes!.ApproximateReceiveCount)).toEqual(['2']);
    expect(await receive(sourceUrl)).toEqual([]); // the third receive moved it instead
    const [dead] = await receive(dlqUrl, { VisibilityTimeout: 0 });
    expect(dead).toMatchObject({
      MessageId,
      Body: 'poison',
      Attributes: { DeadLetterQueueSourceArn: dlqArn.replace(/-dlq$/, '') },
    });

    await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn })); // no destination: back where it came from
    const task = await moveTask(sqs, dlqArn, (task) => task?.Status !== 'RUNNING');
    expect(task).toMatchObject({
      Status: 'COMPLETED',
      ApproximateNumberOfMessagesMoved: 1,
      ApproximateNumberOfMessagesToMove: 1,
      SourceArn: dlqArn,
    });
    const [back] = await receive(sourceUrl);
    expect(back).toMatchObject({ Body: 'poison', Attributes: { ApproximateReceiveCount: '1' } });
    expect(back.MessageId).not.toBe(MessageId); // SQS: a redriven message is a new one
    expect(back.Attributes!.DeadLetterQueueSourceArn).toBeUndefined();
    expect(await counts(dlqUrl)).toMatchObject({ ApproximateNumberOfMessages: '0' });
  });

  it("answers SQS's errors as the SDK's classes", async () => {
    await expect(sqs.send(new GetQueueUrlCommand({ QueueName: 'no-such-queue' }))).rejects.toBeInstanceOf(
      QueueDoesNotExist,
    );
    const unknown = sqs.send(
      new SendMessageCommand({ QueueUrl: `${local.endpoint}/000000000000/no-such-queue`, MessageBody: 'x' }),
    );
    await expect(unknown).rejects.toMatchObject({
      name: 'QueueDoesNotExist',
      message: 'The specified queue does not exist.',
      Code: 'AWS.SimpleQueueService.NonExistentQueue',
    });
    await queue('same-name', { VisibilityTimeout: '30' });
    await queue('same-name', { VisibilityTimeout: '30' }); // equal attributes: the same queue
    await expect(queue('same-name', { VisibilityTimeout: '60' })).rejects.toBeInstanceOf(QueueNameExists);
    await expect(queue('attributes', { VisibilityTimeout: '43201' })).rejects.toMatchObject({
      name: 'InvalidAttributeValue',
    });
    await expect(queue('fifo.fifo')).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      message: expect.stringContaining('standard queues only'),
    });
  });

  it('answers a long poll as soon as a message arrives', async () => {
    const url = await queue('long-poll');
    const started = Date.now();
    const waiting = nextRead();
    const polled = receive(url, { WaitTimeSeconds: 10 });
    await waiting; // the poll found the queue empty and waits
    await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'now' }));
    expect((await polled).map((m) => m.Body)).toEqual(['now']);
    expect(Date.now() - started).toBeLessThan(2000);
    const empty = Date.now();
    expect(await receive(url, { WaitTimeSeconds: 1 })).toEqual([]);
    expect(Date.now() - empty).toBeGreaterThanOrEqual(950); // held for its second of the machine's time
  });
});

describe('on disk', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-sqs-'));
    dirs.push(dir);
    return dir;
  };

  /** The stand-in in a process of its own (as `npm start` runs TypeScript), on `dir`. */
  async function startChild(dir: string): Promise<{ child: ChildProcess; sqs: SQSClient }> {
    const script = `require(${JSON.stringify(join(__dirname, '..', '..', 'local', 'aws', 'sqs.ts'))}).startLocalSqs({ dir: process.env.SQS_DIR, region: '${region}', credentials: ${JSON.stringify(OWN_STAND_IN_CREDENTIALS)} }).then((s) => console.log('SQS ' + s.endpoint))`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, SQS_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    // its endpoint once printed; null once it exited without
    const started = async () => /^SQS (\S+)$/m.exec(output)?.[1] ?? (child.exitCode === null ? undefined : null);
    const endpoint = await waitFor(started, (endpoint) => endpoint !== undefined, 20_000, 20).catch(() => null);
    if (!endpoint) throw new Error(`the stand-in did not start:\n${output}`);
    return { child, sqs: client(endpoint) };
  }
  const kill = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  it('keeps every confirmed message across a SIGKILL, each visible again at its own time', async () => {
    const dir = scratch();
    const first = await startChild(dir);
    const url = (
      await first.sqs.send(new CreateQueueCommand({ QueueName: 'durable', Attributes: { VisibilityTimeout: '30' } }))
    ).QueueUrl!;
    for (const body of ['in-flight', 'deleted', 'waiting'])
      await first.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: body }));
    const receivedAt = Date.now();
    const [inFlight] = (await first.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 3 })))
      .Messages!;
    const [deleted] = (await first.sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages!;
    expect([inFlight.Body, deleted.Body]).toEqual(['in-flight', 'deleted']);
    await first.sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: deleted.ReceiptHandle }));
    const delayedAt = Date.now();
    await first.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'delayed', DelaySeconds: 2 }));
    await kill(first.child); // right after the answers: nothing it confirmed may be lost
    first.sqs.destroy();

    const second = await startChild(dir); // another port: the old queue URL still names the queue
    const receive = async (WaitTimeSeconds: number) =>
      (
        await second.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            WaitTimeSeconds,
            MaxNumberOfMessages: 10,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        )
      ).Messages ?? [];
    expect((await receive(0)).map((m) => m.Body)).toEqual(['waiting']);
    const delayed = await receive(10);
    expect(delayed.map((m) => [m.Body, m.Attributes!.ApproximateReceiveCount])).toEqual([['delayed', '1']]);
    expect(Date.now() - delayedAt).toBeGreaterThanOrEqual(2000);
    const back = await receive(10);
    expect(back.map((m) => [m.MessageId, m.Attributes!.ApproximateReceiveCount])).toEqual([[inFlight.MessageId, '2']]);
    expect(Date.now() - receivedAt).toBeGreaterThanOrEqual(3000);
    const left = await second.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
    expect(left.Attributes).toMatchObject({
      VisibilityTimeout: '30',
      ApproximateNumberOfMessages: '0',
      ApproximateNumberOfMessagesNotVisible: '3',
      ApproximateNumberOfMessagesDelayed: '0',
    });

    // a kill in the middle of a write leaves a torn last line: the next start leaves it out
    await second.sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'before the tear' }));
    await kill(second.child);
    second.sqs.destroy();
    appendFileSync(join(dir, 'journal.jsonl'), '{"t":"message","q":"durable","m":{"id":"6f1c');
    const third = await startChild(dir);
    expect((await third.sqs.send(new ReceiveMessageCommand({ QueueUrl: url }))).Messages?.map((m) => m.Body)).toEqual([
      'before the tear',
    ]);
    expect(readFileSync(join(dir, 'journal.jsonl'), 'utf8').endsWith('\n')).toBe(true); // compacted at the start
    await kill(third.child);
    third.sqs.destroy();
  }, 30_000);

  it('goes on with a move task that was running when it stopped', async () => {
    const dir = scratch();
    let local = await startLocalSqs({ region, dir, credentials: OWN_STAND_IN_CREDENTIALS });
    let sqs = client(local.endpoint);
    const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'resumed-dlq' }))).QueueUrl!;
    const dlqArn = `arn:aws:sqs:${region}:000000000000:resumed-dlq`;
    const RedrivePolicy = JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: 1 });
    const url = (
      await sqs.send(
        new CreateQueueCommand({ QueueName: 'resumed', Attributes: { VisibilityTimeout: '0', RedrivePolicy } }),
      )
    ).QueueUrl!;
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ['a', 'b', 'c', 'd'].map((Id) => ({ Id, MessageBody: Id })),
      }),
    );
    for (let i = 0; i < 2; i += 1)
      await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 })); // the second moves all four
    await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn, MaxNumberOfMessagesPerSecond: 2 }));
    // its first step moved 2 at once; the next is a second (of the machine's time) away
    const running = await moveTask(sqs, dlqArn, (task) => (task?.ApproximateNumberOfMessagesMoved ?? 0) > 0);
    expect(running).toMatchObject({
      Status: 'RUNNING',
      ApproximateNumberOfMessagesMoved: 2,
      ApproximateNumberOfMessagesToMove: 4,
    });
    sqs.destroy();
    await local.close();

    local = await startLocalSqs({ region, dir, credentials: OWN_STAND_IN_CREDENTIALS });
    sqs = client(local.endpoint);
    const task = await moveTask(sqs, dlqArn, (task) => task?.Status !== 'RUNNING');
    expect(task).toMatchObject({ Status: 'COMPLETED', ApproximateNumberOfMessagesMoved: 4 });
    expect(
      (await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }))).Messages?.map(
        (m) => m.Body,
      ).sort(),
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(
      (
        await sqs.send(
          new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
        )
      ).Attributes,
    ).toEqual({ ApproximateNumberOfMessages: '0' });
    sqs.destroy();
    await local.close();
  });

  it('compacts its journal while running and opens the compacted journal whole', async () => {
    const dir = scratch();
    const journal = join(dir, 'journal.jsonl');
    let local = await startLocalSqs({ region, dir, compactAtBytes: 8 * 1024, credentials: OWN_STAND_IN_CREDENTIALS });
    let sqs = client(local.endpoint);
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'compacted' }))).QueueUrl!;
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: Array.from({ length: 10 }, (_, i) => ({ Id: `m${i}`, MessageBody: `message ${i}` })),
      }),
    );
    const receiveAll = async (VisibilityTimeout: number) =>
      (
        await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            VisibilityTimeout,
            MessageSystemAttributeNames: ['ApproximateReceiveCount'],
          }),
        )
      ).Messages ?? [];
    for (let i = 0; i < 100; i += 1) expect(await receiveAll(0)).toHaveLength(10); // 1,000 receive records: over 150 KB written
    expect(statSync(journal).size).toBeLessThan(24 * 1024); // rewritten whenever it passed 8 KB and twice its last snapshot
    sqs.destroy();
    await local.close();

    local = await startLocalSqs({ region, dir, credentials: OWN_STAND_IN_CREDENTIALS });
    sqs = client(local.endpoint);
    const messages = await receiveAll(30);
    expect(messages.map((m) => [m.Body, m.Attributes!.ApproximateReceiveCount]).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => [`message ${i}`, '101']),
    );
    sqs.destroy();
    await local.close();
  });
});
