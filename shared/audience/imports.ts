/**
 * Contact imports: a CSV file of contacts, accepted by POST /contacts/imports and written by the
 * contact-imports worker in pages, each page ONE transaction with its marker.
 *
 * The file comes in the request (`file`, multipart, at most what a request carries) or, larger,
 * through an upload (`createUpload`: POST /contacts/imports/uploads with the file's `size` answers a
 * presigned PUT URL for `imports/<project id>/<upload id>.csv` in the content bucket, valid
 * UPLOAD_URL_TTL_SECONDS, its Content-Length signed: S3 takes a body of exactly that size, at most
 * MAX_IMPORT_FILE_BYTES, and an upload no import used expires with the import files a day later; the
 * client PUTs the file there and creates the import with `upload_id`). The upload's id becomes the
 * import's id, so one upload makes one import (a second is 409 `upload_used`), and an id of another
 * project names no object under this project's prefix (422 `unknown_upload`, as for an id never issued).
 *
 * Accepting (the request):
 * 1. `file`: read as UTF-8 (a file that is not is 422 `file`: we do not guess an encoding, and a wrong
 *    guess would store garbled names), its BOM dropped, its header row parsed. `upload_id`: the object
 *    must be there (HeadObject; else 422 `upload_id`) and at most MAX_IMPORT_FILE_BYTES; only its
 *    first MAX_HEADER_BYTES are read (the header row must end within them, and be UTF-8 and CSV, else
 *    422 `upload_id`). The rest of an uploaded file is not read by the request: the worker checks it
 *    (step 2) and fails the import with a `failure_reason` rather than the request answering 422.
 *    Either way each column the column map names must be in the header (422 naming the `column_map`
 *    field), and an email column is.
 * 2. The inline file is put in the content bucket (`imports/<project id>/<import id>.csv`, which the
 *    bucket's lifecycle rule expires after a day, lib/constructs/content-bucket.ts); an object whose
 *    record never commits, or an upload no import used, is left to it. An uploaded file is already there; its ETag is kept in the record, and every read of the
 *    worker asks for it (`If-Match`): a file PUT again after the import was accepted fails the import.
 * 3. One transaction: the import record (`queued`; attribute_not_exists, so an upload is used once)
 *    and a ConditionCheck per segment and topic (an unknown one is 422 naming `segments.<i>.id` /
 *    `topics.<i>.id`).
 * 4. One message `{project_id, import_id}` on the contact-imports queue. If that send fails the
 *    request answers 500 and the import is failed (the project's running import released in the
 *    same transaction) with nothing done: the client imports again.
 *
 * One running import per project (issue 32, 12: the worker's 2 slots are the deployment's, so one
 * project's imports queued one after another held them for hours): step 3's transaction also puts
 * the project's running-import item (keys.contactImportRunning, attribute_not_exists); when it is
 * there the request is 409 `import_in_progress` naming the running import. The transaction that
 * completes or fails the import (its last cursor move, `finish`) deletes it. A worker that dies for
 * good leaves its message in the DLQ after 5 receives (about 12.5 minutes) and its import queued or
 * in progress, which nothing else ends: so a running import whose record has not moved for
 * STALE_RUNNING_SECONDS (15 minutes; a live run moves its cursor every few seconds and at least once
 * an invocation) or that is still queued after STALE_QUEUED_SECONDS (an hour: waiting its turn
 * behind other projects' imports) is stale: the next import fails it ("the import stopped: ...")
 * and takes its place, in one transaction conditional on neither having moved. The stale import's
 * message, were it delivered later, finds it failed and does nothing.
 *
 * Importing (the worker, `runImport`; a message may come twice, or after a crash anywhere):
 * 1. Read the record: gone, `completed` or `failed` -> nothing to do (a duplicate message).
 * 2. Not started yet (no byte `offset` in the record): read the whole file once, as a stream
 *    (./csv-rows.ts `scanCsv`): UTF-8 and CSV all through, its header, its rows counted. A file that
 *    is not, or is gone, or changed -> `failed` with the reason. Else -> `in_progress` with `total`,
 *    the column indexes, and `offset`: the byte where the first data row starts.
 * 3. From the record's cursor (`processed` rows done, which end at byte `offset`), the file is read
 *    from that byte on (a ranged GetObject: the rows before it are not read or parsed again, and no
 *    more of the file is held than the pages being written). A page: at most PAGE_ROWS rows, fewer
 *    when its segments and topics would take the transaction past 100 actions or its rows past
 *    3.5 MB, and never the same address twice (the second starts the next page, where it is an
 *    existing contact); its bounds depend on the file and the record alone, so a page done before a
 *    crash is found again under the same marker. Rows that are not valid contacts (the contact schema
 *    of ./model.ts and the project's property schema, as POST /contacts checks them) are counted failed.
 * 4. The page's address claims are read (BatchGet), then their contacts. A new address: what POST
 *    /contacts writes (the contact, its claim with attribute_not_exists, its memberships,
 *    `contact.created`, the contact count). An existing one: `skip` counts it, `upsert` writes what a
 *    PATCH does (the row's non-empty values, its segments added, its topics set; `contact.updated`).
 *    The claims are read only while the import meets existing addresses: after a page that found
 *    none, the next pages take their addresses for new and leave it to the claims' conditions; a page
 *    whose condition fails is read and built again, and the pages after it read first again.
 * 5. PAGES_IN_FLIGHT pages are written side by side, as a pipeline (one page after another would
 *    leave DynamoDB idle between them; a window that waits for its slowest page did the same). A page
 *    with an address of a page in flight waits for them, so a repeated address is written in file
 *    order. Each page is ONE transaction: its writes and its marker (keys.contactImportPage,
 *    attribute_not_exists, holding the page's counts). So a page is written once or not at all: a
 *    worker that dies before it commits redoes it on redelivery; a page found done (its marker there)
 *    gives its counts from the marker. A claim taken or a contact changed between the read and the
 *    write (a POST /contacts racing the import) -> the page is read and built again (5 tries).
 * 6. Every PROGRESS_PAGES pages, in file order, one UpdateItem moves the record's cursor (`processed`,
 *    `offset`) past them with their counts, conditional on the cursor being where the last one left
 *    it: a worker that dies before this update leaves the markers, and the next delivery redoes those
 *    pages from them. The end of the file also sets `completed`. The cursor moved -> another delivery
 *    of the message is doing this import: this one stops.
 * 7. CONTINUE_MARGIN_MS before the function's timeout the worker starts no more pages, lets those in
 *    flight land, moves the cursor and sends the message again (a continuation) instead of being killed
 *    mid-page: a long file goes on in a new invocation from its byte offset, without counting receives
 *    towards the DLQ. Were the continuation sent twice, step 6's condition lets only one of them move
 *    the cursor.
 *
 * Values are data: a cell that starts with `=`, `+`, `-` or `@` is stored as the string it is. The
 * service never exports CSV, so there is no spreadsheet to inject into; an exporter would escape there.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  checkExists,
  del,
  getItem,
  isConditionFailed,
  isTransactionConflict,
  MAX_TRANSACTION_ACTIONS,
  put,
  queryPage,
  transact,
  update,
  updateItem,
  type Item,
  type Page,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { getObjectStream, headObject, ObjectStoreError, presignPut, putObject } from '../platform/aws/s3';
import { queue } from '../platform/aws/queues';
import { conflict, notFound, unprocessable } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { eventWrite } from '../events/events';
import { contactCountWrite, contactLimitReached, contactRoom } from '../project/contact-count';
import { checkPropertyValues, readPropertySchema, type PropertySchema } from './contact-properties';
import {
  contactUpdate,
  emailClaim,
  member,
  toContact,
  topicsUpdatedEvent,
  type ContactChange,
  type ContactItem,
} from './contacts';
import { csvRows, headerOf, InvalidCsv, scanCsv, type CsvRow } from './csv-rows';
import {
  createContactBody,
  MAX_SEGMENTS_PER_CONTACT,
  segmentRefId,
  type PropertyValue,
  type Subscription,
} from './model';
import {
  MAX_HEADER_BYTES,
  MAX_IMPORT_FILE_BYTES,
  MAX_IMPORT_ROW_BYTES,
  MAX_REPORTED_FAILURES,
  type ColumnMap,
  type ContactImport,
  type CreatedUpload,
  type CreateUploadInput,
  type CreateImportInput,
  type ImportFailure,
  type ImportStatus,
  type OnConflict,
  UPLOAD_URL_TTL_SECONDS,
} from './imports-model';

/** Contacts per page at most: 32 new contacts with no segment are 32 x 3 + 2 = 98 actions. */
export const PAGE_ROWS = 32;
/** Stop this long before the function's timeout, between pages: a page takes well under a second, its retries a few. */
export const CONTINUE_MARGIN_MS = 20_000;
/** Bytes of items a page's transaction may carry: DynamoDB's 4 MB less room for the record and keys. */
const PAGE_BYTES = 3.5 * 1024 * 1024;
/** Tries of one page when a racing write took a claim or changed a contact between the read and the write. */
const PAGE_ATTEMPTS = 5;
/**
 * Pages written side by side (step 5): one committing while the next is read, built and sent. DynamoDB
 * Local commits one transaction at a time (under its table's write lock), so more only wait there
 * (measured: 2, 3 and 4 alike within the noise, bench/contact-imports.ts). On DynamoDB, where
 * transactions on different items overlap, more would go faster; two keep one import's share of the
 * project's writes modest (about 200 items in flight).
 */
