import { bulkSendQueue } from '#shared/emails/send-queue';
import { sendWorker } from './send-worker';

/** The bulk send queue's consumer (broadcast emails): ./send-worker.ts. */
export const handler = sendWorker(bulkSendQueue, 'bulk');
