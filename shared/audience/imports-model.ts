/**
 * Contact imports as the API shows them and as POST /contacts/imports takes them: the Resend SDK's
 * `contacts.imports.*` (a multipart form: `file`, and `column_map`, `on_conflict`, `segments`,
 * `topics` as JSON or plain text fields), or instead of `file` the `upload_id` of a file PUT to the
 * URL POST /contacts/imports/uploads answered (a file larger than a request). Beside ./model.ts so
 * that file stays the contacts'.
 */
import * as z from 'zod/mini';
import { MAX_BODY_BYTES } from '../platform/http/pipeline';
import { id, timestamp } from '../platform/http/schemas';
import { MAX_PROPERTIES, MAX_SEGMENTS_PER_CONTACT, MAX_TOPICS_PER_REQUEST, PROPERTY_KEY, SUBSCRIPTIONS } from './model';

/** The SDK's statuses: queued (accepted, not started), in_progress (the worker has read the file), completed, failed (`failure_reason`). */
export const IMPORT_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const ON_CONFLICT = ['upsert', 'skip'] as const;
export type OnConflict = (typeof ON_CONFLICT)[number];
export const PROPERTY_TYPES = ['string', 'number', 'boolean'] as const;

/** A row longer than this fails (its contact and event could not be written together anyway: 50 properties of 2,000 characters is about 100 KB). */
export const MAX_IMPORT_ROW_BYTES = 128 * 1024;
/** Rows whose failure is kept with its reason (all are counted in `failed`). */
export const MAX_REPORTED_FAILURES = 100;
/**
 * An uploaded file's size at most: about 2 million rows of a few columns. The worker reads it as a
 * stream (shared/audience/csv-rows.ts), so its memory does not grow with the file; the bound keeps a
 * file's first pass (every byte checked, rows counted: about 10 s per 100 MB here, in a 96 MB heap) and the import's time sane.
 */
export const MAX_IMPORT_FILE_BYTES = 100 * 1024 * 1024;
/** How long an upload URL works: long enough to start a large upload, short enough that a leaked URL soon stops working. */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
/** The header row of an uploaded file must end within its first bytes: the request reads no more of the file. */
export const MAX_HEADER_BYTES = 64 * 1024;

/** A text field holding JSON, read as JSON first: a field that is not JSON is 422 naming it. */
const json = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(
    z.pipe(
      z.string(),
      z.transform((text, ctx) => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          ctx.issues.push({ code: 'custom', message: 'must be JSON', input: text });
          return z.NEVER;
        }
      }),
    ),
    schema,
  );

const column = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(256)))();
export const columnMap = /* @__PURE__ */ (() =>
  z.strictObject({
    email: z.optional(column),
    first_name: z.optional(column),
    last_name: z.optional(column),
    unsubscribed: z.optional(column),
    properties: z.optional(
      z
        .record(
          z
            .string()
            .check(z.regex(PROPERTY_KEY, 'property names are 1-64 letters, digits or _, not starting with a digit')),
          z.strictObject({ column, type: z.optional(z.enum(PROPERTY_TYPES)) }),
        )
        .check(z.refine((p) => Object.keys(p).length <= MAX_PROPERTIES, `at most ${MAX_PROPERTIES} properties`)),
    ),
  }))();
export type ColumnMap = z.output<typeof columnMap>;

/** The file's bytes as the multipart reader gives them (a latin1 string, one character per byte: shared/platform/http/multipart.ts). */
const file = /* @__PURE__ */ (() =>
  z.string().check(z.minLength(1, 'the file is empty'), z.maxLength(MAX_BODY_BYTES)))();

export const createImportBody = /* @__PURE__ */ (() =>
  z.strictObject({
    // one of the two (./imports.ts says which is missing)
    file: z.optional(file),
    upload_id: z.optional(id),
    column_map: z.optional(json(columnMap)),
    on_conflict: z.optional(z.enum(ON_CONFLICT)),
    segments: z.optional(
      json(z.array(z.union([id, z.strictObject({ id })])).check(z.maxLength(MAX_SEGMENTS_PER_CONTACT))),
    ),
    topics: z.optional(
      json(
        z.array(z.strictObject({ id, subscription: z.enum(SUBSCRIPTIONS) })).check(z.maxLength(MAX_TOPICS_PER_REQUEST)),
      ),
    ),
  }))();
export type CreateImportInput = z.output<typeof createImportBody>;

export const importFailure = /* @__PURE__ */ (() =>
  z.object({ row: z.number(), email: z.nullable(z.string()), reason: z.string() }))();
export type ImportFailure = z.output<typeof importFailure>;

export const contactImport = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('contact_import'),
    id,
    status: z.enum(IMPORT_STATUSES),
    created_at: timestamp,
    completed_at: z.nullable(timestamp),
    counts: z.object({
      total: z.number(),
      created: z.number(),
      updated: z.number(),
      skipped: z.number(),
      failed: z.number(),
    }),
    // additive: how far the worker is, the first failed rows, and why a failed import failed
    processed: z.number(),
    failures: z.array(importFailure),
    failure_reason: z.nullable(z.string()),
  }))();
export type ContactImport = z.output<typeof contactImport>;

export const createdImport = /* @__PURE__ */ (() => z.object({ object: z.literal('contact_import'), id }))();

/** POST /contacts/imports/uploads: the size of the file to be PUT, signed into the URL (its Content-Length). */
export const createUploadBody = /* @__PURE__ */ (() =>
  z.strictObject({
    size: z
      .int()
      .check(
        z.minimum(1, 'the file is empty'),
        z.maximum(MAX_IMPORT_FILE_BYTES, `at most ${MAX_IMPORT_FILE_BYTES} bytes`),
      ),
  }))();
export type CreateUploadInput = z.output<typeof createUploadBody>;

/** POST /contacts/imports/uploads: where to PUT the file, until when, and how large it may be. */
export const createdUpload = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('upload'),
    id,
    upload_url: z.string(),
    method: z.literal('PUT'),
    headers: z.record(z.string(), z.string()),
    expires_at: timestamp,
    max_bytes: z.number(),
    /** the Content-Length the PUT must carry (signed) */
    size: z.number(),
  }))();
export type CreatedUpload = z.output<typeof createdUpload>;
