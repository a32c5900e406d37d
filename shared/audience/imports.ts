/**
 * Contact imports: a CSV file of contacts, accepted by POST /contacts/imports and written by the
 * contact-imports worker in pages, each page ONE transaction with the import's progress.
 *
 * Accepting (the request):
 * 1. The file is read as UTF-8 (a file that is not is 422 `file`: we do not guess an encoding, and
 *    a wrong guess would store garbled names), its BOM dropped, its header row parsed; each column
 *    the column map names must be in it (422 naming the `column_map` field), and an email column is.
 * 2. The file is put in the content bucket (`imports/<project id>/<import id>.csv`, which the bucket's
 *    lifecycle rule expires like email content); an object whose record never commits is left to it.
 * 3. One transaction: the import record (`queued`, cursor 0) and a ConditionCheck per segment and
 *    topic (an unknown one is 422 naming `segments.<i>.id` / `topics.<i>.id`).
 * 4. One message `{project_id, import_id}` on the contact-imports queue. If that send fails the
 *    request answers 500 and the record stays `queued` with nothing done: the client imports again.
 *
 * Importing (the worker, `runImport`; a message may come twice, or after a crash anywhere):
 * 1. Read the record: gone, `completed` or `failed` -> nothing to do (a duplicate message).
 * 2. Read and parse the whole file (at most a request's 5 MB); a file that no longer parses (it
 *    cannot, it was checked) or is gone -> `failed` with the reason. `queued` -> `in_progress` with
 *    `total` (the rows), conditional on still being `queued`.
 * 3. From the record's cursor (`processed`, rows done), a page of rows: at most PAGE_ROWS, fewer
 *    when its segments and topics would take the transaction past 100 actions or its rows past
 *    3.5 MB, and never the same address twice (the second starts the next page, where it is an
 *    existing contact). Rows that are not valid contacts (the contact schema of ./model.ts and the
 *    project's property schema, as POST /contacts checks them) are counted failed.
 * 4. The page's address claims are read (BatchGet), then their contacts. A new address: what POST
 *    /contacts writes (the contact, its claim with attribute_not_exists, its memberships,
 *    `contact.created`, the contact count). An existing one: `skip` counts it, `upsert` writes what a
 *    PATCH does (the row's non-empty values, its segments added, its topics set; `contact.updated`).
 * 5. Pages go WINDOW_PAGES at a time, side by side (one page after another would leave DynamoDB
 *    idle between them). Each is ONE transaction: its writes and its marker (keys.contactImportPage,
 *    attribute_not_exists, holding the page's counts). So a page is written once or not at all: a
 *    worker that dies before it commits redoes it on redelivery; a page found done (its marker there)
 *    gives its counts from the marker. A claim taken or a contact changed between the read and the
 *    write (a POST /contacts racing the import, or the same address in two pages of one window) ->
 *    the page is read and built again (5 tries). Then one update moves the record's cursor past the
 *    window with the window's counts, conditional on the cursor being where the window started: a
 *    worker that dies between its pages and this update leaves the markers, and the next delivery
 *    redoes the window from them. The last window also sets `completed`. The cursor moved ->
 *    another delivery of the message is doing this import: this one stops.
 * 6. CONTINUE_MARGIN_MS before the function's timeout the worker stops between pages and sends the
 *    message again (a continuation) instead of being killed mid-page: a long file goes on in a new
 *    invocation, without counting receives towards the DLQ. Were the continuation sent twice, step
 *    5's condition lets only one of them move the cursor.
 *
 * Values are data: a cell that starts with `=`, `+`, `-` or `@` is stored as the string it is. The
 * service never exports CSV, so there is no spreadsheet to inject into; an exporter would escape there.
 */
import { parse } from 'csv-parse/sync';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  checkExists,
  getItem,
  isConditionFailed,
  isTransactionConflict,
  MAX_TRANSACTION_ACTIONS,
  put,
  queryPage,
  transact,
  update,
  type Item,
  type Page,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { getObject, putObject } from '../platform/aws/s3';
