/**
 * One small helper per DynamoDB operation the service uses: GetItem, BatchGetItem, Query,
 * PutItem, UpdateItem and TransactWriteItems. There is deliberately no Scan helper: every read is a key
 * lookup or a Query on a key (DESIGN.md).
 *
 * A write that may fail a condition says what its failure throws (`OnConditionFailed`): the
 * domain error of the API (a 404 or 409, so a cancelled transaction turns into the right answer
 * without the caller parsing reasons), or ConditionFailed with a tag, which the caller catches
 * (`isConditionFailed(error, tag)`) and which can carry the item as it was, so the caller needs
 * no second read to learn what got in its way.
 */
import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient, tableName } from './client';
import type { Collection, Key, ShardedCollection } from './keys';

export type Item = Record<string, NativeAttributeValue>;

/**
 * What a failed condition throws. A function: its error (the API's 404 or 409). `{tag}`:
 * ConditionFailed with that tag; with `withItem`, carrying the item as it was when the condition
 * failed (ReturnValuesOnConditionCheckFailure ALL_OLD: no read capacity, only a larger answer),
 * absent when there was none.
 */
export type OnConditionFailed = (() => Error) | { tag: string; withItem?: boolean };

export interface WriteAction {
  kind: 'Put' | 'Delete' | 'Update' | 'ConditionCheck';
  params: Record<string, unknown>;
  onConditionFailed?: OnConditionFailed;
}

/** A write's condition did not hold: `tag` names the condition, `kind` and `key` the action; `item` is what was there (with `withItem`). */
export class ConditionFailed extends Error {
  override name = 'ConditionFailed';
  constructor(
    readonly tag: string,
    readonly kind: WriteAction['kind'],
    readonly key: Key,
    readonly item?: Item,
  ) {
    super(`${kind} of ${key.PK} ${key.SK}: the condition "${tag}" failed`);
  }
}

/** The error is ConditionFailed (with this tag, when one is given). */
export const isConditionFailed = (error: unknown, tag?: string): error is ConditionFailed =>
  error instanceof ConditionFailed && (tag === undefined || error.tag === tag);

/** The action's request parameters, asking for the old item when its failure is to carry it. */
function request(action: WriteAction): Record<string, unknown> {
  const on = action.onConditionFailed;
  return typeof on === 'object' && on.withItem
    ? { ...action.params, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }
    : action.params;
}

/** The error a failed condition of `action` throws (`item`: the old item DynamoDB returned, marshalled); undefined when the action names none. */
function conditionError(action: WriteAction, item: Record<string, unknown> | undefined): Error | undefined {
  const on = action.onConditionFailed;
  if (typeof on === 'function') return on();
  if (!on) return undefined;
  const params = action.params as { Key?: Key; Item?: Item };
  const key = params.Key ?? { PK: params.Item?.PK, SK: params.Item?.SK };
  return new ConditionFailed(on.tag, action.kind, key, item ? (unmarshall(item as never) as Item) : undefined);
}

/** Named condition pieces, so a reader sees the intent rather than the expression. */
const keyDoesNotExist = 'attribute_not_exists(PK)';
const keyExists = 'attribute_exists(PK)';

export function put(item: Item, options: { ifAbsent?: OnConditionFailed } = {}): WriteAction {
  return {
    kind: 'Put',
    params: { Item: item, ...(options.ifAbsent ? { ConditionExpression: keyDoesNotExist } : {}) },
    onConditionFailed: options.ifAbsent,
  };
}

/**
 * A DeleteItem. `ifExists`: fails when the item is missing. `ifUnchanged`: fails when it is
 * missing or any of the given attributes no longer has the given value (someone changed it
 * since it was read).
 */
