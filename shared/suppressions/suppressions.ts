/**
 * The suppression list: addresses a project must not mail. The sender drops every suppressed
 * recipient (shared/emails/sender.ts reads the canonical entry with BatchGet).
 *
 * One entry per (project, lower-cased address). Each entry is stored twice, always in ONE
 * transaction: the canonical item under the address (keys.suppression), claimed with
 * `attribute_not_exists` so two writers can never both create an entry for the same address, and
 * the same record under its id (keys.suppressionById), which serves GET/DELETE by id and the
 * newest-first list. Deleting removes both, again in one transaction, on the condition that the
 * canonical item still carries the id that was read.
 *
 * Writers:
 * - the customer: POST /suppressions (`manual`); an address already suppressed keeps its entry
 *   (whatever its source) and the caller gets that entry back (200 instead of 201);
 * - SES feedback (shared/suppressions/feedback.ts): `suppressAddress` for Permanent bounces and
 *   complaints, `withdrawComplaint` for a `not-spam` complaint. Both are idempotent, so a
 *   redelivered notification writes nothing new.
 *
 * Events (Resend's types) go in the transaction of their change, with the entry as GET
 * /suppressions/{id} shows it: `suppression.added` when an entry is created (POST or SES feedback;
 * an address that already had one writes nothing, so it emits nothing: a redelivered
 * notification announces nothing twice), `suppression.removed` when one is deleted (DELETE or a
 * `not-spam` withdrawal). Each entry is its own transaction of three actions (two items and the
 * event), so the feedback path, which writes each recipient of a notification apart, never comes
 * near DynamoDB's 100 actions or 4 MB. SES feedback of live mail suppresses in the live project;
 * test mode's simulated feedback (shared/emails/test-mode-send.ts) names the email's test twin, so
 * its entries are test-mode ones there, which never block a live send, and their events carry
 * `livemode: false` (the twin's id says which: shared/project/test-mode.ts).
 *
 * Batches (POST /suppressions/batch/add and /batch/remove, Resend's `suppressions.batch.*`), up to
 * 100 addresses or ids, validated all or nothing before anything is read:
 * 1. one read: BatchGet of every named entry (one request: 100 keys is BatchGetItem's bound);
 * 2. the writes: each entry is the same three actions as a single add or remove, event included,
 *    so 33 entries fit one transaction and a batch of 100 takes four. Every transaction is whole
 *    entries, so no entry is ever half written and no event is ever without its change;
 * 3. an entry that another writer added or removed between the read and its transaction fails that
 *    transaction's condition: the entry is answered as the other writer left it, and the rest of
 *    the transaction is tried again without it.
 * A crash between two transactions leaves the earlier ones committed (entries and their events)
 * and the later ones not written; nothing is half done. Calling again with the same body
 * completes it: an add finds the committed entries (answered `created: false`, no second event)
 * and creates the rest; a remove finds them gone (`deleted: false`) and removes the rest.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transact,
  transactionChunks,
  transactRetryingConflicts,
  type Item,
  type OnConditionFailed,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { eventWrite } from '../events/events';
import { isTestProject } from '../project/test-mode';
import { notFound } from '../platform/errors';
import { newId, nowIso, UUID_PATTERN } from '../platform/ids';
import type {
  BatchAdded,
  BatchRemoved,
  BatchRemoveInput,
  CreateSuppressionInput,
  Suppression,
  SuppressionEntry,
  SuppressionSource,
} from './model';

/** The entry as the API answers it: the stored contract fields, and Resend's names for two of them (model.ts). */
const toRecord = (item: Item): Suppression => ({
  object: 'suppression',
  id: item.id,
  email: item.email,
  source: item.source,
  origin: item.source,
  subtype: item.subtype ?? null,
  reason: item.reason ?? null,
  message_id: item.message_id ?? null,
  source_id: item.message_id ?? null,
  created_at: item.created_at,
});

/** What is stored of a record: the contract's fields (`origin` and `source_id` are derived when read). */
const stored = ({ origin: _origin, source_id: _sourceId, ...fields }: Suppression) => fields;

const missing = () => notFound('Suppression', 'id_or_email');

type EventCaller = Pick<Caller, 'projectId' | 'livemode'>;

/** SES feedback's writes: in the project the email was sent from, live or its test twin (the module comment). */
const feedbackCaller = (projectId: string): EventCaller => ({ projectId, livemode: !isTestProject(projectId) });

/**
 * Both items of a new entry and `suppression.added`, in one transaction: `{created: true}`, or,
 * when the address already has an entry, nothing written and that entry as the failed condition found it.
 */
async function insert(
  caller: EventCaller,
  record: Suppression,
): Promise<{ created: true } | { created: false; existing: Item | undefined }> {
  try {
    await transact(addition(caller, record));
    return { created: true };
  } catch (error) {
    if (isConditionFailed(error, 'already suppressed')) return { created: false, existing: error.item };
    throw error;
  }
}

