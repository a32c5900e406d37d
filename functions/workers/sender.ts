import { sendQueue } from '#shared/emails/send-queue';
import { sendWorker } from './send-worker';

/** The transactional send queue's consumer (POST /emails, batches, retries): ./send-worker.ts. */
export const handler = sendWorker(sendQueue, 'transactional');