const PAGES_IN_FLIGHT = 2;
/** Pages between two moves of the record's cursor (step 6): what a crash makes the next delivery find again from markers. */
const PROGRESS_PAGES = 8;
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
  /** an uploaded file's ETag when the import was accepted (every read asks for it); null for a file of the request */
  file_etag: string | null;
  column_map: Required<Pick<ColumnMap, 'email'>> & ColumnMap;
  on_conflict: OnConflict;
  segment_ids: string[];
  topics: Record<string, Subscription>;
  total: number;
  /** the cursor: rows done, in file order */
  processed: number;
  /** the cursor's byte in the file: where row `processed + 1` starts; absent until the worker has read the file once (step 2) */
  offset?: number;
  /** the file's record delimiter, and where each mapped column is (set with `offset`) */
  record_delimiter?: string;
  column_indexes?: Record<string, number>;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  failures: ImportFailure[];
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
  /** when the cursor last moved (start, every PROGRESS_PAGES pages): how a stale running import is told */
  moved_at?: string;
  /** the import holds the project's running-import item (every import created since it exists) */
  running_lock?: boolean;
}

/** A running import whose record has not moved for this long is stale (the module comment). */
export const STALE_RUNNING_SECONDS = 15 * 60;
/** A queued import not started for this long is stale. */
export const STALE_QUEUED_SECONDS = 60 * 60;

