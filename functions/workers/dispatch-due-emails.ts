import { dispatchDueEmails } from '#shared/emails/due';
import { logger } from '#shared/platform/log';

/** Scheduled: enqueues scheduled emails whose time has come and emails whose enqueue was lost. */
export const handler = async (): Promise<{ enqueued: number }> => {
  const enqueued = await dispatchDueEmails();
  if (enqueued > 0) logger.info('due emails enqueued', { enqueued });
  return { enqueued };
};
