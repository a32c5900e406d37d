import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { indexMessages, type IndexMessage } from '#shared/inboxes/search';
import { logger } from '#shared/platform/log';

/**
 * The inbox-index queue: messages filed into inboxes, added to their inbox's search index
 * (shared/inboxes/search.ts). The batch is one unit per inbox: on a failure every message of the
 * batch is reported failed and comes back (adding a message again changes nothing).
 */
export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const messages = event.Records.map((r) => ({ id: r.messageId, body: JSON.parse(r.body) as IndexMessage }));
  try {
    await indexMessages(messages.map((m) => m.body));
    return { batchItemFailures: [] };
  } catch (error) {
    logger.error('inbox index update failed', { error });
    return { batchItemFailures: messages.map((m) => ({ itemIdentifier: m.id })) };
  }
};
