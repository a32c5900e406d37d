import {
  BatchWriteCommand,
  type DynamoDBDocumentClient,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';

/** Runs `tasks` `inFlight` at a time; answers the seconds it took. */
async function timed(inFlight: number, tasks: (() => Promise<void>)[]): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < tasks.length) await tasks[next++]();
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/**
 * Writes `items` to `table` as fast as DynamoDB (Local) takes them: BatchWriteItem of 25, 16 in
 * flight, unprocessed items sent again. The benchmarks' yardstick (the raw write rate of the same
 * run) and their way to seed data. Answers the seconds it took.
 */
export function writeRaw(
  writer: DynamoDBDocumentClient,
  table: string,
  items: Record<string, unknown>[],
): Promise<number> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  return timed(
    16,
    batches.map((batch) => async () => {
      let pending = batch.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length) {
        const out = await writer.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }),
  );
}

/** Sends each of `transactions` as one TransactWriteItems, `inFlight` at a time, nothing read or built between them. Answers the seconds it took. */
export function writeTransactions(
  writer: DynamoDBDocumentClient,
  transactions: TransactWriteCommandInput['TransactItems'][],
  inFlight: number,
): Promise<number> {
  return timed(
    inFlight,
    transactions.map((TransactItems) => async () => {
      await writer.send(new TransactWriteCommand({ TransactItems }));
    }),
  );
}

/**
 * DynamoDB Local's rate of conditional puts (2,000, 50 in flight) through the service's own table
 * module, after a warm-up run (the JVM's first thousands of requests are slower): the yardstick of
 * the pipeline benchmarks (webhooks, automations). Call it once the runtime set TABLE_NAME.
 */
export async function conditionalPutsPerSecond(): Promise<number> {
  const { put, putItem } = await import('../shared/platform/db/table');
  const rawPuts = async (label: string) => {
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 2000)
          await putItem(
            put({ PK: `BENCH#${label}#${next++}`, SK: 'RAW', type: 'bench' }, { ifAbsent: () => new Error('exists') }),
          );
      }),
    );
    return 2000 / ((Date.now() - started) / 1000);
  };
  await rawPuts('warm-up');
  return rawPuts('measured');
}
