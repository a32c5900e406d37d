/**
 * The one failed-condition error of db/table.ts against DynamoDB Local: which action failed, by
 * its tag, and the item as it was when the action asked for it (ALL_OLD), from PutItem,
 * UpdateItem and a cancelled transaction alike; a domain error factory still throws its own error.
 */
import {
  checkExists,
  ConditionFailed,
  del,
  getItem,
  isConditionFailed,
  put,
  putItem,
  transact,
  update,
  updateItem,
} from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { useRuntimeTable } from '../support/table';

useRuntimeTable();
const key = () => ({ PK: `TEST#${newId()}`, SK: 'CONDITION' });
const failure = async (write: Promise<unknown>): Promise<unknown> =>
  write.then(
    () => undefined,
    (error: unknown) => error,
  );

it('PutItem: ConditionFailed with the tag, the action and the existing item (only with withItem)', async () => {
  const k = key();
  await putItem(put({ ...k, n: 1, tags: ['a'], nested: { x: 'y' } }));
  const error = await failure(putItem(put({ ...k, n: 2 }, { ifAbsent: { tag: 'exists', withItem: true } })));
  expect(error).toBeInstanceOf(ConditionFailed);
  expect(error).toMatchObject({
    tag: 'exists',
    kind: 'Put',
    key: k,
    item: { ...k, n: 1, tags: ['a'], nested: { x: 'y' } },
  });
  expect(isConditionFailed(error, 'exists')).toBe(true);
  expect(isConditionFailed(error, 'other')).toBe(false);
  expect(
    ((await failure(putItem(put({ ...k, n: 3 }, { ifAbsent: { tag: 'exists' } })))) as ConditionFailed).item,
  ).toBeUndefined();
  expect(await getItem(k)).toMatchObject({ n: 1 });
});

it('UpdateItem: the item as the failed condition found it', async () => {
  const k = key();
  await putItem(put({ ...k, status: 'sent' }));
  const moved = update(
    k,
    {
      set: { status: 'delivered' },
      condition: { expression: '#s = :seen', names: { '#s': 'status' }, values: { ':seen': 'queued' } },
    },
    { tag: 'moved', withItem: true },
  );
  expect(await failure(updateItem(moved))).toMatchObject({ tag: 'moved', kind: 'Update', item: { status: 'sent' } });
  // no item: nothing to carry
  const gone = update(
    key(),
    { set: { status: 'x' }, condition: { expression: 'attribute_exists(PK)' } },
    { tag: 'gone', withItem: true },
  );
  const error = (await failure(updateItem(gone))) as ConditionFailed;
  expect(error.tag).toBe('gone');
  expect(error.item).toBeUndefined();
});

it('a cancelled transaction: the first action whose condition failed decides, with its own item', async () => {
  const a = key();
  const b = key();
  await putItem(put({ ...b, owner: 'someone' }));
  const error = await failure(
    transact([
      put({ ...a, v: 1 }),
      checkExists(key(), { tag: 'missing', withItem: true }),
      del(b, { ifUnchanged: { expected: { owner: 'me' }, onChanged: { tag: 'changed', withItem: true } } }),
    ]),
  );
  expect(error).toMatchObject({ tag: 'missing', kind: 'ConditionCheck', item: undefined });
  const changed = await failure(
    transact([
      put({ ...a, v: 1 }),
      del(b, { ifUnchanged: { expected: { owner: 'me' }, onChanged: { tag: 'changed', withItem: true } } }),
    ]),
  );
  expect(changed).toMatchObject({ tag: 'changed', kind: 'Delete', key: b, item: { ...b, owner: 'someone' } });
  expect(await getItem(a)).toBeUndefined(); // nothing of a cancelled transaction is written
});

it('a function still throws its own (domain) error, and an action without one the SDK error', async () => {
  const k = key();
  await putItem(put({ ...k }));
  await expect(putItem(put({ ...k }, { ifAbsent: () => new Error('taken: 409') }))).rejects.toThrow('taken: 409');
  const error = (await failure(
    transact([update(k, { set: { v: 1 }, condition: { expression: 'attribute_not_exists(PK)' } })]),
  )) as Error;
  expect(error.name).toBe('TransactionCanceledException');
});
