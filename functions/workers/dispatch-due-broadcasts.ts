import { dispatchDueBroadcasts } from '#shared/broadcasts/due';
import { logger } from '#shared/platform/log';

/** Scheduled: starts scheduled broadcasts whose time has come and resumes fan-outs whose message was lost. */
export const handler = async (): Promise<{ enqueued: number }> => {
  const enqueued = await dispatchDueBroadcasts();
  if (enqueued > 0) logger.info('broadcast fan-outs enqueued', { enqueued });
  return { enqueued };
};