import { queue } from '../platform/aws/queues';
import { notFound, unprocessable } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { eventWrite } from '../events/events';
import { contactCountWrite } from './contact-count';
import { checkPropertyValues, readPropertySchema, type PropertySchema } from './contact-properties';
import { contactUpdate, emailClaim, member, toContact, topicsUpdatedEvent, type ContactChange, type ContactItem } from './contacts';
import { createContactBody, MAX_SEGMENTS_PER_CONTACT, segmentRefId, type PropertyValue, type Subscription } from './model';
import { MAX_IMPORT_ROW_BYTES, MAX_REPORTED_FAILURES, type ColumnMap, type ContactImport, type CreateImportInput, type ImportFailure, type ImportStatus, type OnConflict } from './imports-model';

/** Contacts per page at most: 25 new contacts with no segment are 25 x 3 + 2 = 77 actions. */
export const PAGE_ROWS = 25;
/** Stop this long before the function's timeout, between pages: a page takes well under a second, its retries a few. */
export const CONTINUE_MARGIN_MS = 20_000;
/** Bytes of items a page's transaction may carry: DynamoDB's 4 MB less room for the record and keys. */
const PAGE_BYTES = 3.5 * 1024 * 1024;
/** Tries of one page when a racing write took a claim or changed a contact between the read and the write. */
const PAGE_ATTEMPTS = 5;
/** Pages written side by side (step 5). */
const WINDOW_PAGES = 4;
/** Page markers are kept a week: an import's messages are long done by then. */
const PAGE_MARKER_TTL_SECONDS = 7 * 86_400;

export interface ImportMessage {
  project_id: string;
  import_id: string;
}
/** `enqueue` throws when SQS does not take the message: the request answers 500, a worker's message comes back. */
export const importQueue = queue<ImportMessage>('contact-imports', 'throw');

interface ImportItem extends Item {
  type: 'contact_import';
  project_id: string;
  id: string;
  livemode: boolean;
  status: ImportStatus;
  file_key: string;
  column_map: Required<Pick<ColumnMap, 'email'>> & ColumnMap;
  on_conflict: OnConflict;
  segment_ids: string[];
  topics: Record<string, Subscription>;
  total: number;
  processed: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  failures: ImportFailure[];
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
}

const toImport = (item: ImportItem): ContactImport => ({
  object: 'contact_import',
  id: item.id,
  status: item.status,
  created_at: item.created_at,
  completed_at: item.completed_at,
  counts: { total: item.total, created: item.created, updated: item.updated, skipped: item.skipped, failed: item.failed },
  processed: item.processed,
  failures: item.failures,
  failure_reason: item.failure_reason,
});

const fileKey = (projectId: string, importId: string) => `imports/${projectId}/${importId}.csv`;
const invalid = (path: string, code: string, message: string) => unprocessable([{ code, message, path }]);

/** The file as text: UTF-8 or nothing (`fatal`), the BOM dropped by the parser. */
function decode(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Rows of the CSV (RFC 4180: quoted fields may hold commas, quotes and line breaks); empty lines skipped. */
const parseCsv = (text: string, options: { toLine?: number } = {}): string[][] =>
  parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, ...(options.toLine ? { to_line: options.toLine } : {}) }) as string[][];

/** The column map with its defaults: the columns named like the fields, when the map does not name them. */
function resolveColumns(given: ColumnMap | undefined, header: string[]): ImportItem['column_map'] {
  const defaults = Object.fromEntries(['email', 'first_name', 'last_name', 'unsubscribed'].filter((name) => header.includes(name)).map((name) => [name, name]));
  return { ...defaults, ...given, email: given?.email ?? 'email' };
}

