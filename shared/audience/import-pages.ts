/**
 * Building and writing one page of an import (the worker, ./imports.ts): the page's contacts, claims,
 * memberships and counts as ONE transaction with its marker, tried again when a racing write took
 * a claim.
 */
import * as keys from '../platform/db/keys';
import {
  batchGet,
  checkExists,
  isConditionFailed,
  isTransactionConflict,
  put,
  transact,
  type Item,
  type WriteAction,
} from '../platform/db/table';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { eventWrite } from '../events/events';
import { contactCountWrite, contactRoom } from '../project/contact-count';
import {
  contactUpdate,
  emailClaim,
  member,
  toContact,
  topicsUpdatedEvent,
  type ContactChange,
  type ContactItem,
} from './contacts';
import { MAX_SEGMENTS_PER_CONTACT } from './model';
import type { ImportFailure } from './imports-model';
import type { ImportItem } from './import-item';
import type { RowResult, ImportPage } from './import-rows';

/** Tries of one page when a racing write took a claim or changed a contact between the read and the write. */
export const PAGE_ATTEMPTS = 5;
/** Page markers are kept a week: an import's messages are long done by then. */
export const PAGE_MARKER_TTL_SECONDS = 7 * 86_400;

export interface PageOutcome {
  actions: WriteAction[];
  created: number;
  updated: number;
  skipped: number;
  failures: ImportFailure[];
  /** addresses the page found claimed */
  claimed: number;
}

/** The page's writes, from its claims and contacts as read now; with `readClaims` false, every address taken for new (step 4). */
export async function buildPage(record: ImportItem, page: RowResult[], readClaims: boolean): Promise<PageOutcome> {
  const projectId = record.project_id;
  const caller = { projectId, livemode: record.livemode };
  const rows = page.filter((r): r is Extract<RowResult, { lower: string }> => 'lower' in r);
  const claims = readClaims ? await batchGet(rows.map((r) => keys.contactEmail(projectId, r.email))) : [];
  const outcome: PageOutcome = {
    actions: [],
    created: 0,
    updated: 0,
    skipped: 0,
    failures: page.flatMap((r) => ('failure' in r ? [r.failure] : [])),
    claimed: claims.length,
  };
  const claimed = new Map(claims.map((c) => [String(c.SK), String(c.contact_id)]));
  const existingIds = rows.flatMap((r) =>
    claimed.has(keys.contactEmail(projectId, r.email).SK)
      ? [claimed.get(keys.contactEmail(projectId, r.email).SK)!]
      : [],
  );
  const contacts =
    record.on_conflict === 'upsert' && existingIds.length
      ? await batchGet<ContactItem & Item>(existingIds.map((id) => keys.contact(projectId, id)))
      : [];
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const now = nowIso();
  const topicList = Object.entries(record.topics).map(([id, subscription]) => ({ id, subscription }));
  // new contacts past the project's contact limit are failed rows (read per page: pages in flight side by side may pass it by a page)
  const newRows = rows.filter((r) => !claimed.has(keys.contactEmail(projectId, r.email).SK)).length;
  const { limit, room } = newRows ? await contactRoom(projectId) : { limit: 0, room: 0 };
  let roomLeft = room;

  for (const row of rows) {
    const contactId = claimed.get(keys.contactEmail(projectId, row.email).SK);
    if (contactId === undefined) {
      if (roomLeft < 1) {
        outcome.failures.push({
          row: row.row,
          email: row.email,
          reason: `the project holds its contact limit of ${limit} contacts`,
        });
        continue;
      }
      roomLeft--;
      const item: ContactItem = {
        type: 'contact',
        project_id: projectId,
        id: newId(),
        email: row.email,
        first_name: row.fields.first_name ?? null,
        last_name: row.fields.last_name ?? null,
        unsubscribed: row.fields.unsubscribed ?? false,
        properties: row.fields.properties,
        segment_ids: record.segment_ids,
        topics: record.topics,
        created_at: now,
        updated_at: now,
      };
      outcome.actions.push(
        put({ ...keys.contact(projectId, item.id), ...item }),
        put(emailClaim(projectId, item.id, item.email), { ifAbsent: { tag: 'claimed' } }),
        ...item.segment_ids.map((segmentId) => put(member(projectId, segmentId, item.id))),
        eventWrite(caller, 'contact.created', toContact(item)),
      );
      outcome.created++;
      continue;
    }
    const current = byId.get(contactId);
    if (record.on_conflict === 'skip' || !current) {
      // skip; or the claim's contact is gone (a delete between our two reads): the next try sees no claim
      if (!current && record.on_conflict === 'upsert')
        throw Object.assign(new Error('claim without contact'), { retryPage: true });
      outcome.skipped++;
      continue;
    }
    const added = record.segment_ids.filter((id) => !current.segment_ids.includes(id));
    if (current.segment_ids.length + added.length > MAX_SEGMENTS_PER_CONTACT) {
      outcome.failures.push({
        row: row.row,
        email: row.email,
        reason: `the contact would be in more than ${MAX_SEGMENTS_PER_CONTACT} segments`,
      });
      continue;
    }
    const set: Partial<ContactItem> = { updated_at: now };
    for (const field of ['first_name', 'last_name', 'unsubscribed'] as const)
      if (row.fields[field] !== undefined) set[field] = row.fields[field] as never;
    const change: ContactChange = {
      set,
      properties: row.fields.properties,
      topics: record.topics,
      expect: { email: current.email },
    };
    if (added.length) {
      change.set.segment_ids = [...current.segment_ids, ...added];
      change.expect!.segment_ids = current.segment_ids;
    }
    const next = toContact({
      ...current,
      ...set,
      properties: { ...current.properties, ...row.fields.properties },
      topics: { ...current.topics, ...record.topics },
    });
    outcome.actions.push(
      contactUpdate(projectId, current.id, change),
      ...added.map((segmentId) => put(member(projectId, segmentId, current.id))),
      eventWrite(caller, 'contact.updated', next),
      ...(topicList.length ? [topicsUpdatedEvent(caller, next, topicList)] : []),
    );
    outcome.updated++;
  }
  if (outcome.created) outcome.actions.push(contactCountWrite(projectId, outcome.created));
  if (outcome.actions.length) {
    // the import's segments and topics still exist (they did when it was accepted)
    outcome.actions.push(
      ...record.segment_ids.map((id) => checkExists(keys.segment(projectId, id), { tag: 'segment gone' })),
      ...Object.keys(record.topics).map((id) => checkExists(keys.topic(projectId, id), { tag: 'topic gone' })),
    );
  }
  return outcome;
}

