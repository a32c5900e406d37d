import { testSendQueue } from '#shared/emails/send-queue';
import { sendWorker } from './send-worker';

/** Test mode's send queue's consumer (both lanes; simulated, never SES): ./send-worker.ts. */
export const handler = sendWorker(testSendQueue, 'transactional');