export async function createImport(caller: Caller, input: CreateImportInput): Promise<{ object: 'contact_import'; id: string }> {
  const projectId = caller.projectId;
  const bytes = Buffer.from(input.file, 'latin1');
  const text = decode(bytes);
  if (text === undefined) throw invalid('file', 'invalid_encoding', 'the file must be UTF-8 text (CSV)');
  let header: string[];
  try {
    header = (parseCsv(text, { toLine: 1 })[0] ?? []).map((name) => name.trim());
  } catch (error) {
    throw invalid('file', 'invalid_csv', `the header row is not CSV: ${(error as Error).message}`);
  }
  const columns = resolveColumns(input.column_map, header);
  const named: [string, string][] = [
    ...(['email', 'first_name', 'last_name', 'unsubscribed'] as const).flatMap((field): [string, string][] => (columns[field] ? [[`column_map.${field}`, columns[field]]] : [])),
    ...Object.entries(columns.properties ?? {}).map(([key, p]): [string, string] => [`column_map.properties.${key}.column`, p.column]),
  ];
  const missing = named.filter(([, name]) => !header.includes(name));
  if (missing.length) throw unprocessable(missing.map(([path, name]) => ({ code: 'unknown_column', message: `the file's header has no column "${name}"`, path })));

  const importId = newId();
  const item: ImportItem = {
    ...keys.contactImport(projectId, importId),
    type: 'contact_import',
    project_id: projectId,
    id: importId,
    livemode: caller.livemode,
    status: 'queued',
    file_key: fileKey(projectId, importId),
    column_map: columns,
    on_conflict: input.on_conflict ?? 'upsert',
    segment_ids: (input.segments ?? []).map(segmentRefId),
    topics: Object.fromEntries((input.topics ?? []).map((t) => [t.id, t.subscription])),
    total: 0,
    processed: 0,
    created: 0,
    updated: 0,
    skipped: 0,
    failed: 0,
    failures: [],
    failure_reason: null,
    created_at: nowIso(),
    completed_at: null,
  };
  await putObject(item.file_key, bytes, 'text/csv', 'content');
  await transact([
    put(item),
    ...(input.segments ?? []).map((ref, i) =>
      checkExists(keys.segment(projectId, segmentRefId(ref)), () =>
        invalid(typeof ref === 'string' ? `segments.${i}` : `segments.${i}.id`, 'unknown_segment', 'no segment with this id in this project'),
      ),
    ),
    ...(input.topics ?? []).map((t, i) => checkExists(keys.topic(projectId, t.id), () => invalid(`topics.${i}.id`, 'unknown_topic', 'no topic with this id in this project'))),
  ]);
  await importQueue.enqueue([{ project_id: projectId, import_id: importId }]);
  return { object: 'contact_import', id: importId };
}

export async function getImport(caller: Caller, importId: string): Promise<ContactImport> {
  const item = await getItem<ImportItem>(keys.contactImport(caller.projectId, importId));
  if (!item) throw notFound('Contact import', 'import_id');
  return toImport(item);
}

/** GET /contacts/imports: newest first; `status` as a filter of the Query. */
export async function listImports(caller: Caller, page: PageRequest & { status?: ImportStatus }): Promise<Page<ContactImport>> {
  const filter = page.status ? { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': page.status } } : undefined;
  const { items, hasMore } = await queryPage<ImportItem>(keys.contactImports(caller.projectId), page, filter);
  return { items: items.map(toImport), hasMore };
}

// The worker

/** A row as a contact's fields, or why it is not one. */
type RowResult = { row: number; email: string; lower: string; fields: RowFields; bytes: number } | { row: number; failure: ImportFailure };
interface RowFields {
  first_name?: string;
  last_name?: string;
  unsubscribed?: boolean;
  properties: Record<string, PropertyValue>;
}

const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);

/** A cell as the property's type; undefined for an empty cell (the row says nothing of it). */
function typed(cell: string, type: 'string' | 'number' | 'boolean'): PropertyValue | undefined | Error {
  if (cell === '') return undefined;
  if (type === 'string') return cell;
  if (type === 'number') {
    const value = Number(cell.trim());
    return cell.trim() !== '' && Number.isFinite(value) ? value : new Error(`"${cell.slice(0, 40)}" is not a number`);
  }
  const lower = cell.trim().toLowerCase();
  return TRUE.has(lower) ? true : FALSE.has(lower) ? false : new Error(`"${cell.slice(0, 40)}" is not a boolean (true/false, 1/0, yes/no)`);
}