export function del(
  key: Key,
  options: { ifExists?: OnConditionFailed; ifUnchanged?: { expected: Item; onChanged: OnConditionFailed } } = {},
): WriteAction {
  if (options.ifUnchanged) {
    const entries = Object.entries(options.ifUnchanged.expected);
    return {
      kind: 'Delete',
      params: {
        Key: key,
        ConditionExpression: [keyExists, ...entries.map((_, i) => `#u${i} = :u${i}`)].join(' AND '),
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#u${i}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], i) => [`:u${i}`, value])),
      },
      onConditionFailed: options.ifUnchanged.onChanged,
    };
  }
  return {
    kind: 'Delete',
    params: { Key: key, ...(options.ifExists ? { ConditionExpression: keyExists } : {}) },
    onConditionFailed: options.ifExists,
  };
}

export interface UpdateSpec {
  /** attributes to set */
  set?: Item;
  /** attributes to remove */
  remove?: string[];
  /** numbers to add to (created at 0), or string sets to add members to */
  add?: Record<string, number | Set<string>>;
  /** lists to append these elements to (created empty) */
  append?: Record<string, unknown[]>;
  /** a condition on the current item, written with `#name` placeholders for the attributes it names and `:name` values */
  condition?: { expression: string; names?: Record<string, string>; values?: Item };
}

/** An UpdateItem, for a transaction (`transact`) or alone (`updateItem`). */
export function update(key: Key, spec: UpdateSpec, onConditionFailed?: OnConditionFailed): WriteAction {
  const names: Record<string, string> = { ...spec.condition?.names };
  const values: Item = { ...spec.condition?.values };
  const clauses: string[] = [];
  const sets = Object.entries(spec.set ?? {}).map(([name, value], i) => {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const appends = Object.entries(spec.append ?? {}).map(([name, elements], i) => {
    names[`#p${i}`] = name;
    values[`:p${i}`] = elements;
    values[':empty_list'] = [];
    return `#p${i} = list_append(if_not_exists(#p${i}, :empty_list), :p${i})`;
  });
  if (sets.length || appends.length) clauses.push(`SET ${[...sets, ...appends].join(', ')}`);
  const removes = (spec.remove ?? []).map((name, i) => {
    names[`#r${i}`] = name;
    return `#r${i}`;
  });
  if (removes.length) clauses.push(`REMOVE ${removes.join(', ')}`);
  const adds = Object.entries(spec.add ?? {}).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = value;
    return `#a${i} :a${i}`;
  });
  if (adds.length) clauses.push(`ADD ${adds.join(', ')}`);
  return {
    kind: 'Update',
    params: {
      Key: key,
      UpdateExpression: clauses.join(' '),
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
      ...(spec.condition ? { ConditionExpression: spec.condition.expression } : {}),
    },
    onConditionFailed,
  };
}

/** A single UpdateItem; returns the item as it is afterwards. */
export async function updateItem<T extends Item = Item>(action: WriteAction): Promise<T> {
  return (await sendUpdate(action, 'ALL_NEW')) as T;
}

/**
 * A single UpdateItem whose result is not wanted: DynamoDB sends nothing back (ReturnValues NONE),
 * so there is no item for it to serialise and for us to parse; for the hot paths (a webhook
 * delivery's claim and record: bench/webhooks.ts).
 */
export async function applyUpdate(action: WriteAction): Promise<void> {
  await sendUpdate(action, 'NONE');
}

async function sendUpdate(action: WriteAction, returnValues: 'ALL_NEW' | 'NONE'): Promise<Item | undefined> {
  try {
    const out = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        ...(request(action) as { Key: Key; UpdateExpression: string }),
        ReturnValues: returnValues,
      }),
    );
    return out.Attributes;
  } catch (error) {
    throw singleWriteError(action, error);
  }
}

/** What a failed PutItem or UpdateItem throws: the action's condition error, else the SDK's. */
function singleWriteError(action: WriteAction, error: unknown): unknown {
  if ((error as Error).name !== 'ConditionalCheckFailedException') return error;
  return conditionError(action, (error as { Item?: Record<string, unknown> }).Item) ?? error;
}

