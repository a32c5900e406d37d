import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import { contactImport, createdImport, createImportBody, IMPORT_STATUSES, MAX_IMPORT_ROW_BYTES, MAX_REPORTED_FAILURES } from '../imports-model';

export const create = defineOperation({
  operationId: 'createContactImport',
  summary: 'Import contacts from a CSV file',
  description:
    'A multipart/form-data body, as the Resend SDK sends it: `file` (CSV, UTF-8, a header row; at most the 5 MB of a request), ' +
    '`column_map` (JSON: `email`, `first_name`, `last_name`, `unsubscribed` name columns, `properties` maps a property key to `{column, type}`; ' +
    'without it the columns named `email`, `first_name`, `last_name`, `unsubscribed` are read), `on_conflict` (`upsert`, the default: an existing ' +
    "address gets the row's non-empty values; `skip`: left as it is), `segments` and `topics` (JSON, given to every imported contact). " +
    'The file is checked (UTF-8, its header names the mapped columns: else 422 naming `file` or the `column_map` field) and stored, and the ' +
    'import is done by a worker: GET /contacts/imports/{id} shows its progress. A row that is not a valid contact is counted in `failed` ' +
    `(the first ${MAX_REPORTED_FAILURES} with their reason in \`failures\`) and the other rows go on; a row over ${MAX_IMPORT_ROW_BYTES / 1024} KiB fails. ` +
    'Values are kept as data: a cell starting with `=`, `+`, `-` or `@` is a string like any other (the service never writes CSV, so there is no spreadsheet to inject into).',
  tags: ['Contacts'],
  auth: 'api_key',
  body: createImportBody,
  bodyFormats: ['multipart'],
  responses: { 201: { description: 'The import, queued', schema: createdImport }, ...commonErrors },
});

export const list = defineOperation({
  operationId: 'listContactImports',
  summary: 'List contact imports, newest first',
  description: '`status` keeps only the imports in that status.',
  tags: ['Contacts'],
  auth: 'api_key',
  query: z.extend(listQuery, { status: z.optional(z.enum(IMPORT_STATUSES)) }),
  responses: { 200: { description: 'A page of imports', schema: listOf(contactImport) }, ...commonErrors },
});

export const get = defineOperation({
  operationId: 'getContactImport',
  summary: 'Get a contact import and its progress',
  tags: ['Contacts'],
  auth: 'api_key',
  params: z.strictObject({ import_id: id }),
  responses: { 200: { description: 'The import', schema: contactImport }, ...commonErrors, 404: notFoundResponse },
});
