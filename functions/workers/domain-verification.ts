import type { Context } from 'aws-lambda';
import { checkUnsettledDomains } from '#shared/domains/domains';
import { logger } from '#shared/platform/log';

/** Stop starting new checks this long before the function's timeout. */
const SAFETY_MS = 5_000;

/**
 * Scheduled: re-reads from SES every domain it is still verifying (not_started, pending,
 * temporary_failure) and stores the new status, emitting `domain.verified` or
 * `domain.verification_failed` on a change, exactly as POST /domains/{id}/verify does.
 */
export const handler = async (
  _event?: unknown,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<{ checked: number; changed: number }> => {
  const remaining = context?.getRemainingTimeInMillis?.() ?? 30_000;
  const result = await checkUnsettledDomains(Date.now() + remaining - SAFETY_MS);
  if (result.changed > 0) logger.info('domain statuses changed', result);
  return result;
};