export function checkExists(key: Key, onMissing: OnConditionFailed): WriteAction {
  return { kind: 'ConditionCheck', params: { Key: key, ConditionExpression: keyExists }, onConditionFailed: onMissing };
}

export async function getItem<T extends Item = Item>(key: Key, consistent = true): Promise<T | undefined> {
  const out = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: consistent }),
  );
  return out.Item as T | undefined;
}

/** The items that exist among `keyList` (any order), 100 keys per request, retrying unprocessed keys. */
export async function batchGet<T extends Item = Item>(keyList: Key[]): Promise<T[]> {
  const found: T[] = [];
  const TableName = tableName();
  for (let i = 0; i < keyList.length; i += 100) {
    let pending: Key[] = keyList.slice(i, i + 100);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      const out = await documentClient.send(
        new BatchGetCommand({ RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } } }),
      );
      found.push(...((out.Responses?.[TableName] ?? []) as T[]));
      pending = (out.UnprocessedKeys?.[TableName]?.Keys ?? []) as Key[];
    }
  }
  return found;
}

/**
 * Puts and deletes without conditions, 25 per BatchWriteItem (several at once), retrying what
 * DynamoDB leaves unprocessed: only for items derived from others that each stand alone and are
 * written again whole on a retry (GET /emails' index entries, shared/emails/list-index.ts), where a
 * transaction would cost twice the write units and hold at most 100. No key twice in one call.
 */
export async function batchWrite(puts: Item[], deletes: Key[]): Promise<void> {
  const TableName = tableName();
  const requests = [
    ...puts.map((Item) => ({ PutRequest: { Item } })),
    ...deletes.map((Key) => ({ DeleteRequest: { Key } })),
  ];
  const calls: (typeof requests)[] = [];
  for (let i = 0; i < requests.length; i += 25) calls.push(requests.slice(i, i + 25));
  await Promise.all(
    calls.map(async (call) => {
      let pending = call;
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
        const out = await documentClient.send(new BatchWriteCommand({ RequestItems: { [TableName]: pending } }));
        pending = (out.UnprocessedItems?.[TableName] ?? []) as typeof pending;
      }
    }),
  );
}

/** A single conditional PutItem (one write, one round trip). */
export async function putItem(action: WriteAction): Promise<void> {
  try {
    await documentClient.send(new PutCommand({ TableName: tableName(), ...(request(action) as { Item: Item }) }));
  } catch (error) {
    throw singleWriteError(action, error);
  }
}

/** At most 100 actions (DynamoDB's limit); callers that could exceed it must split and say why that is safe. */
export const MAX_TRANSACTION_ACTIONS = 100;
/** What callers put in one transaction at most: DynamoDB's 4 MB per transaction, less room for keys and attribute names. */
export const MAX_TRANSACTION_BYTES = 3.5 * 1024 * 1024;

/**
 * `items` in order, in groups that each fit one transaction: `actions(item)` actions and
 * `bytes(item)` bytes of it each, within MAX_TRANSACTION_ACTIONS (less `reserved` actions the
 * caller adds to every group) and MAX_TRANSACTION_BYTES.
 */
export function transactionChunks<T>(
  items: readonly T[],
  size: { actions: (item: T) => number; bytes: (item: T) => number; reserved?: number },
): T[][] {
  const reserved = size.reserved ?? 0;
  const chunks: T[][] = [];
  let chunk: T[] = [];
  let actions = reserved;
  let bytes = 0;
  for (const item of items) {
    const itemActions = size.actions(item);
    const itemBytes = size.bytes(item);
    if (
      chunk.length &&
      (actions + itemActions > MAX_TRANSACTION_ACTIONS || bytes + itemBytes > MAX_TRANSACTION_BYTES)
    ) {
      chunks.push(chunk);
      chunk = [];
      actions = reserved;
      bytes = 0;
    }
    chunk.push(item);
    actions += itemActions;
    bytes += itemBytes;
  }
  if (chunk.length) chunks.push(chunk);
  return chunks;
}