export type PageCounts = Pick<PageOutcome, 'created' | 'updated' | 'skipped' | 'failures'>;

/** Whether the pages being written should read their claims first (step 4): yes until a page finds none claimed. */
export interface ClaimsHint {
  read: boolean;
}

/**
 * Writes one page (step 5) with its marker, or finds it written: either way answers its counts.
 * Throws a failed condition tagged `segment gone` / `topic gone` when one of the import's went.
 */
export async function writePage(record: ImportItem, page: ImportPage, hint: ClaimsHint): Promise<PageCounts> {
  let readClaims = hint.read;
  for (let attempt = 1; ; ) {
    try {
      const outcome = await buildPage(record, page.rows, readClaims);
      if (readClaims) hint.read = outcome.claimed > 0;
      const counts: PageCounts = {
        created: outcome.created,
        updated: outcome.updated,
        skipped: outcome.skipped,
        failures: outcome.failures,
      };
      const marker = put(
        {
          ...keys.contactImportPage(record.project_id, record.id, page.start),
          type: 'contact_import_page',
          rows: page.rows.length,
          ...counts,
          expires_at: Math.floor(clockNow() / 1000) + PAGE_MARKER_TTL_SECONDS,
        },
        { ifAbsent: { tag: 'page done', withItem: true } },
      );
      await transact([marker, ...outcome.actions]); // the marker first: a page found done decides over anything else
      return counts;
    } catch (error) {
      if (isConditionFailed(error, 'page done')) {
        const done = error.item as Item;
        return {
          created: Number(done.created),
          updated: Number(done.updated),
          skipped: Number(done.skipped),
          failures: (done.failures as ImportFailure[]) ?? [],
        };
      }
      if (!readClaims && isConditionFailed(error, 'claimed')) {
        // an address taken for new was not: read this page's claims, and the next pages' too (not a race, so no try counted)
        readClaims = hint.read = true;
        continue;
      }
      const racing =
        isConditionFailed(error, 'claimed') ||
        isConditionFailed(error, 'contact changed') ||
        isTransactionConflict(error) ||
        (error as { retryPage?: boolean }).retryPage;
      if (!racing || attempt >= PAGE_ATTEMPTS) throw error;
      attempt++;
      readClaims = true;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}

/** The pages done since the cursor last moved (step 6): their rows, where the last ends, their counts (`failures`: the first of them). */