const toImport = (item: ImportItem): ContactImport => ({
  object: 'contact_import',
  id: item.id,
  status: item.status,
  created_at: item.created_at,
  completed_at: item.completed_at,
  counts: {
    total: item.total,
    created: item.created,
    updated: item.updated,
    skipped: item.skipped,
    failed: item.failed,
  },
  processed: item.processed,
  failures: item.failures,
  failure_reason: item.failure_reason,
});

const fileKey = (projectId: string, importId: string) => `imports/${projectId}/${importId}.csv`;
const invalid = (path: string, code: string, message: string) => unprocessable([{ code, message, path }]);

/** The text of `bytes`: UTF-8 or nothing (`fatal`). `partial`: the first bytes of a file, whose last character may be cut. */
function decode(bytes: Uint8Array, partial = false): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: partial });
  } catch {
    return undefined;
  }
}

/** The column map with its defaults: the columns named like the fields, when the map does not name them. */
function resolveColumns(given: ColumnMap | undefined, header: string[]): ImportItem['column_map'] {
  const defaults = Object.fromEntries(
    ['email', 'first_name', 'last_name', 'unsubscribed']
      .filter((name) => header.includes(name))
      .map((name) => [name, name]),
  );
  return { ...defaults, ...given, email: given?.email ?? 'email' };
}

/** Each column the map names, with the field that names it (`column_map.first_name`). */
const mappedColumns = (columns: ImportItem['column_map']): [string, string][] => [
  ...(['email', 'first_name', 'last_name', 'unsubscribed'] as const).flatMap((field): [string, string][] =>
    columns[field] ? [[`column_map.${field}`, columns[field]]] : [],
  ),
  ...Object.entries(columns.properties ?? {}).map(([key, p]): [string, string] => [
    `column_map.properties.${key}.column`,
    p.column,
  ]),
];

/** The header of the file a request brings or names, checked (accepting, step 1). */
interface AcceptedFile {
  importId: string;
  header: string[];
  etag: string | null;
  /** puts a file of the request in the bucket */
  store?: () => Promise<void>;
}

function inlineFile(projectId: string, file: string): AcceptedFile {
  const bytes = Buffer.from(file, 'latin1');
  const text = decode(bytes);
  if (text === undefined) throw invalid('file', 'invalid_encoding', 'the file must be UTF-8 text (CSV)');
  const importId = newId();
  return {
    importId,
    header: checkedHeader(text, 'file').names,
    etag: null,
    store: () => putObject(fileKey(projectId, importId), bytes, 'text/csv', 'content'),
  };
}

