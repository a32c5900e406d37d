import type { Context } from 'aws-lambda';
import { checkUnsettledDomains } from '#shared/domains/domains';
import { logger } from '#shared/platform/log';
import { scheduledDeadline } from './schedule-deadline';

/**
 * Scheduled: re-reads from SES every domain it is still verifying (not_started, pending,
 * temporary_failure) and stores the new status, emitting `domain.verified` or
 * `domain.verification_failed` on a change, exactly as POST /domains/{id}/verify does.
 */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ checked: number; changed: number }> => {
  const result = await checkUnsettledDomains(scheduledDeadline(context));
  if (result.changed > 0) logger.info('domain statuses changed', result);
  return result;
};
