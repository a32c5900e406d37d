/**
 * Reading an import's rows (the worker, ./imports.ts): a page of the file from the cursor, each row
 * as a contact's fields or the reason it is not one.
 */
import { MAX_TRANSACTION_ACTIONS } from '../platform/db/table';
import { checkPropertyValues, type PropertySchema } from './contact-properties';
import type { CsvRow } from './csv-rows';
import { createContactBody, type PropertyValue } from './model';
import { MAX_IMPORT_ROW_BYTES, type ImportFailure } from './imports-model';
import type { ImportItem } from './import-item';

/** Contacts per page at most: 32 new contacts with no segment are 32 x 3 + 2 = 98 actions. */
export const PAGE_ROWS = 32;
/** Bytes of items a page's transaction may carry: DynamoDB's 4 MB less room for the record and keys. */
export const PAGE_BYTES = 3.5 * 1024 * 1024;

export type RowResult =
  | { row: number; email: string; lower: string; fields: RowFields; bytes: number }
  | { row: number; failure: ImportFailure };
export interface RowFields {
  first_name?: string;
  last_name?: string;
  unsubscribed?: boolean;
  properties: Record<string, PropertyValue>;
}

export const TRUE = new Set(['true', '1', 'yes', 'y']);
export const FALSE = new Set(['false', '0', 'no', 'n']);

/** A cell as the property's type; undefined for an empty cell (the row says nothing of it). */
export function typed(cell: string, type: 'string' | 'number' | 'boolean'): PropertyValue | undefined | Error {
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
export function readRow(
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
export class RowReader {
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
export interface ImportPage {
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
export async function readPage(
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