export async function transact(actions: WriteAction[]): Promise<void> {
  if (actions.length === 0) return;
  if (actions.length > MAX_TRANSACTION_ACTIONS)
    throw new Error(`transaction of ${actions.length} actions exceeds ${MAX_TRANSACTION_ACTIONS}`);
  const TableName = tableName();
  try {
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: actions.map((a) => ({ [a.kind]: { TableName, ...request(a) } })) as never,
      }),
    );
  } catch (error) {
    // The first action whose condition failed decides; its old item is in its cancellation reason.
    const reasons = (error as { CancellationReasons?: { Code?: string; Item?: Record<string, unknown> }[] })
      .CancellationReasons;
    if ((error as Error).name === 'TransactionCanceledException' && reasons) {
      const failed = reasons.findIndex((r) => r.Code === 'ConditionalCheckFailed');
      const conditionFailure = failed >= 0 ? conditionError(actions[failed], reasons[failed].Item) : undefined;
      if (conditionFailure) throw conditionFailure;
    }
    throw error;
  }
}

/** Another transaction was writing one of the items at the same moment, so DynamoDB cancelled this one: worth trying again. */
export const isTransactionConflict = (error: unknown): boolean =>
  (error as Error).name === 'TransactionCanceledException' &&
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).some(
    (r) => r.Code === 'TransactionConflict',
  );

/**
 * `transact`, tried again (up to `attempts` times, after a short random wait) while DynamoDB
 * cancels it for a conflict with another transaction on one of its items: for transactions that
 * share a hot item by design (a project's send-quota counters), where a conflict only means "not now".
 */
