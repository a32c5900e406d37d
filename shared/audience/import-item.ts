/**
 * A contact import's record (its item), as the request writes it and the worker moves it, and what
 * the API shows of it; the module comment of ./imports.ts tells the steps.
 */
import type { Item } from '../platform/db/table';
import { unprocessable } from '../platform/errors';
import type { Subscription } from './model';
import type { ColumnMap, ContactImport, ImportFailure, ImportStatus, OnConflict } from './imports-model';

export interface ImportItem extends Item {
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

export const toImport = (item: ImportItem): ContactImport => ({
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

export const fileKey = (projectId: string, importId: string) => `imports/${projectId}/${importId}.csv`;
export const invalid = (path: string, code: string, message: string) => unprocessable([{ code, message, path }]);