/** One data row (1-based, the header not counted) checked as POST /contacts checks a body. */
function readRow(cells: string[], row: number, indexOf: Map<string, number>, record: ImportItem, schema: PropertySchema): RowResult {
  const cell = (column: string | undefined) => (column === undefined ? '' : (cells[indexOf.get(column) ?? -1] ?? ''));
  const email = cell(record.column_map.email).trim();
  const fail = (reason: string): RowResult => ({ row, failure: { row, email: email.slice(0, 320) || null, reason: reason.slice(0, 500) } });
  const bytes = cells.reduce((sum, c) => sum + Buffer.byteLength(c), 0);
  if (bytes > MAX_IMPORT_ROW_BYTES) return fail(`the row is over ${MAX_IMPORT_ROW_BYTES / 1024} KiB`);
  const fields: RowFields = { properties: {} };
  for (const field of ['first_name', 'last_name'] as const) {
    const value = cell(record.column_map[field]);
    if (value !== '') fields[field] = value;
  }
  const unsubscribed = typed(cell(record.column_map.unsubscribed), 'boolean');
  if (unsubscribed instanceof Error) return fail(`unsubscribed: ${unsubscribed.message}`);
  if (unsubscribed !== undefined) fields.unsubscribed = unsubscribed as boolean;
  for (const [key, mapping] of Object.entries(record.column_map.properties ?? {})) {
    const value = typed(cell(mapping.column), mapping.type ?? schema[key]?.type ?? 'string');
    if (value instanceof Error) return fail(`properties.${key}: ${value.message}`);
    if (value !== undefined) fields.properties[key] = value;
  }
  const checked = createContactBody.safeParse({ email, ...fields });
  if (!checked.success) return fail(checked.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; '));
  try {
    checkPropertyValues(schema, fields.properties);
  } catch (error) {
    return fail((error as Error).message);
  }
  const { email: address, first_name, last_name } = checked.data; // trimmed, as POST /contacts keeps them
  return { row, email: address, lower: address.toLowerCase(), fields: { ...fields, first_name: first_name ?? undefined, last_name: last_name ?? undefined }, bytes };
}

/** The page from `start`: rows within the action and byte budgets, no address twice. */
function pageAt(rows: string[][], start: number, indexOf: Map<string, number>, record: ImportItem, schema: PropertySchema): RowResult[] {
  const segments = record.segment_ids.length;
  const topics = Object.keys(record.topics).length;
  // record + count + segment and topic checks, then per row at most 3 + its memberships: a new contact, its claim and
  // `contact.created`; or an update, `contact.updated` and (with topics) `contact.topics.updated`
  const rowsByActions = Math.floor((MAX_TRANSACTION_ACTIONS - 2 - segments - topics) / (3 + segments));
  const limit = Math.max(1, Math.min(PAGE_ROWS, rowsByActions));
  const page: RowResult[] = [];
  const addresses = new Set<string>();
  let bytes = 0;
  for (let i = start; i < rows.length && page.length < limit; i++) {
    const result = readRow(rows[i], i + 1, indexOf, record, schema);
    if ('lower' in result) {
      // the contact, its event (twice with topics) and the record: about 4 times the row
      if (addresses.has(result.lower) || (page.length > 0 && bytes + 4 * result.bytes + 4096 > PAGE_BYTES)) break;
      addresses.add(result.lower);
      bytes += 4 * result.bytes + 4096;
    }
    page.push(result);
  }
  return page;
}

interface PageOutcome {
  actions: WriteAction[];
  created: number;
  updated: number;
  skipped: number;
  failures: ImportFailure[];
}

/** The page's writes, from its claims and contacts as read now. */
async function buildPage(record: ImportItem, page: RowResult[]): Promise<PageOutcome> {
  const projectId = record.project_id;
  const caller = { projectId, livemode: record.livemode };
  const rows = page.filter((r): r is Extract<RowResult, { lower: string }> => 'lower' in r);
  const outcome: PageOutcome = { actions: [], created: 0, updated: 0, skipped: 0, failures: page.flatMap((r) => ('failure' in r ? [r.failure] : [])) };
  const claims = await batchGet(rows.map((r) => keys.contactEmail(projectId, r.email)));
  const claimed = new Map(claims.map((c) => [String(c.SK), String(c.contact_id)]));
  const existingIds = rows.flatMap((r) => (claimed.has(keys.contactEmail(projectId, r.email).SK) ? [claimed.get(keys.contactEmail(projectId, r.email).SK)!] : []));
  const contacts = record.on_conflict === 'upsert' && existingIds.length ? await batchGet<ContactItem & Item>(existingIds.map((id) => keys.contact(projectId, id))) : [];
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const now = nowIso();
  const topicList = Object.entries(record.topics).map(([id, subscription]) => ({ id, subscription }));

  for (const row of rows) {
    const contactId = claimed.get(keys.contactEmail(projectId, row.email).SK);
    if (contactId === undefined) {
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
      if (!current && record.on_conflict === 'upsert') throw Object.assign(new Error('claim without contact'), { retryPage: true });
      outcome.skipped++;
      continue;
    }
    const added = record.segment_ids.filter((id) => !current.segment_ids.includes(id));
    if (current.segment_ids.length + added.length > MAX_SEGMENTS_PER_CONTACT) {
      outcome.failures.push({ row: row.row, email: row.email, reason: `the contact would be in more than ${MAX_SEGMENTS_PER_CONTACT} segments` });
      continue;
    }
    const set: Partial<ContactItem> = { updated_at: now };
    for (const field of ['first_name', 'last_name', 'unsubscribed'] as const) if (row.fields[field] !== undefined) set[field] = row.fields[field] as never;
    const change: ContactChange = { set, properties: row.fields.properties, topics: record.topics, expect: { email: current.email } };
    if (added.length) {
      change.set.segment_ids = [...current.segment_ids, ...added];
      change.expect!.segment_ids = current.segment_ids;
    }
    const next = toContact({ ...current, ...set, properties: { ...current.properties, ...row.fields.properties }, topics: { ...current.topics, ...record.topics } });
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

type PageCounts = Pick<PageOutcome, 'created' | 'updated' | 'skipped' | 'failures'>;
const sum = (pages: PageCounts[], field: 'created' | 'updated' | 'skipped') => pages.reduce((n, p) => n + p[field], 0);

/**
 * Writes one page (step 5) with its marker, or finds it written: either way answers its counts.
 * Throws a failed condition tagged `segment gone` / `topic gone` when one of the import's went.
 */
async function writePage(record: ImportItem, start: number, page: RowResult[]): Promise<PageCounts> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await buildPage(record, page);
      const counts: PageCounts = { created: outcome.created, updated: outcome.updated, skipped: outcome.skipped, failures: outcome.failures };
      const marker = put(
        {
          ...keys.contactImportPage(record.project_id, record.id, start),
          type: 'contact_import_page',
          rows: page.length,
          ...counts,
          expires_at: Math.floor(Date.now() / 1000) + PAGE_MARKER_TTL_SECONDS,
        },
        { ifAbsent: { tag: 'page done', withItem: true } },
      );
      await transact([marker, ...outcome.actions]); // the marker first: a page found done decides over anything else
      return counts;
    } catch (error) {
      if (isConditionFailed(error, 'page done')) {
        const done = error.item as Item;
        return { created: Number(done.created), updated: Number(done.updated), skipped: Number(done.skipped), failures: (done.failures as ImportFailure[]) ?? [] };
      }
      const racing = isConditionFailed(error, 'claimed') || isConditionFailed(error, 'contact changed') || isTransactionConflict(error) || (error as { retryPage?: boolean }).retryPage;
      if (!racing || attempt >= PAGE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 50 * attempt));
    }
  }
}