export async function transactRetryingConflicts(actions: WriteAction[], attempts = 10): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transact(actions);
    } catch (error) {
      if (!isTransactionConflict(error) || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

export interface PageRequest {
  limit: number;
  /** id of the last item of the previous page: return the items that come after it in list order */
  after?: string;
  /** id of the first item of the next page: return the items that come before it in list order */
  before?: string;
}

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** A FilterExpression on a collection's items, with `#name` placeholders and `:name` values (not `:pk` or `:prefix`). */
export interface QueryFilter {
  expression: string;
  names?: Record<string, string>;
  values?: Item;
}

/** Items a filtered Query reads per round trip (it is billed for what it reads, not for what passes). */
const FILTERED_READ = 100;

/**
 * A page is cut short at this many bytes of items (as JSON), with `has_more`: with the envelope
 * and headers it stays well under Lambda's 6 MB response, whatever the items hold.
 */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;

const itemBytes = (item: object): number => Buffer.byteLength(JSON.stringify(item));

/**
 * The first items of `items` (in order) within `limit` items and MAX_PAGE_BYTES; whether any were
 * left. Also for records built from several items (a broadcast and its content).
 */
export function bounded<T extends object>(items: T[], limit: number): Page<T> {
  const page: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (page.length === limit) return { items: page, hasMore: true };
    bytes += itemBytes(item);
    if (page.length > 0 && bytes > MAX_PAGE_BYTES) return { items: page, hasMore: true };
    page.push(item);
  }
  return { items: page, hasMore: false };
}

/** A Query that reads on from where it stopped: `next(n)` answers up to n more items in the Query's order, [] at the end. */
function queryReader<T extends Item>(
  input: Record<string, unknown>,
): { next(n: number): Promise<T[]>; done: () => boolean } {
  let ExclusiveStartKey: Record<string, NativeAttributeValue> | undefined = input.ExclusiveStartKey as
    | Record<string, NativeAttributeValue>
    | undefined;
  let finished = false;
  return {
    done: () => finished,
    async next(n) {
      if (finished) return [];
      const out = await documentClient.send(
        new QueryCommand({ ...(input as object), TableName: tableName(), Limit: n, ExclusiveStartKey }),
      );
      ExclusiveStartKey = out.LastEvaluatedKey;
      if (!ExclusiveStartKey) finished = true;
      return (out.Items ?? []) as T[];
    },
  };
}

/**
 * One or several Queries merged in one order (`before(a, b)`: a comes first), each read lazily in
 * chunks of `chunk`; `take(count)` answers the next `count` items, and the next call goes on from there.
 */
function merger<T extends Item>(
  readers: ReturnType<typeof queryReader<T>>[],
  before: (a: T, b: T) => boolean,
  chunk: number,
): { take(count: number): Promise<T[]> } {
  let buffers: T[][] | undefined;
  return {
    async take(count) {
      buffers ??= await Promise.all(readers.map((r) => r.next(chunk)));
      const merged: T[] = [];
      while (merged.length < count) {
        // a buffer run dry while its Query has more: read on before choosing
        await Promise.all(
          buffers.map(async (buffer, i) =>
            buffer.length === 0 && !readers[i].done() ? buffer.push(...(await readers[i].next(chunk))) : 0,
          ),
        );
        let pick = -1;
        for (let i = 0; i < buffers.length; i++)
          if (buffers[i].length && (pick < 0 || before(buffers[i][0], buffers[pick][0]))) pick = i;
        if (pick < 0) break;
        merged.push(buffers[pick].shift()!);
      }
      return merged;
    },
  };
}

/**
 * The first `count` items of one or several Queries merged in one order (`before(a, b)`: a comes
 * first), each read lazily in chunks of `chunk` (by default: all of `count` from a single Query;
 * over several, a share of it, so a merged page of 1,000 over 16 partitions reads about 1,000
 * items, not 16,000).
 */
const mergeReaders = <T extends Item>(
  readers: ReturnType<typeof queryReader<T>>[],
  count: number,
  before: (a: T, b: T) => boolean,
  chunk = readers.length === 1 ? count : Math.max(10, Math.ceil((count / readers.length) * 1.5)),
): Promise<T[]> => merger(readers, before, chunk).take(count);

/** The list order of a page's items by sort key: newest first, or oldest first when read from a `before` cursor. */
const listOrder =
  (newestFirst: boolean) =>
  (a: Item, b: Item): boolean =>
    newestFirst ? a.SK > b.SK : a.SK < b.SK;

/** A sort-key range inside a collection: `from` and `to` (inclusive) are appended to its prefix. */
export interface KeyRange {
  from?: string;
  to?: string;
}

/**
 * The Query of each partition of a collection for a page's direction and cursor, within `range`:
 * the cursor becomes an ExclusiveStartKey when it lies inside the range (DynamoDB refuses one
 * outside it); a cursor beyond the range's far end leaves nothing to read (undefined), one before
 * its near end is the range's start.
 */
function collectionQueries(
  collection: Collection | ShardedCollection,
  page: Omit<PageRequest, 'limit'>,
  range?: KeyRange,
): Record<string, unknown>[] | undefined {
  const cursor = page.before ?? page.after;
  const newestFirst = page.before === undefined;
  const low = collection.prefix + (range?.from ?? '');
  const high = collection.prefix + (range?.to ?? '\uffff');
  const cursorKey = cursor === undefined ? undefined : collection.prefix + cursor;
  if (cursorKey !== undefined && range && (newestFirst ? cursorKey < low : cursorKey > high)) return undefined;
  const startInside = cursorKey !== undefined && (!range || (cursorKey >= low && cursorKey <= high));
  return ('PKs' in collection ? collection.PKs : [collection.PK]).map((PK) => ({
    KeyConditionExpression: range ? 'PK = :pk AND SK BETWEEN :low AND :high' : 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: {
      ':pk': PK,
      ...(range ? { ':low': low, ':high': high } : { ':prefix': collection.prefix }),
    },
    ScanIndexForward: !newestFirst,
    ExclusiveStartKey: startInside ? { PK, SK: cursorKey } : undefined,
  }));
}

/**
 * A collection's items in list order (newest first; oldest first from a `before` cursor), every
 * shard merged, read on demand: `take(n)` the next n. For readers that keep only some of what they
 * read and cannot say beforehand how much (GET /emails' filters, shared/emails/list-filters.ts).
 */
export function collectionReader<T extends Item = Item>(
  collection: Collection | ShardedCollection,
  page: Omit<PageRequest, 'limit'>,
  range?: KeyRange,
  chunk = 25,
): { take(count: number): Promise<T[]> } {
  const queries = collectionQueries(collection, page, range);
  if (!queries) return { take: async () => [] };
  return merger(
    queries.map((input) => queryReader<T>(input)),
    listOrder(page.before === undefined),
    chunk,
  );
}

/**
 * One page of a collection, newest first (ids are UUIDv7). The cursor is an id, turned into an
 * ExclusiveStartKey inside the collection's prefix, so it works even if that item was deleted.
 * Reads limit+1 items to know whether there are more. With a `filter`, DynamoDB drops the items
 * that fail it after reading them, so each round trip reads at least FILTERED_READ items.
 * A sharded collection (keys.ts: per-email collections spread over partitions) is read from every
 * shard at once and merged by sort key. Every page stops at MAX_PAGE_BYTES too (`hasMore`).
 */
export async function queryPage<T extends Item = Item>(
  collection: Collection | ShardedCollection,
  page: PageRequest,
  filter?: QueryFilter,
  range?: KeyRange,
): Promise<Page<T>> {
  const newestFirst = page.before === undefined;
  const queries = collectionQueries(collection, page, range);
  if (!queries) return { items: [], hasMore: false };
  const readers = queries.map((input) =>
    queryReader<T>({
      ...input,
      ...(filter
        ? {
            FilterExpression: filter.expression,
            ExpressionAttributeNames: filter.names,
            ExpressionAttributeValues: { ...(input.ExpressionAttributeValues as Item), ...filter.values },
          }
        : {}),
    }),
  );
  const count = page.limit + 1; // one more than the page: whether there are more
  const merged = await mergeReaders(
    readers,
    count,
    listOrder(newestFirst),
    filter ? Math.max(FILTERED_READ, count) : undefined,
  );
  const { items, hasMore } = bounded(merged, page.limit);
  return { items: newestFirst ? items : items.reverse(), hasMore };
}

/**
 * Every item of the collection (each shard of it) whose sort key is from `prefix + from` to
 * `prefix + to`, inclusive, all pages: for short ranges of small items (a project's daily counters).
 */
export async function queryBetween<T extends Item = Item>(
  collection: Collection | ShardedCollection,
  from: string,
  to: string,
): Promise<T[]> {
  const partitions = 'PKs' in collection ? collection.PKs : [collection.PK];
  const pages = await Promise.all(
    partitions.map(async (PK) => {
      const reader = queryReader<T>({
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': PK, ':from': collection.prefix + from, ':to': collection.prefix + to },
      });
      const items: T[] = [];
      while (!reader.done()) items.push(...(await reader.next(1000)));
      return items;
    }),
  );
  return pages.flat();
}

/** How many items of the collection (every page of a COUNT Query: DynamoDB reads them and returns none): for collections that stay short (a project's segments, broadcasts) and an operator's recount. */
export async function countItems(collection: Collection): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: Record<string, NativeAttributeValue> | undefined;
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': collection.PK, ':prefix': collection.prefix },
        Select: 'COUNT',
        ExclusiveStartKey,
      }),
    );
    count += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
}

