/**
 * What the service's calls cost, counted in this process (the local runtime started in it): a
 * middleware on the one document client every handler uses asks DynamoDB Local for
 * `ReturnConsumedCapacity: INDEXES` and adds up what it answers (DynamoDB Local bills as DynamoDB
 * does: a write unit per KB of item, twice in a transaction; a read unit per 4 KB, half when
 * eventually consistent; its indexes' writes apart). A transaction's units are given for the whole
 * table, so they are attributed to its items' partition keys in proportion to each action's size in
 * the request (at least one unit each); an index's units go to the GSI1 partitions the item's entry
 * leaves and lands on (followed from the writes seen). S3 requests, SQS sends, SES and Scheduler
 * calls are counted at the call guard every handler's AWS client passes
 * (shared/platform/aws/call-guard.ts). Used by bench/send-path-cost.ts and bench/automation-cost.ts.
 */
import type { AwsCall } from '../shared/platform/aws/call-guard';

export interface Units {
  write: number;
  read: number;
  /** write units by partition key (table) or `GSI1:<partition>` */
  byKey: Record<string, number>;
  s3Puts: number;
  s3Gets: number;
  sqsSends: number;
  sesSends: number;
  schedules: number;
}

const fresh = (): Units => ({
  write: 0,
  read: 0,
  byKey: {},
  s3Puts: 0,
  s3Gets: 0,
  sqsSends: 0,
  sesSends: 0,
  schedules: 0,
});
let units = fresh();

type Capacity = {
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
};
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
]);

/** Each item's GSI1 partition as the writes seen so far left it (by `PK|SK`): an update's index write goes there. */
const gsiOfItem = new Map<string, string>();

/**
 * The partition key a request action names (a Put's item, else its Key), and the GSI1 partitions
 * its index writes land on: a Put's own, an update's new one (set through table.ts's `#sN`/`:sN`
 * placeholders) and old one when it moves or removes the entry, else the item's current one.
 */
function keysOf(params: Record<string, any>): { pk: string; gsi: string[] } {
  const item = params.Item ?? params.Key ?? {};
  const pk = String(item.PK ?? '?');
  const id = `${pk}|${String(item.SK ?? '')}`;
  const before = gsiOfItem.get(id);
  if (params.Item) {
    if (params.Item.GSI1PK) gsiOfItem.set(id, params.Item.GSI1PK);
    return { pk, gsi: params.Item.GSI1PK ? [params.Item.GSI1PK] : [] };
  }
  const names = Object.entries((params.ExpressionAttributeNames ?? {}) as Record<string, string>);
  const setName = names.find(([placeholder, name]) => name === 'GSI1PK' && placeholder.startsWith('#s'))?.[0];
  const removed = names.some(([placeholder, name]) => name === 'GSI1PK' && placeholder.startsWith('#r'));
  const after = setName
    ? String(params.ExpressionAttributeValues?.[`:${setName.slice(1)}`])
    : removed
      ? undefined
      : before;
  if (after) gsiOfItem.set(id, after);
  else gsiOfItem.delete(id);
  return { pk, gsi: [...new Set([before, after].filter((g): g is string => g !== undefined))] };
}

function record(command: string, input: Record<string, any>, capacity: Capacity[] | Capacity | undefined): void {
  const list = [capacity ?? []].flat() as Capacity[];
  const total = list.reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  if (!WRITES.has(command)) {
    units.read += total;
    return;
  }
  units.write += total;
  const tableUnits = list.reduce((sum, c) => sum + (c.Table?.CapacityUnits ?? 0), 0);
  const gsiUnits = list.reduce((sum, c) => sum + (c.GlobalSecondaryIndexes?.GSI1?.CapacityUnits ?? 0), 0);
  const actions: Record<string, any>[] =
    command === 'TransactWriteItemsCommand'
      ? input.TransactItems.map((t: Record<string, any>) => Object.values(t)[0])
      : command === 'BatchWriteItemCommand'
        ? (Object.values(input.RequestItems ?? {}).flat() as Record<string, any>[]).map(
            (r) => r.PutRequest ?? r.DeleteRequest,
          )
        : [input];
  const weights = actions.map((a) => Math.max(1, Math.ceil(Buffer.byteLength(JSON.stringify(a)) / 1024)));
  const weightSum = weights.reduce((a, b) => a + b, 0);
  actions.forEach((action, i) => {
    const { pk, gsi } = keysOf(action);
    units.byKey[pk] = (units.byKey[pk] ?? 0) + (tableUnits * weights[i]) / weightSum;
    for (const partition of gsi) {
      const key = `GSI1:${partition}`;
      units.byKey[key] = (units.byKey[key] ?? 0) + (gsiUnits * weights[i]) / weightSum / gsi.length;
    }
  });
}

/** The kind of a partition key: its constant words, ids and shards dropped (`PROJECT#<pid>#EMAILS#3` -> `PROJECT#EMAILS`). */
export const kindOf = (key: string): string =>
  key
    // GET /emails' index entries: one kind per filter, whatever its value
    .replace(/#EMAILS_BY#(status|from|to|tag)#.*$/, '#EMAILS_BY#$1')
    .split('#')
    .filter((part) => !/\d{3,}|^\d+$|^[0-9a-f-]{8,}$/i.test(part) && !part.includes('.') && !part.includes('@'))
    .join('#');

/** Starts counting (once the runtime loaded the handlers' modules): `units()` so far, `reset()` to begin again. */
export async function installMeter(): Promise<{ units: () => Units; reset: () => void }> {
  const { documentClient } = await import('../shared/platform/db/client');
  (documentClient.middlewareStack as unknown as { add: (m: unknown, o: unknown) => void }).add(
    (
      next: (args: { input: unknown }) => Promise<{ output: { ConsumedCapacity?: Capacity[] | Capacity } }>,
      context: { commandName?: string },
    ) =>
      async (args: { input: unknown }) => {
        const input = args.input as Record<string, any>;
        input.ReturnConsumedCapacity = 'INDEXES';
        const out = await next(args);
        record(String(context.commandName), input, out.output.ConsumedCapacity);
        return out;
      },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  const checker = globalThis.__awsCallChecker;
  globalThis.__awsCallChecker = (call: AwsCall) => {
    checker?.(call);
    const op = call.operation.replace(/Command$/, '');
    if (call.service === 's3' && op === 'PutObject') units.s3Puts++;
    if (call.service === 's3' && op === 'GetObject') units.s3Gets++;
    if (call.service === 'sqs' && op.startsWith('SendMessage'))
      units.sqsSends += op === 'SendMessageBatch' ? ((call.input as { Entries?: unknown[] }).Entries?.length ?? 1) : 1;
    if (call.service === 'ses' && op === 'SendEmail') units.sesSends++;
    if (call.service === 'scheduler' && op === 'CreateSchedule') units.schedules++;
  };
  return {
    units: () => units,
    reset: () => {
      units = fresh();
    },
  };
}
