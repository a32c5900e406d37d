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
 * near DynamoDB's 100 actions or 4 MB. SES feedback only exists for mail that reached SES, which
 * test-mode keys never do (shared/emails/sender.ts), so its events are live (`livemode: true`).
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, isConditionFailed, put, queryPage, transact, type Item, type OnConditionFailed, type PageRequest, type WriteAction } from '../platform/db/table';
import { eventWrite } from '../events/events';
import { notFound } from '../platform/errors';
import { newId, nowIso, UUID_PATTERN } from '../platform/ids';
import type { CreateSuppressionInput, Suppression, SuppressionEntry, SuppressionSource } from './model';

const toRecord = (item: Item): Suppression => ({
  object: 'suppression',
  id: item.id,
  email: item.email,
  source: item.source,
  subtype: item.subtype ?? null,
  reason: item.reason ?? null,
  message_id: item.message_id ?? null,
  created_at: item.created_at,
});

const missing = () => notFound('Suppression', 'id_or_email');

type EventCaller = Pick<Caller, 'projectId' | 'livemode'>;

/** SES feedback's writes: live mail only (the module comment). */
const feedbackCaller = (projectId: string): EventCaller => ({ projectId, livemode: true });

/**
 * Both items of a new entry and `suppression.added`, in one transaction: `{created: true}`, or,
 * when the address already has an entry, nothing written and that entry as the failed condition found it.
 */
async function insert(caller: EventCaller, record: Suppression): Promise<{ created: true } | { created: false; existing: Item | undefined }> {
  const projectId = caller.projectId;
  const item = { type: 'suppression', project_id: projectId, ...record };
  try {
    await transact([
      put({ ...keys.suppression(projectId, record.email), ...item }, { ifAbsent: { tag: 'already suppressed', withItem: true } }),
      put({ ...keys.suppressionById(projectId, record.id), ...item, type: 'suppression_id' }),
      eventWrite(caller, 'suppression.added', record),
    ]);
    return { created: true };
  } catch (error) {
    if (isConditionFailed(error, 'already suppressed')) return { created: false, existing: error.item };
    throw error;
  }
}

const newRecord = (entry: SuppressionEntry): Suppression => ({
  object: 'suppression',
  id: newId(),
  ...entry,
  email: entry.email.trim().toLowerCase(),
  created_at: nowIso(),
});

/**
 * Deletes both items of an entry, only while the address's canonical item is still this entry
 * (same id) and, with `source`, still of that source; with `suppression.removed` (the entry as it was).
 */
function removal(caller: EventCaller, record: Suppression, onFailed: OnConditionFailed, source?: SuppressionSource): WriteAction[] {
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
export async function createSuppression(caller: Caller, input: CreateSuppressionInput): Promise<{ record: Suppression; created: boolean }> {
  const record = newRecord({ email: input.email, source: 'manual', subtype: null, reason: input.reason ?? null, message_id: null });
  const outcome = await insert(caller, record);
  if (outcome.created) return { record, created: true };
  // the entry that failed our condition, as it was then: no second read, and no window for it to go
  if (!outcome.existing) throw new Error(`suppression of ${input.email}: the existing entry did not come with the failed condition`);
  return { record: toRecord(outcome.existing), created: false };
}

/** The entry for an id (UUID) or an address (any case); undefined when there is none in this project. */
async function findItem(projectId: string, idOrEmail: string): Promise<Item | undefined> {
  return getItem(UUID_PATTERN.test(idOrEmail) ? keys.suppressionById(projectId, idOrEmail) : keys.suppression(projectId, idOrEmail));
}

export async function getSuppression(caller: Caller, idOrEmail: string): Promise<Suppression> {
  const item = await findItem(caller.projectId, idOrEmail);
  if (!item) throw missing();
  return toRecord(item);
}

export async function listSuppressions(caller: Caller, page: PageRequest & { source?: SuppressionSource }) {
  const filter = page.source ? { expression: '#source = :source', names: { '#source': 'source' }, values: { ':source': page.source } } : undefined;
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