function checkedHeader(text: string, path: 'file' | 'upload_id'): ReturnType<typeof headerOf> {
  try {
    return headerOf(text);
  } catch (error) {
    throw invalid(path, 'invalid_csv', `the header row is not CSV: ${(error as Error).message}`);
  }
}

async function uploadedFile(projectId: string, uploadId: string): Promise<AcceptedFile> {
  const key = fileKey(projectId, uploadId);
  const head = await headObject(key, 'content');
  if (!head)
    throw invalid(
      'upload_id',
      'unknown_upload',
      'no file was uploaded with this id in this project (PUT it to the upload_url first)',
    );
  if (head.size === 0) throw invalid('upload_id', 'empty_file', 'the uploaded file is empty');
  if (head.size > MAX_IMPORT_FILE_BYTES)
    throw invalid(
      'upload_id',
      'file_too_large',
      `the uploaded file is ${head.size} bytes, over ${MAX_IMPORT_FILE_BYTES}`,
    );
  const stream = await getObjectStream(key, 'content', { ifMatch: head.etag, length: MAX_HEADER_BYTES });
  const first = stream ? new Uint8Array(await new Response(stream).arrayBuffer()) : new Uint8Array();
  const whole = first.length >= head.size;
  const text = decode(first, !whole);
  if (text === undefined) throw invalid('upload_id', 'invalid_encoding', 'the file must be UTF-8 text (CSV)');
  const header = checkedHeader(text, 'upload_id');
  if (!whole && !header.ended)
    throw invalid(
      'upload_id',
      'header_too_long',
      `the header row must end within the file's first ${MAX_HEADER_BYTES} bytes`,
    );
  return { importId: uploadId, header: header.names, etag: head.etag };
}

/**
 * POST /contacts/imports/uploads: where to PUT a file too large for a request (the module comment).
 * Nothing is stored: the URL names the object, and the object is the upload.
 */
export async function createUpload(caller: Caller, input: CreateUploadInput): Promise<CreatedUpload> {
  const id = newId();
  // the size is signed (Content-Length): S3 takes a body of exactly that size, which the schema bounded
  const { upload_url, expires_at } = await presignPut(fileKey(caller.projectId, id), {
    bucket: 'content',
    expiresInSeconds: UPLOAD_URL_TTL_SECONDS,
    contentLength: input.size,
  });
  return {
    object: 'upload',
    id,
    upload_url,
    method: 'PUT',
    headers: { 'content-type': 'text/csv' },
    expires_at,
    max_bytes: MAX_IMPORT_FILE_BYTES,
    size: input.size,
  };
}

export async function createImport(
  caller: Caller,
  input: CreateImportInput,
): Promise<{ object: 'contact_import'; id: string }> {
  const projectId = caller.projectId;
  if (input.file === undefined && input.upload_id === undefined)
    throw invalid('file', 'required', 'a `file`, or the `upload_id` of an uploaded file, is required');
  if (input.file !== undefined && input.upload_id !== undefined)
    throw invalid('upload_id', 'file_and_upload', 'give a `file` or an `upload_id`, not both');
  const { limit, room } = await contactRoom(projectId);
  if (room < 1) throw contactLimitReached(limit);
  const file =
    input.file !== undefined ? inlineFile(projectId, input.file) : await uploadedFile(projectId, input.upload_id!);
  const columns = resolveColumns(input.column_map, file.header);
  const missing = mappedColumns(columns).filter(([, name]) => !file.header.includes(name));
  if (missing.length)
    throw unprocessable(
      missing.map(([path, name]) => ({
        code: 'unknown_column',
        message: `the file's header has no column "${name}"`,
        path,
      })),
    );

  const importId = file.importId;
  const item: ImportItem = {
    ...keys.contactImport(projectId, importId),
    type: 'contact_import',
    project_id: projectId,
    id: importId,
    livemode: caller.livemode,
    status: 'queued',
    file_key: fileKey(projectId, importId),
    file_etag: file.etag,
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
    running_lock: true,
  };
  await file.store?.();
  const checks = [
    ...(input.segments ?? []).map((ref, i) =>
      checkExists(keys.segment(projectId, segmentRefId(ref)), () =>
        invalid(
          typeof ref === 'string' ? `segments.${i}` : `segments.${i}.id`,
          'unknown_segment',
          'no segment with this id in this project',
        ),
      ),
    ),
    ...(input.topics ?? []).map((t, i) =>
      checkExists(keys.topic(projectId, t.id), () =>
        invalid(`topics.${i}.id`, 'unknown_topic', 'no topic with this id in this project'),
      ),
    ),
  ];
  const lock = { ...keys.contactImportRunning(projectId), import_id: importId, taken_at: item.created_at };
  const take = () => put(lock, { ifAbsent: { tag: 'import running', withItem: true } });
  let taking: WriteAction[] = [take()];
  for (let attempt = 1; ; attempt++) {
    try {
      await transact([
        put(item, {
          ifAbsent: () => conflict('upload_used', 'an import was already created from this upload', 'upload_id'),
        }),
        ...taking,
        ...checks,
      ]);
      break;
    } catch (error) {
      if (!(isConditionFailed(error, 'import running') || isConditionFailed(error, 'running moved')) || attempt >= 3)
        throw error;
      const held = error.tag === 'import running' ? error.item : await getItem(keys.contactImportRunning(projectId));
      taking = held ? await takeOverStale(projectId, String(held.import_id), lock) : [take()];
    }
  }
  try {
    await importQueue.enqueue([{ project_id: projectId, import_id: importId }]);
  } catch (error) {
    await finish(item, 'failed', 'the import could not be queued: create it again').catch(() => undefined);
    throw error;
  }
  return { object: 'contact_import', id: importId };
}

