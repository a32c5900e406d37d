import type { SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processSqsBatch } from '#shared/platform/aws/batch';
import { runStep } from '#shared/automations/engine';
import type { StepMessage } from '#shared/automations/step-queue';

/**
 * The automation step queue's consumer: one step of one run per message (shared/automations/engine.ts
 * `runStep`: a step runs once, however often its message comes). A message that fails comes back
 * without the rest of its batch; after 5 receives it is kept in the DLQ.
 */
export const handler = (event: SQSEvent) =>
  processSqsBatch(event, (record) => runStep(JSON.parse(record.body) as StepMessage), {
    onError: (error, record) => logger.error('automation step failed', { message_id: record.messageId, error }),
  });
