import type { Context } from 'aws-lambda';
import { dispatchDueBroadcasts } from '#shared/broadcasts/due';
import { logger } from '#shared/platform/log';
import { scheduledDeadline } from './schedule-deadline';
import { nowDate } from '#shared/platform/clock';

/** Scheduled: starts scheduled broadcasts whose time has come and resumes fan-outs whose message was lost. */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ enqueued: number }> => {
  const enqueued = await dispatchDueBroadcasts(nowDate(), { deadline: scheduledDeadline(context) });
  if (enqueued > 0) logger.info('broadcast fan-outs enqueued', { enqueued });
  return { enqueued };
};
