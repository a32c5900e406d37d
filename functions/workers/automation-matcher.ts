import type { SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';
import { matchEvent, type AutomationEvent } from '#shared/automations/engine';

/**
 * The automation events queue's consumer: each event of a contact resumes the runs waiting for it,
 * then starts the runs it triggers (shared/automations/engine.ts `matchEvent`, idempotent per event
 * and automation). A message that fails comes back without the rest of its batch.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(event, (record) => matchEvent(JSON.parse(record.body) as AutomationEvent), {
    onError: (error, record) => logger.error('automation event not matched', { message_id: record.messageId, error }),
  });