/** A new entry's three writes: the canonical item (claimed: ConditionFailed 'already suppressed' with the existing item), the item under its id, `suppression.added`. */
function addition(caller: EventCaller, record: Suppression): WriteAction[] {
  const projectId = caller.projectId;
  const item = { type: 'suppression', project_id: projectId, ...stored(record) };
  return [
    put(
      { ...keys.suppression(projectId, record.email), ...item },
      { ifAbsent: { tag: 'already suppressed', withItem: true } },
    ),
    put({ ...keys.suppressionById(projectId, record.id), ...item, type: 'suppression_id' }),
    eventWrite(caller, 'suppression.added', record),
  ];
}

const normalized = (email: string) => email.trim().toLowerCase();

/** A new entry, shaped by toRecord like every entry the API answers. */
const newRecord = (entry: SuppressionEntry): Suppression =>
  toRecord({ ...entry, id: newId(), email: normalized(entry.email), created_at: nowIso() });

/**
 * Deletes both items of an entry, only while the address's canonical item is still this entry
 * (same id) and, with `source`, still of that source; with `suppression.removed` (the entry as it was).
 */
function removal(
  caller: EventCaller,
  record: Suppression,
  onFailed: OnConditionFailed,
  source?: SuppressionSource,
): WriteAction[] {
  const projectId = caller.projectId;
  return [
    {
      kind: 'Delete',
      params: {
        Key: keys.suppression(projectId, record.email),
        ConditionExpression: source ? '#id = :id AND #source = :source' : '#id = :id',
        ExpressionAttributeNames: { '#id': 'id', ...(source ? { '#source': 'source' } : {}) },
        ExpressionAttributeValues: { ':id': record.id, ...(source ? { ':source': source } : {}) },
      },
      onConditionFailed: onFailed,
    },
    del(keys.suppressionById(projectId, record.id)),
    eventWrite(caller, 'suppression.removed', record),
  ];
}

/**
 * POST /suppressions: a `manual` entry. When the address is already suppressed the existing entry
 * is returned as it is (`created: false`); the conditional write decides, so two concurrent calls
 * for one address create exactly one entry.
 */
export async function createSuppression(
  caller: Caller,
  input: CreateSuppressionInput,
): Promise<{ record: Suppression; created: boolean }> {
  const record = newRecord({
    email: input.email,
    source: 'manual',
    subtype: null,
    reason: input.reason ?? null,
    message_id: null,
  });
  const outcome = await insert(caller, record);
  if (outcome.created) return { record, created: true };
  // the entry that failed our condition, as it was then: no second read, and no window for it to go
  if (!outcome.existing)
    throw new Error(`suppression of ${input.email}: the existing entry did not come with the failed condition`);
  return { record: toRecord(outcome.existing), created: false };
}

/** The entry for an id (UUID) or an address (any case); undefined when there is none in this project. */
async function findItem(projectId: string, idOrEmail: string): Promise<Item | undefined> {
  return getItem(
    UUID_PATTERN.test(idOrEmail) ? keys.suppressionById(projectId, idOrEmail) : keys.suppression(projectId, idOrEmail),
  );
}

export async function getSuppression(caller: Caller, idOrEmail: string): Promise<Suppression> {
  const item = await findItem(caller.projectId, idOrEmail);
  if (!item) throw missing();
  return toRecord(item);
}

/** `source` (or Resend's `origin`, the same filter: operations.ts refuses the two when they differ) as a FilterExpression on the Query. */
export async function listSuppressions(
  caller: Caller,
  page: PageRequest & { source?: SuppressionSource; origin?: SuppressionSource },
) {
  const source = page.source ?? page.origin;
  const filter = source
    ? { expression: '#source = :source', names: { '#source': 'source' }, values: { ':source': source } }
    : undefined;
  const { items, hasMore } = await queryPage(keys.suppressions(caller.projectId), page, filter);
  return { records: items.map(toRecord), hasMore };
}

/** DELETE /suppressions/{id_or_email}: both items go in one transaction; the address can be mailed again. */
export async function deleteSuppression(caller: Caller, idOrEmail: string): Promise<Suppression> {
  const item = await findItem(caller.projectId, idOrEmail);
  if (!item) throw missing();
  const record = toRecord(item);
  await transact(removal(caller, record, missing)); // a concurrent delete loses here: 404 (and no second event)
  return record;
}

/**
 * Suppresses an address because of SES feedback. Idempotent: an address that already has an
 * entry keeps it as it is (a manual or bounce entry is not turned into a complaint) and nothing is
 * written. Returns whether a new entry was created.
 */
export async function suppressAddress(projectId: string, entry: SuppressionEntry): Promise<boolean> {
  return (await insert(feedbackCaller(projectId), newRecord(entry))).created;
}

/**
 * A `not-spam` complaint: removes the address's entry if, and only if, it is a complaint entry.
 * Entries of other sources stay. Returns whether an entry was removed.
 */
