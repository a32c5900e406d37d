/** The one SQS module: its naming rule agrees with the worker map's, and how `enqueue` batches and fails. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { queues, queueUrlVariable as workersRule } from '../../functions/workers';
import {
  MAX_BATCH_BYTES,
  QUEUE_NAMES,
  queue,
  queueUrlVariable,
  requestBatches,
} from '../../shared/platform/aws/queues';

describe('queue URL variables', () => {
  it('follow the rule of functions/workers.ts, which sets them', () => {
    for (const name of [...queues.map((q) => q.name), 'a.b-c_d', 'Mixed9'])
      expect(queueUrlVariable(name)).toBe(workersRule(name));
    expect(queueUrlVariable('webhook-delivery')).toBe('QUEUE_URL_WEBHOOK_DELIVERY');
  });

  it('name only queues the worker map defines', () => {
    expect(queues.map((q) => q.name)).toEqual(expect.arrayContaining([...QUEUE_NAMES]));
  });
});

describe('requestBatches', () => {
  const sizes = (batches: number[][]) => batches.map((b) => b.length);

  it('puts at most 10 messages in a request', () => {
    expect(
      sizes(
        requestBatches(
          Array.from({ length: 25 }, () => 10),
          (n) => n,
        ),
      ),
    ).toEqual([10, 10, 5]);
    expect(requestBatches([], (n: number) => n)).toEqual([]);
  });

  it('starts a new request before the bodies pass 256 KiB, keeping the order', () => {
    const third = Math.floor(MAX_BATCH_BYTES / 3);
    const items = [third, third, third, 1, third, MAX_BATCH_BYTES, 1];
    expect(requestBatches(items, (n) => n)).toEqual([[third, third, third, 1], [third], [MAX_BATCH_BYTES], [1]]);
  });

  it('sends a message larger than a request alone (SQS refuses that one, not its neighbours)', () => {
    expect(requestBatches([1, MAX_BATCH_BYTES + 1, 1], (n) => n)).toEqual([[1], [MAX_BATCH_BYTES + 1], [1]]);
  });
});

describe('enqueue', () => {
  type Entry = { Id: string; MessageBody: string };
  let send: jest.SpyInstance;
  const requests: Entry[][] = [];
  /** SQS as a fake: refuses the entries whose body includes "refuse", fails a whole request that has one with "down". */
  beforeEach(() => {
    requests.length = 0;
    process.env.QUEUE_URL_SEND = 'https://sqs.example/send';
    process.env.QUEUE_URL_WEBHOOK_DELIVERY = 'https://sqs.example/webhook-delivery';
    send = jest.spyOn(SQSClient.prototype, 'send').mockImplementation((async (command: {
      input: { Entries: Entry[] };
    }) => {
      const entries = command.input.Entries;
      requests.push(entries);
      if (entries.some((e) => e.MessageBody.includes('down')))
        throw Object.assign(new Error('service down'), { name: 'ServiceUnavailable' });
      return {
        Successful: [],
        Failed: entries
          .filter((e) => e.MessageBody.includes('refuse'))
          .map((e) => ({ Id: e.Id, Code: 'X', SenderFault: true, Message: 'refused' })),
      };
    }) as never);
  });
  afterEach(() => send.mockRestore());

  const messages = (n: number, special: Record<number, string> = {}) =>
    Array.from({ length: n }, (_, i) => ({ id: special[i] ?? `m${i}` }));

  it('sends every message as JSON, 10 per request', async () => {
    await queue<{ id: string }>('send', 'throw').enqueue(messages(23));
    expect(requests.map((r) => r.length)).toEqual([10, 10, 3]);
    expect(requests.flat().map((e) => JSON.parse(e.MessageBody).id)).toEqual(messages(23).map((m) => m.id));
  });

  it("'throw': rejects when SQS refuses a message, and with SQS's own error when a request fails", async () => {
    await expect(queue<{ id: string }>('send', 'throw').enqueue(messages(12, { 11: 'refuse' }))).rejects.toThrow(
      'send queue refused 1 messages: refused',
    );
    await expect(queue<{ id: string }>('send', 'throw').enqueue(messages(3, { 1: 'down' }))).rejects.toMatchObject({
      name: 'ServiceUnavailable',
    });
  });

  it("'return': resolves with the messages not taken, all of a failed request's", async () => {
    const q = queue<{ id: string }>('webhook-delivery', 'return');
    expect(await q.enqueue(messages(5))).toEqual([]);
    const unsent = await q.enqueue(messages(25, { 3: 'refuse', 12: 'down' }));
    expect(unsent.map((m) => m.id)).toEqual([
      'refuse',
      'm10',
      'm11',
      'down',
      'm13',
      'm14',
      'm15',
      'm16',
      'm17',
      'm18',
      'm19',
    ]);
  });

  it('needs the queue URL in its variable', async () => {
    delete process.env.QUEUE_URL_SEND;
    await expect(queue('send', 'throw').enqueue([{}])).rejects.toThrow('QUEUE_URL_SEND is not set');
  });
});
