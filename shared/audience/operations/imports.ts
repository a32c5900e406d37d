import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { commonErrors, conflictResponse, id, listOf, listQuery, notFoundResponse } from '../../platform/http/schemas';
import {
  contactImport,
  createdImport,
  createdUpload,
  createImportBody,
  createUploadBody,
  IMPORT_STATUSES,
  MAX_HEADER_BYTES,
  MAX_IMPORT_FILE_BYTES,
  MAX_IMPORT_ROW_BYTES,
  MAX_REPORTED_FAILURES,
  UPLOAD_URL_TTL_SECONDS,
} from '../imports-model';

export const create = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createContactImport',
    summary: 'Import contacts from a CSV file',
    description:
      'A multipart/form-data body, as the Resend SDK sends it: `file` (CSV, UTF-8, a header row; at most the 5 MB of a request), ' +
      "or instead of `file` an `upload_id` from POST /contacts/imports/uploads whose URL the file was PUT to (a larger file; the import takes the upload's id, " +
      'and an upload makes one import: a second is 409 `upload_used`). An upload is checked here as far as the request reads it: it must be there ' +
      `(else 422 \`unknown_upload\`), at most ${MAX_IMPORT_FILE_BYTES} bytes, and its header row UTF-8 CSV ending within its first ${MAX_HEADER_BYTES} bytes; ` +
      'the rest of it is checked by the worker, which fails the import with a `failure_reason` (not UTF-8, not CSV, uploaded again meanwhile) instead. ' +
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
    responses: {
      201: { description: 'The import, queued', schema: createdImport },
      ...commonErrors,
      409: {
        ...conflictResponse,
        description:
          'An import was already created from this upload (`upload_used`), or the project has an import queued or in progress (`import_in_progress`, its id in the message): a project runs one import at a time; ' +
          'or the project holds its contact limit (`contact_limit_reached`; a row that would create a contact past it is counted `failed`)',
      },
    },
  }))();

export const createUpload = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createContactImportUpload',
    summary: 'Get a URL to upload a CSV file too large for a request',
    description:
      `\`size\`: the file's size in bytes, 1 to ${MAX_IMPORT_FILE_BYTES}. Answers a presigned S3 URL (\`upload_url\`, valid ${UPLOAD_URL_TTL_SECONDS / 60} minutes) to PUT that file ` +
      'to, with the `headers` given (no Authorization header: the URL carries its signature). Its Content-Length is signed: S3 refuses (403) a body of any other size, ' +
      'so the size is bounded when the URL is made (a PUT could otherwise be 5 GB). Then POST /contacts/imports with `upload_id` set to this `id` ' +
      'instead of `file`, and the other fields as for a file. ' +
      "An upload no import used is deleted by the content bucket's lifecycle rule a day after it was made.",
    tags: ['Contacts'],
    auth: 'api_key',
    body: createUploadBody,
    responses: { 201: { description: 'Where and how to PUT the file', schema: createdUpload }, ...commonErrors },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listContactImports',
    summary: 'List contact imports, newest first',
    description: '`status` keeps only the imports in that status.',
    tags: ['Contacts'],
    auth: 'api_key',
    query: z.extend(listQuery, { status: z.optional(z.enum(IMPORT_STATUSES)) }),
    responses: { 200: { description: 'A page of imports', schema: listOf(contactImport) }, ...commonErrors },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getContactImport',
    summary: 'Get a contact import and its progress',
    tags: ['Contacts'],
    auth: 'api_key',
    params: z.strictObject({ import_id: id }),
    responses: { 200: { description: 'The import', schema: contactImport }, ...commonErrors, 404: notFoundResponse },
  }))();