/**
 * The writes that take the project's running-import item from `runningId` when that import is over
 * or stale (failing it, conditional on its cursor not having moved), else 409 `import_in_progress`
 * naming it.
 */
async function takeOverStale(projectId: string, runningId: string, lock: Item): Promise<WriteAction[]> {
  const running = await getItem<ImportItem>(keys.contactImport(projectId, runningId));
  const replace = update(
    keys.contactImportRunning(projectId),
    {
      set: { import_id: lock.import_id, taken_at: lock.taken_at },
      condition: { expression: 'import_id = :old', values: { ':old': runningId } },
    },
    { tag: 'running moved' },
  );
  if (!running || running.status === 'completed' || running.status === 'failed') return [replace];
  const since = running.moved_at ?? running.created_at;
  const stale =
    clockNow() - Date.parse(since) >
    (running.status === 'queued' ? STALE_QUEUED_SECONDS : STALE_RUNNING_SECONDS) * 1000;
  if (!stale) {
    const message = `the project's import ${runningId} is ${running.status === 'queued' ? 'queued' : 'in progress'}: a project runs one import at a time; create this one once it has completed or failed`;
    throw conflict('import_in_progress', message);
  }
  const reason = `the import stopped: nothing moved since ${since} (its worker failed), so the project's next import took its place`;
  return [
    replace,
    update(
      keys.contactImport(projectId, runningId),
      { set: { status: 'failed', failure_reason: reason, completed_at: nowIso() }, condition: atCursor(running) },
      { tag: 'running moved' },
    ),
  ];
}

export async function getImport(caller: Caller, importId: string): Promise<ContactImport> {
  const item = await getItem<ImportItem>(keys.contactImport(caller.projectId, importId));
  if (!item) throw notFound('Contact import', 'import_id');
  return toImport(item);
}

/** GET /contacts/imports: newest first; `status` as a filter of the Query. */
export async function listImports(
  caller: Caller,
  page: PageRequest & { status?: ImportStatus },
): Promise<Page<ContactImport>> {
  const filter = page.status
    ? { expression: '#status = :status', names: { '#status': 'status' }, values: { ':status': page.status } }
    : undefined;
  const { items, hasMore } = await queryPage<ImportItem>(keys.contactImports(caller.projectId), page, filter);
  return { items: items.map(toImport), hasMore };
}

// The worker

/** A row as a contact's fields, or why it is not one. */
type RowResult =
  | { row: number; email: string; lower: string; fields: RowFields; bytes: number }
  | { row: number; failure: ImportFailure };
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
  return TRUE.has(lower)
    ? true
    : FALSE.has(lower)
      ? false
      : new Error(`"${cell.slice(0, 40)}" is not a boolean (true/false, 1/0, yes/no)`);
}

