import type { Context } from 'aws-lambda';

/** Stop starting new work this long before a scheduled function's timeout (a page or a check takes well under it). */
const SAFETY_MS = 5_000;

/**
 * When a scheduled run stops starting new work: epoch ms of the machine's clock (the function's
 * remaining time, not the service's calendar), SAFETY_MS before its timeout; 30 s from now when run
 * without a Lambda context (a test calling the handler).
 */
export const scheduledDeadline = (context?: Pick<Context, 'getRemainingTimeInMillis'>): number =>
  Date.now() + (context?.getRemainingTimeInMillis?.() ?? 30_000) - SAFETY_MS;
