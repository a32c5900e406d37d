import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Writes `items` to `table` as fast as DynamoDB (Local) takes them: BatchWriteItem of 25, 16 in
 * flight, unprocessed items sent again. The benchmarks' yardstick (the raw write rate of the same
 * run) and their way to seed data. Answers the seconds it took.
 */
export async function writeRaw(writer: DynamoDBDocumentClient, table: string, items: Record<string, unknown>[]): Promise<number> {
  const batches: Record<string, unknown>[][] = [];
  for (let i = 0; i < items.length; i += 25) batches.push(items.slice(i, i + 25));
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < batches.length) {
        let pending = batches[next++].map((Item) => ({ PutRequest: { Item } }));
        while (pending.length) {
          const out = await writer.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
          pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
        }
      }
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}
