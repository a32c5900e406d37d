/**
 * How a report file's drop is said: the reason and a short detail naming what, for the drop counts
 * and the logs. Shared by the readers of report files, XML and JSON.
 */
import type * as z from 'zod/mini';
import type { Dropped, DropReason } from './model';

export const dropped = (drop: DropReason, detail: string): Dropped => ({ ok: false, drop, detail });

/** `record[3].row.source_ip` */
const pathText = (path: PropertyKey[]) =>
  path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i ? '.' : ''}${String(key)}`)).join('') || 'root';

const shown = (input: unknown) =>
  typeof input === 'string' || typeof input === 'number' ? ` (${JSON.stringify(input).slice(0, 60)})` : '';

/** The first problems zod found (parsed with `reportInput: true`), as `path: message (value)`. */
export function issueDetail(error: z.core.$ZodError, most = 3): string {
  const issues = error.issues
    .slice(0, most)
    .map((issue) => `${pathText(issue.path)}: ${issue.message}${shown(issue.input)}`);
  const more = error.issues.length - most;
  return issues.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

export const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));