/** One data row (1-based, the header not counted) checked as POST /contacts checks a body. */
function readRow(
  cells: string[],
  row: number,
  indexOf: Map<string, number>,
  record: ImportItem,
  schema: PropertySchema,
): RowResult {
  const cell = (column: string | undefined) => (column === undefined ? '' : (cells[indexOf.get(column) ?? -1] ?? ''));
  const email = cell(record.column_map.email).trim();
  const fail = (reason: string): RowResult => ({
    row,
    failure: { row, email: email.slice(0, 320) || null, reason: reason.slice(0, 500) },
  });
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
  if (!checked.success)
    return fail(checked.error.issues.map((i) => `${i.path.join('.') || 'row'}: ${i.message}`).join('; '));
  try {
    checkPropertyValues(schema, fields.properties);
  } catch (error) {
    return fail((error as Error).message);
  }
  const { email: address, first_name, last_name } = checked.data; // trimmed, as POST /contacts keeps them
  return {
    row,
    email: address,
    lower: address.toLowerCase(),
    fields: { ...fields, first_name: first_name ?? undefined, last_name: last_name ?? undefined },
    bytes,
  };
}

/** Rows of the file, one at a time, with the one that ended a page given back for the next. */
class RowReader {
  private held: CsvRow | undefined;
  constructor(private readonly rows: AsyncIterator<CsvRow>) {}
  async next(): Promise<CsvRow | undefined> {
    const row = this.held ?? (await this.rows.next()).value ?? undefined;
    this.held = undefined;
    return row;
  }
  giveBack(row: CsvRow): void {
    this.held = row;
  }
}

/** A page (step 3): its first row's index (0-based), its rows checked, its addresses, and the byte just past its last row. */
interface ImportPage {
  start: number;
  rows: RowResult[];
  addresses: Set<string>;
  end: number;
}

/**
 * The page from `start`: rows within the action and byte budgets, no address twice. Its bounds come
 * from the cells alone (the email cell as written, every row's bytes), not from which rows turn out
 * valid: the same page, under the same marker, whatever the property schema says on a later run.
 */
async function readPage(
  reader: RowReader,
  start: number,
  indexOf: Map<string, number>,
  record: ImportItem,
  schema: PropertySchema,
): Promise<ImportPage> {
  const segments = record.segment_ids.length;
  const topics = Object.keys(record.topics).length;
  // marker + count + segment and topic checks, then per row at most 3 + its memberships: a new contact, its claim and
  // `contact.created`; or an update, `contact.updated` and (with topics) `contact.topics.updated`
  const rowsByActions = Math.floor((MAX_TRANSACTION_ACTIONS - 2 - segments - topics) / (3 + segments));
  const limit = Math.max(1, Math.min(PAGE_ROWS, rowsByActions));
  const page: ImportPage = { start, rows: [], addresses: new Set(), end: 0 };
  const emailColumn = indexOf.get(record.column_map.email) ?? -1;
  let bytes = 0;
  while (page.rows.length < limit) {
    const row = await reader.next();
    if (!row) break;
    const address = (row.cells[emailColumn] ?? '').trim().toLowerCase();
    const rowBytes = row.cells.reduce((sum, c) => sum + Buffer.byteLength(c), 0);
    // the contact, its event (twice with topics) and the record: about 4 times the row; a row over the limit writes nothing
    const weight = rowBytes > MAX_IMPORT_ROW_BYTES ? 0 : 4 * rowBytes + 4096;
    if (page.rows.length > 0 && (page.addresses.has(address) || bytes + weight > PAGE_BYTES)) {
      reader.giveBack(row);
      break;
    }
    page.addresses.add(address);
    bytes += weight;
    page.rows.push(readRow(row.cells, start + page.rows.length + 1, indexOf, record, schema));
    page.end = row.end;
  }
  return page;
}

interface PageOutcome {
  actions: WriteAction[];
  created: number;
  updated: number;
  skipped: number;
  failures: ImportFailure[];
  /** addresses the page found claimed */
  claimed: number;
}

