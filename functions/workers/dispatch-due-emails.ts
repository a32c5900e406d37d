import type { Context } from 'aws-lambda';
import { dispatchDueEmails } from '#shared/emails/due';
import { logger } from '#shared/platform/log';
import { nowDate } from '#shared/platform/clock';

/** Stop reading new pages this long before the function's timeout (a page's leases and enqueue take well under it). */
const SAFETY_MS = 5_000;

/** Scheduled: enqueues scheduled emails whose time has come and emails whose enqueue was lost, page by page until its time is up. */
export const handler = async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 30_000;
  const run = await dispatchDueEmails(nowDate(), { deadline: Date.now() + remaining - SAFETY_MS });
  if (run.enqueued > 0) logger.info('due emails enqueued', { ...run });
  return run;
};
