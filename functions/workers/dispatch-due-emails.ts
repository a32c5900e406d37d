import type { Context } from 'aws-lambda';
import { dispatchDueEmails } from '#shared/emails/due';
import { logger } from '#shared/platform/log';
import { scheduledDeadline } from './schedule-deadline';
import { nowDate } from '#shared/platform/clock';

/** Scheduled: enqueues scheduled emails whose time has come and emails whose enqueue was lost, page by page until its time is up. */
export const handler = async (_event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => {
  const run = await dispatchDueEmails(nowDate(), { deadline: scheduledDeadline(context) });
  if (run.enqueued > 0) logger.info('due emails enqueued', { ...run });
  return run;
};