/** The page's writes, from its claims and contacts as read now; with `readClaims` false, every address taken for new (step 4). */
async function buildPage(record: ImportItem, page: RowResult[], readClaims: boolean): Promise<PageOutcome> {
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

type PageCounts = Pick<PageOutcome, 'created' | 'updated' | 'skipped' | 'failures'>;

/** Whether the pages being written should read their claims first (step 4): yes until a page finds none claimed. */
interface ClaimsHint {
  read: boolean;
}

/**
 * Writes one page (step 5) with its marker, or finds it written: either way answers its counts.
 * Throws a failed condition tagged `segment gone` / `topic gone` when one of the import's went.
 */
async function writePage(record: ImportItem, page: ImportPage, hint: ClaimsHint): Promise<PageCounts> {
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
interface Landed extends PageCounts {
  rows: number;
  end: number;
  pages: number;
  failed: number;
}

/** An import stops with a `failure_reason`. */
class ImportFailed extends Error {}

/** Why the import fails for `error`, or undefined when the error is not the import's (the message comes back). */
function failureReason(error: unknown): string | undefined {
  if (error instanceof ImportFailed || error instanceof InvalidCsv) return error.message;
  if (error instanceof ObjectStoreError && error.code === 'PreconditionFailed')
    return 'the file was uploaded again after the import was created';
  if (isConditionFailed(error, 'segment gone') || isConditionFailed(error, 'topic gone'))
    return `a ${error.tag.split(' ')[0]} of the import was deleted during it`;
  return undefined;
}

/** The cursor's condition: still where this run last saw it. */
const atCursor = (record: ImportItem) => ({
  expression: '#processed = :cursor',
  names: { '#processed': 'processed' },
  values: { ':cursor': record.processed },
});

/** Moves the record's cursor past `landed` with its counts (step 6), `completed` at the end of the file; answers the record as it is now. */
async function moveCursor(record: ImportItem, landed: Landed, ended: boolean): Promise<ImportItem> {
  const next: ImportItem = {
    ...record,
    processed: record.processed + landed.rows,
    offset: landed.end,
    created: record.created + landed.created,
    updated: record.updated + landed.updated,
    skipped: record.skipped + landed.skipped,
    failed: record.failed + landed.failed,
    failures: [...record.failures, ...landed.failures].slice(0, MAX_REPORTED_FAILURES),
  };
  if (ended) Object.assign(next, { status: 'completed', completed_at: nowIso() });
  next.moved_at = nowIso();
  const set: Item = {
    moved_at: next.moved_at,
    processed: next.processed,
    offset: next.offset,
    created: next.created,
    updated: next.updated,
    skipped: next.skipped,
    failed: next.failed,
    status: next.status,
    completed_at: next.completed_at,
  };
  if (landed.failures.length && record.failures.length < MAX_REPORTED_FAILURES) set.failures = next.failures;
  await transact([
    update(keys.contactImport(record.project_id, record.id), { set, condition: atCursor(record) }, { tag: 'moved' }),
    ...(ended ? release(record) : []),
  ]);
  return next;
}

/** The import's end lets the project's next import in: the running-import item deleted, if still this import's (a stale one's was taken over). */
const release = (record: ImportItem): WriteAction[] =>
  record.running_lock
    ? [
        del(keys.contactImportRunning(record.project_id), {
          ifUnchanged: { expected: { import_id: record.id }, onChanged: { tag: 'taken over' } },
        }),
      ]
    : [];

async function finish(record: ImportItem, status: 'failed' | 'completed', reason: string | null): Promise<void> {
  const end = update(
    keys.contactImport(record.project_id, record.id),
    { set: { status, failure_reason: reason, completed_at: nowIso() }, condition: atCursor(record) },
    { tag: 'moved' },
  );
  try {
    await transact([end, ...release(record)]);
  } catch (error) {
    if (isConditionFailed(error, 'moved')) return;
    if (!isConditionFailed(error, 'taken over')) throw error;
    await updateItem(end).catch((again) => {
      if (!isConditionFailed(again, 'moved')) throw again;
    });
  }
}

/** Step 2: the whole file read once; the record `in_progress` with its total and the byte its cursor is at. */
async function start(record: ImportItem): Promise<ImportItem> {
  const stream = await getObjectStream(record.file_key, 'content', { ifMatch: record.file_etag ?? undefined });
  if (!stream) throw new ImportFailed('the file is gone');
  const file = await scanCsv(stream, record.processed); // processed > 0: an import begun before byte offsets were kept
  const indexOf = new Map<string, number>();
  for (const [i, name] of file.header.entries()) if (!indexOf.has(name)) indexOf.set(name, i); // a repeated column name: its first column
  const missing = mappedColumns(record.column_map).find(([, name]) => !indexOf.has(name));
  if (missing) throw new ImportFailed(`the file's header has no column "${missing[1]}"`);
  const set = {
    status: 'in_progress' as const,
    moved_at: nowIso(),
    total: file.rows,
    offset: file.resumeOffset,
    record_delimiter: file.delimiter,
    column_indexes: Object.fromEntries(mappedColumns(record.column_map).map(([, name]) => [name, indexOf.get(name)!])),
  };
  try {
    await updateItem(
      update(
        keys.contactImport(record.project_id, record.id),
        {
          set,
          condition: {
            expression: 'attribute_not_exists(#offset) AND #processed = :cursor',
            names: { '#offset': 'offset', '#processed': 'processed' },
            values: { ':cursor': record.processed },
          },
        },
        { tag: 'started' },
      ),
    );
  } catch (error) {
    if (!isConditionFailed(error, 'started')) throw error; // another delivery started it, from the same file: the cursor decides later
  }
  return { ...record, ...set };
}

/** What a run of the worker did with a message. */
export type RunOutcome = 'done' | 'continue' | 'stopped';

/**
 * One message's work (the module comment's steps): until the import is done, `deadline` (epoch ms)
 * comes near (`continue`: the caller re-sends the message), or another delivery moved the cursor (`stopped`).
 */
export async function runImport(message: ImportMessage, deadline: number): Promise<RunOutcome> {
  const run = { record: await getItem<ImportItem>(keys.contactImport(message.project_id, message.import_id)) };
  if (!run.record || run.record.status === 'completed' || run.record.status === 'failed') return 'done';
  try {
    if (run.record.offset === undefined) run.record = await start(run.record);
    if (run.record.processed >= run.record.total) {
      await finish(run.record, 'completed', null);
      return 'done';
    }
    return await writePages(run as { record: ImportItem }, deadline);
  } catch (error) {
    if (isConditionFailed(error, 'moved')) return 'stopped';
    const reason = failureReason(error);
    if (reason === undefined) throw error;
    await finish(run.record, 'failed', reason.slice(0, 500));
    return 'done';
  }
}

/** Steps 3 to 7, from the record's cursor; `run.record` follows the cursor as it moves. */
async function writePages(run: { record: ImportItem }, deadline: number): Promise<RunOutcome> {
  const record = run.record;
  const stream = await getObjectStream(record.file_key, 'content', {
    from: record.offset,
    ifMatch: record.file_etag ?? undefined,
  });
  if (!stream) throw new ImportFailed('the file is gone');
  const rows = csvRows(stream, record.offset!, record.record_delimiter!);
  const reader = new RowReader(rows);
  const indexOf = new Map(Object.entries(record.column_indexes ?? {}));
  const schema = await readPropertySchema(record.project_id);
  const hint: ClaimsHint = { read: true };
  const inFlight: { page: ImportPage; written: Promise<PageCounts | { error: unknown }> }[] = [];
  const none = { rows: 0, pages: 0, created: 0, updated: 0, skipped: 0, failed: 0, failures: [] };
  let landed: Landed = { ...none, end: record.offset! };
  /** The oldest page in flight has landed: its counts join those since the cursor last moved, which moves every PROGRESS_PAGES pages. */
  const land = async () => {
    const { page, written } = inFlight.shift()!;
    const counts = await written;
    if ('error' in counts) throw counts.error;
    landed = {
      rows: landed.rows + page.rows.length,
      end: page.end,
      pages: landed.pages + 1,
      created: landed.created + counts.created,
      updated: landed.updated + counts.updated,
      skipped: landed.skipped + counts.skipped,
      failed: landed.failed + counts.failures.length,
      failures: [...landed.failures, ...counts.failures].slice(0, MAX_REPORTED_FAILURES),
    };
    if (landed.pages >= PROGRESS_PAGES) {
      run.record = await moveCursor(run.record, landed, false);
      landed = { ...none, end: landed.end };
    }
  };
  try {
    let next = record.processed;
    let outcome: RunOutcome = 'done';
    for (;;) {
      // machine time: `deadline` is the worker's remaining time
      if (Date.now() > deadline - CONTINUE_MARGIN_MS) {
        outcome = 'continue';
        break;
      }
      const page = await readPage(reader, next, indexOf, record, schema);
      if (page.rows.length === 0) break;
      // an address of a page in flight: that page first, so the file's order decides
      if (inFlight.some((f) => [...page.addresses].some((a) => f.page.addresses.has(a))))
        while (inFlight.length) await land();
      while (inFlight.length >= PAGES_IN_FLIGHT) await land();
      inFlight.push({ page, written: writePage(record, page, hint).catch((error: unknown) => ({ error })) });
      next += page.rows.length;
    }
    while (inFlight.length) await land();
    if (landed.rows > 0 || outcome === 'done') run.record = await moveCursor(run.record, landed, outcome === 'done');
    return outcome;
  } finally {
    await Promise.all(inFlight.map((f) => f.written)); // no write left running when the run ends, however it ends
    await rows.return(undefined);
  }
}
