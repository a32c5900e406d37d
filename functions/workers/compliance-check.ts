import type { Context } from 'aws-lambda';
import { checkDueCompliance } from '#shared/deliverability/compliance';
import { logger } from '#shared/platform/log';
import { scheduledDeadline } from './schedule-deadline';

/**
 * Scheduled: checks every domain whose compliance check is due, as GET /domains/{id}/compliance
 * does, emitting `domain.compliance_changed` when a rule's status changed since the last check.
 */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ checked: number; changed: number }> => {
  const result = await checkDueCompliance(scheduledDeadline(context));
  if (result.checked > 0) logger.info('domain compliance checked', result);
  return result;
};
