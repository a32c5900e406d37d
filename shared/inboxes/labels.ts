/**
 * An inbox's labels (at most MAX_LABELS): name and colour (#RRGGBB; a colour picked from the
 * name when none is given). Threads hold label ids; deleting a label leaves its id on threads,
 * where readers drop it (ids are never reused), so a delete is one write.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, put, queryPage, transact, update, type Item } from '../platform/db/table';
import { conflict, notFound } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { readInbox } from './inboxes';
import { MAX_LABELS, type Label } from './model';
import { labelsOf } from './threads';

const missingLabel = () => notFound('Label', 'label_id');
const PALETTE = ['#E93D82', '#3E63DD', '#30A46C', '#F76B15', '#8E4EC6', '#12A594', '#E5484D', '#FFB224'];
const colourFor = (name: string) => PALETTE[createHash('sha256').update(name).digest()[0] % PALETTE.length];

const toLabel = (item: Item): Label => ({
  id: item.id,
  name: item.name,
  color: item.color,
  created_at: item.created_at,
});

export async function listLabels(caller: Caller, idOrAddress: string) {
  const inbox = await readInbox(caller, idOrAddress);
  const { items } = await queryPage(keys.inboxLabels(caller.projectId, inbox.id), { limit: MAX_LABELS });
  return items.map(toLabel).sort((a, b) => a.name.localeCompare(b.name));
}

export async function createLabel(caller: Caller, idOrAddress: string, input: { name: string; color?: string }) {
  const inbox = await readInbox(caller, idOrAddress);
  const existing = await labelsOf(caller.projectId, inbox.id);
  if ([...existing.values()].some((l) => l.name.toLowerCase() === input.name.toLowerCase()))
    throw conflict('label_exists', `A label named ${input.name} already exists in this inbox`, 'name');
  if (existing.size >= MAX_LABELS)
    throw conflict('too_many_labels', `An inbox has at most ${MAX_LABELS} labels`, 'name');
  const id = newId();
  const item = {
    id,
    name: input.name,
    color: (input.color ?? colourFor(input.name)).toUpperCase(),
    created_at: nowIso(),
  };
  await transact([put({ ...keys.inboxLabel(caller.projectId, inbox.id, id), type: 'inbox_label', ...item })]);
  return item;
}

export async function updateLabel(
  caller: Caller,
  idOrAddress: string,
  labelId: string,
  input: { name?: string; color?: string },
) {
  const inbox = await readInbox(caller, idOrAddress);
  const current = await getItem(keys.inboxLabel(caller.projectId, inbox.id, labelId));
  if (!current) throw missingLabel();
  if (input.name !== undefined && input.name.toLowerCase() !== String(current.name).toLowerCase()) {
    const existing = await labelsOf(caller.projectId, inbox.id);
    if ([...existing.values()].some((l) => l.name.toLowerCase() === input.name!.toLowerCase()))
      throw conflict('label_exists', `A label named ${input.name} already exists in this inbox`, 'name');
  }
  const set: Item = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.color !== undefined) set.color = input.color.toUpperCase();
  await transact([
    update(
      keys.inboxLabel(caller.projectId, inbox.id, labelId),
      { set, condition: { expression: 'attribute_exists(PK)' } },
      missingLabel,
    ),
  ]);
  return labelId;
}

export async function deleteLabel(caller: Caller, idOrAddress: string, labelId: string) {
  const inbox = await readInbox(caller, idOrAddress);
  await transact([del(keys.inboxLabel(caller.projectId, inbox.id, labelId), { ifExists: missingLabel })]);
  return labelId;
}
