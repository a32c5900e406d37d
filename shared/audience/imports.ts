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
  checkExists,
  del,
  getItem,
  isConditionFailed,
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
import { getObjectStream, ObjectStoreError } from '../platform/aws/s3';
import { queue } from '../platform/aws/queues';
import { conflict, notFound, unprocessable } from '../platform/errors';
import { nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { contactLimitReached, contactRoom } from '../project/contact-count';
import { readPropertySchema } from './contact-properties';
import { csvRows, InvalidCsv, scanCsv } from './csv-rows';
import { segmentRefId } from './model';
import { MAX_REPORTED_FAILURES, type ContactImport, type CreateImportInput, type ImportStatus } from './imports-model';
import {
  type ImportItem,
  STALE_RUNNING_SECONDS,
  STALE_QUEUED_SECONDS,
  toImport,
  fileKey,
  invalid,
} from './import-item';
import { resolveColumns, mappedColumns, inlineFile, uploadedFile } from './import-file';
import { RowReader, type ImportPage, readPage } from './import-rows';
import { type PageCounts, type ClaimsHint, writePage } from './import-pages';

/** Stop this long before the function's timeout, between pages: a page takes well under a second, its retries a few. */
export const CONTINUE_MARGIN_MS = 20_000;
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

export interface ImportMessage {
  project_id: string;
  import_id: string;
}
/** `enqueue` throws when SQS does not take the message: the request answers 500, a worker's message comes back. */
export const importQueue = /* @__PURE__ */ queue<ImportMessage>('contact-imports', 'throw');

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
