import type { Context } from 'aws-lambda';
import { dispatchDueBroadcasts } from '#shared/broadcasts/due';
import { logger } from '#shared/platform/log';
import { nowDate } from '#shared/platform/clock';

/** Stop reading new pages this long before the function's timeout. */
const SAFETY_MS = 5_000;

/** Scheduled: starts scheduled broadcasts whose time has come and resumes fan-outs whose message was lost. */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ enqueued: number }> => {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 30_000;
  const enqueued = await dispatchDueBroadcasts(nowDate(), { deadline: Date.now() + remaining - SAFETY_MS });
  if (enqueued > 0) logger.info('broadcast fan-outs enqueued', { enqueued });
  return { enqueued };
};