/** The keys of every item of one partition, a page at a time (for deleting a whole partition: shared/project/test-data.ts). */
export async function* partitionKeys(PK: string, pageSize = 100): AsyncGenerator<Key[]> {
  const reader = queryReader<Key & Item>({
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': PK },
    ProjectionExpression: 'PK, SK',
  });
  while (!reader.done()) {
    const page = await reader.next(pageSize);
    if (page.length) yield page.map((item) => ({ PK: item.PK, SK: item.SK }));
  }
}

/**
 * GSI1 projects keys only (lib/table-definition.ts: an index write for every change of an item's
 * attributes would double what each status update costs), so its readers take the items from the
 * table: one consistent BatchGet per page of index entries, in the index's order. Each item keeps
 * the index entry's GSI1PK and GSI1SK, the position the reader saw, so a conditional update on
 * `GSI1SK = :seen` still fails when the item moved on meanwhile; entries whose item is gone drop out.
 */
async function itemsOf<T extends Item>(entries: Item[]): Promise<T[]> {
  if (!entries.length) return [];
  const items = new Map(
    (await batchGet<T>(entries.map((e) => ({ PK: e.PK, SK: e.SK })))).map((item) => [`${item.PK}|${item.SK}`, item]),
  );
  return entries.flatMap((e) => {
    const item = items.get(`${e.PK}|${e.SK}`);
    return item ? [{ ...item, GSI1PK: e.GSI1PK, GSI1SK: e.GSI1SK } as T] : [];
  });
}

