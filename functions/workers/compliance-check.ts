import type { Context } from 'aws-lambda';
import { checkDueCompliance } from '#shared/deliverability/compliance';
import { logger } from '#shared/platform/log';

/** Stop starting new checks this long before the function's timeout. */
const SAFETY_MS = 5_000;

/**
 * Scheduled: checks every domain whose compliance check is due, as GET /domains/{id}/compliance
 * does, emitting `domain.compliance_changed` when a rule's status changed since the last check.
 */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ checked: number; changed: number }> => {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 30_000;
  const result = await checkDueCompliance(Date.now() + remaining - SAFETY_MS);
  if (result.checked > 0) logger.info('domain compliance checked', result);
  return result;
};
