/**
 * Accepting an import's file (./imports.ts, steps 1 and 2): the file of the request, or an upload
 * (`createUpload`: the presigned PUT), read as UTF-8 with its header row and the column map checked.
 */
import type { Caller } from '../platform/caller';
import { getObjectStream, headObject, presignPut, putObject } from '../platform/aws/s3';
import { newId } from '../platform/ids';
import { headerOf } from './csv-rows';
import {
  MAX_HEADER_BYTES,
  MAX_IMPORT_FILE_BYTES,
  type ColumnMap,
  type CreatedUpload,
  type CreateUploadInput,
  UPLOAD_URL_TTL_SECONDS,
} from './imports-model';
import { type ImportItem, fileKey, invalid } from './import-item';

/** The text of `bytes`: UTF-8 or nothing (`fatal`). `partial`: the first bytes of a file, whose last character may be cut. */
export function decode(bytes: Uint8Array, partial = false): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: partial });
  } catch {
    return undefined;
  }
}

/** The column map with its defaults: the columns named like the fields, when the map does not name them. */
export function resolveColumns(given: ColumnMap | undefined, header: string[]): ImportItem['column_map'] {
  const defaults = Object.fromEntries(
    ['email', 'first_name', 'last_name', 'unsubscribed']
      .filter((name) => header.includes(name))
      .map((name) => [name, name]),
  );
  return { ...defaults, ...given, email: given?.email ?? 'email' };
}

/** Each column the map names, with the field that names it (`column_map.first_name`). */
export const mappedColumns = (columns: ImportItem['column_map']): [string, string][] => [
  ...(['email', 'first_name', 'last_name', 'unsubscribed'] as const).flatMap((field): [string, string][] =>
    columns[field] ? [[`column_map.${field}`, columns[field]]] : [],
  ),
  ...Object.entries(columns.properties ?? {}).map(([key, p]): [string, string] => [
    `column_map.properties.${key}.column`,
    p.column,
  ]),
];

/** The header of the file a request brings or names, checked (accepting, step 1). */
export interface AcceptedFile {
  importId: string;
  header: string[];
  etag: string | null;
  /** puts a file of the request in the bucket */
  store?: () => Promise<void>;
}

export function inlineFile(projectId: string, file: string): AcceptedFile {
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

export function checkedHeader(text: string, path: 'file' | 'upload_id'): ReturnType<typeof headerOf> {
  try {
    return headerOf(text);
  } catch (error) {
    throw invalid(path, 'invalid_csv', `the header row is not CSV: ${(error as Error).message}`);
  }
}

export async function uploadedFile(projectId: string, uploadId: string): Promise<AcceptedFile> {
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