export async function withdrawComplaint(projectId: string, email: string): Promise<boolean> {
  const item = await getItem(keys.suppression(projectId, email.trim()));
  if (!item || item.source !== 'complaint') return false;
  try {
    await transact(removal(feedbackCaller(projectId), toRecord(item), { tag: 'changed' }, 'complaint'));
    return true;
  } catch (error) {
    if (isConditionFailed(error, 'changed')) return false; // deleted or replaced meanwhile: nothing of ours to withdraw
    throw error;
  }
}

/** Actions per entry of a batch: its two items and its event, as a single add or remove writes them. */
const ACTIONS_PER_ENTRY = 3;
/**
 * Bytes an entry puts in a transaction: its record three times (two items, and the event that
 * carries it) plus 1 KB each for keys, the event's envelope and Resend's flat fields. A record is
 * a few hundred bytes to a few KB (an address is at most 254 characters, a manual reason 1,000, a
 * bounce's SMTP diagnostic what SES gives), so the 100 actions bind long before the 3.5 MB a
 * transaction may hold; counted anyway, so no record could make a transaction too large.
 */
const entryBytes = (record: Suppression) => ACTIONS_PER_ENTRY * (Buffer.byteLength(JSON.stringify(record)) + 1024);

/**
 * Writes `records` in transactions of whole entries (the module comment, step 2 and 3): each
 * transaction that fails the condition of one entry (`tag`, raised by the canonical item) drops
 * that entry, hands it to `onTaken` with what the other writer left there, and is tried again.
 */
async function writeEntries(
  projectId: string,
  records: Suppression[],
  writes: (record: Suppression) => WriteAction[],
  tag: string,
  onTaken: (record: Suppression, found: Item | undefined) => void,
): Promise<void> {
  for (const chunk of transactionChunks(records, { actions: () => ACTIONS_PER_ENTRY, bytes: entryBytes })) {
    let pending = chunk;
    while (pending.length > 0) {
      try {
        await transactRetryingConflicts(pending.flatMap(writes));
        pending = [];
      } catch (error) {
        if (!isConditionFailed(error, tag)) throw error;
        const taken = pending.find((r) => error.key.SK === keys.suppression(projectId, r.email).SK);
        if (!taken) throw error;
        onTaken(taken, error.item);
        pending = pending.filter((r) => r !== taken); // shorter every time: the loop ends
      }
    }
  }
}

/**
 * POST /suppressions/batch/add: a `manual` entry for each address that has none; an address that
 * has one keeps it (whatever its source) and is answered with it, `created: false`, as POST
 * /suppressions answers 200. An address named twice (in any case) is one entry, answered at both
 * indices. The answer follows the order of the request.
 */
export async function addSuppressions(caller: Caller, emails: string[]): Promise<BatchAdded[]> {
  const projectId = caller.projectId;
  const addresses = [...new Set(emails.map(normalized))];
  const answers = new Map<string, BatchAdded>();
  const answer = (record: Pick<Suppression, 'id' | 'email'>, created: boolean) =>
    answers.set(record.email, { object: 'suppression', id: record.id, email: record.email, created });

  for (const item of await batchGet(addresses.map((email) => keys.suppression(projectId, email))))
    answer(toRecord(item), false);
  const fresh = addresses
    .filter((email) => !answers.has(email))
    .map((email) => newRecord({ email, source: 'manual', subtype: null, reason: null, message_id: null }));
  const taken = new Set<Suppression>();
  await writeEntries(
    projectId,
    fresh,
    (record) => addition(caller, record),
    'already suppressed',
    (record, found) => {
      taken.add(record);
      if (!found)
        throw new Error(`suppression of ${record.email}: the existing entry did not come with the failed condition`);
      answer(toRecord(found), false);
    },
  );
  for (const record of fresh) if (!taken.has(record)) answer(record, true);
  return emails.map((email) => answers.get(normalized(email))!);
}

/**
 * POST /suppressions/batch/remove: removes the entries named by address or by id. One that does
 * not exist (or that another writer removed or replaced meanwhile) is answered `deleted: false`
 * and is no error, so that calling again after a failure is safe. Answers follow the request's
 * order; an entry named twice is removed once and answered at both indices.
 */
export async function removeSuppressions(caller: Caller, input: BatchRemoveInput): Promise<BatchRemoved[]> {
  const projectId = caller.projectId;
  const byId = input.ids !== undefined;
  const names = byId ? input.ids! : input.emails!.map(normalized);
  const keyOf = (name: string) => (byId ? keys.suppressionById(projectId, name) : keys.suppression(projectId, name));
  const records = (await batchGet([...new Set(names)].map(keyOf))).map(toRecord);

  const kept = new Set<Suppression>();
  await writeEntries(
    projectId,
    records,
    (record) => removal(caller, record, { tag: 'changed' }),
    'changed',
    (record) => kept.add(record),
  );
  const removed = new Map(records.filter((r) => !kept.has(r)).map((r) => [byId ? r.id : r.email, r]));
  return names.map((name) => {
    const record = removed.get(name);
    if (record) return { object: 'suppression', id: record.id, email: record.email, deleted: true };
    return { object: 'suppression', id: byId ? name : null, email: byId ? null : name, deleted: false };
  });
}