/** The record's progress after a window of pages, conditional on the cursor being where the window started. */
function progress(record: ImportItem, outcome: PageCounts, rows: number): { action: WriteAction; next: ImportItem } {
  const next: ImportItem = {
    ...record,
    processed: record.processed + rows,
    created: record.created + outcome.created,
    updated: record.updated + outcome.updated,
    skipped: record.skipped + outcome.skipped,
    failed: record.failed + outcome.failures.length,
    failures: [...record.failures, ...outcome.failures].slice(0, MAX_REPORTED_FAILURES),
  };
  if (next.processed >= next.total) Object.assign(next, { status: 'completed', completed_at: nowIso() });
  const set: Item = { processed: next.processed, created: next.created, updated: next.updated, skipped: next.skipped, failed: next.failed, status: next.status, completed_at: next.completed_at };
  if (outcome.failures.length && record.failures.length < MAX_REPORTED_FAILURES) set.failures = next.failures;
  const action = update(
    keys.contactImport(record.project_id, record.id),
    { set, condition: { expression: '#processed = :cursor', names: { '#processed': 'processed' }, values: { ':cursor': record.processed } } },
    { tag: 'moved' },
  );
  return { action, next };
}

async function finish(record: ImportItem, status: 'failed' | 'completed', reason: string | null): Promise<void> {
  await transact([
    update(
      keys.contactImport(record.project_id, record.id),
      {
        set: { status, failure_reason: reason, completed_at: nowIso() },
        condition: { expression: '#processed = :cursor', names: { '#processed': 'processed' }, values: { ':cursor': record.processed } },
      },
      { tag: 'moved' },
    ),
  ]).catch((error) => {
    if (!isConditionFailed(error, 'moved')) throw error;
  });
}