/**
 * The items of one GSI1 partition, a page at a time, in GSI1SK order; with `below`, only those
 * whose GSI1SK sorts before it. For worker sweeps (due emails, domains SES is still verifying).
 */
export async function* queryGsi1Pages<T extends Item = Item>(
  partition: string,
  options: { below?: string; pageSize?: number } = {},
): AsyncGenerator<T[]> {
  let ExclusiveStartKey: Record<string, NativeAttributeValue> | undefined;
  do {
    const out = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI1',
        KeyConditionExpression: options.below === undefined ? 'GSI1PK = :pk' : 'GSI1PK = :pk AND GSI1SK < :below',
        ExpressionAttributeValues: {
          ':pk': partition,
          ...(options.below === undefined ? {} : { ':below': options.below }),
        },
        Limit: options.pageSize,
        ExclusiveStartKey,
      }),
    );
    yield await itemsOf<T>(out.Items ?? []);
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}

/**
 * One page of a GSI1 partition (or of several, merged: a sharded one), newest first (GSI1SK
 * descending, for time-ordered ids); with `after`, only the items whose GSI1SK sorts before it (a
 * key condition, so the cursor needs no table key). Reads limit+1 items to know whether there are
 * more; stops at MAX_PAGE_BYTES too. Eventually consistent, as every read of an index is.
 */
export async function queryGsi1Page<T extends Item = Item>(
  partitions: string | string[],
  page: { limit: number; after?: string; before?: string },
): Promise<Page<T>> {
  // `before`: the items whose GSI1SK sorts after it, read upwards (the page just before, in list order)
  const newestFirst = page.before === undefined;
  const cursor = page.before ?? page.after;
  const readers = [partitions].flat().map((partition) =>
    queryReader<T>({
      IndexName: 'GSI1',
      KeyConditionExpression:
        cursor === undefined ? 'GSI1PK = :pk' : `GSI1PK = :pk AND GSI1SK ${newestFirst ? '<' : '>'} :cursor`,
      ExpressionAttributeValues: { ':pk': partition, ...(cursor === undefined ? {} : { ':cursor': cursor }) },
      ScanIndexForward: !newestFirst,
    }),
  );
  const merged = await mergeReaders(readers, page.limit + 1, (a, b) =>
    newestFirst ? a.GSI1SK > b.GSI1SK : a.GSI1SK < b.GSI1SK,
  );
  const { items, hasMore } = bounded(await itemsOf<T>(merged), page.limit);
  return { items: newestFirst ? items : items.reverse(), hasMore };
}