/** What a run of the worker did with a message. */
export type RunOutcome = 'done' | 'continue' | 'stopped';

/**
 * One message's work (the module comment's steps): until the import is done, `deadline` (epoch ms)
 * comes near (`continue`: the caller re-sends the message), or another delivery moved the cursor (`stopped`).
 */
export async function runImport(message: ImportMessage, deadline: number): Promise<RunOutcome> {
  let record = await getItem<ImportItem>(keys.contactImport(message.project_id, message.import_id));
  if (!record || record.status === 'completed' || record.status === 'failed') return 'done';
  const bytes = await getObject(record.file_key, 'content');
  const text = bytes && decode(bytes);
  let rows: string[][];
  try {
    if (text === undefined) throw new Error(bytes ? 'the file is not UTF-8' : 'the file is gone');
    rows = parseCsv(text);
  } catch (error) {
    await finish(record, 'failed', (error as Error).message.slice(0, 500));
    return 'done';
  }
  const header = (rows.shift() ?? []).map((name) => name.trim());
  const indexOf = new Map<string, number>();
  for (const [i, name] of header.entries()) if (!indexOf.has(name)) indexOf.set(name, i); // a repeated column name: its first column
  if (record.status === 'queued') {
    try {
      await transact([
        update(
          keys.contactImport(record.project_id, record.id),
          { set: { status: 'in_progress', total: rows.length }, condition: { expression: '#status = :queued', names: { '#status': 'status' }, values: { ':queued': 'queued' } } },
          { tag: 'started' },
        ),
      ]);
    } catch (error) {
      if (!isConditionFailed(error, 'started')) throw error;
    }
    record = { ...record, status: 'in_progress', total: rows.length };
  }
  if (rows.length === 0) {
    await finish(record, 'completed', null);
    return 'done';
  }
  const schema = await readPropertySchema(record.project_id);
  while (record.processed < rows.length) {
    if (Date.now() > deadline - CONTINUE_MARGIN_MS) return 'continue';
    // a window of pages with no address in two of them: a repeated address is written in file order
    const window: { start: number; page: RowResult[] }[] = [];
    const inWindow = new Set<string>();
    for (let start = record.processed; window.length < WINDOW_PAGES && start < rows.length; ) {
      const page = pageAt(rows, start, indexOf, record, schema);
      const addresses = page.flatMap((r) => ('lower' in r ? [r.lower] : []));
      if (window.length && addresses.some((a) => inWindow.has(a))) break;
      for (const a of addresses) inWindow.add(a);
      window.push({ start, page });
      start += page.length;
    }
    let written: PageCounts[];
    try {
      written = await Promise.all(window.map(({ start, page }) => writePage(record!, start, page)));
    } catch (error) {
      if (isConditionFailed(error, 'segment gone') || isConditionFailed(error, 'topic gone')) {
        await finish(record, 'failed', `a ${(error as { tag: string }).tag.split(' ')[0]} of the import was deleted during it`);
        return 'done';
      }
      throw error;
    }
    const counts: PageCounts = {
      created: sum(written, 'created'),
      updated: sum(written, 'updated'),
      skipped: sum(written, 'skipped'),
      failures: written.flatMap((w) => w.failures),
    };
    const { action, next } = progress(
      record,
      counts,
      window.reduce((n, w) => n + w.page.length, 0),
    );
    try {
      await transact([action]);
    } catch (error) {
      if (isConditionFailed(error, 'moved')) return 'stopped';
      throw error;
    }
    record = next;
  }
  return 'done';
}
