/**
 * Which queue an email goes to (shared/emails/send-queue.ts): test mode's emails always to its own
 * lane, whatever their kind, so no live sender ever handles one; live ones by lane; one with `path`
 * attachments still to fetch to the fetch stage first.
 */
import {
  attachmentFetchQueue,
  bulkSendQueue,
  firstQueueOf,
  sendQueue,
  sendQueueOf,
  testSendQueue,
} from '../../shared/emails/send-queue';

it("sends a test twin's emails, transactional and broadcast, through test mode's lane", () => {
  expect(sendQueueOf('p1_test', 'transactional')).toBe(testSendQueue);
  expect(sendQueueOf('p1_test', 'bulk')).toBe(testSendQueue);
  expect(firstQueueOf({ project_id: 'p1_test', broadcast_id: 'b1' })).toBe(testSendQueue);
});

it("sends a live project's emails by lane, and those with attachments to fetch to the fetch stage first", () => {
  expect(firstQueueOf({ project_id: 'p1' })).toBe(sendQueue);
  expect(firstQueueOf({ project_id: 'p1', broadcast_id: 'b1' })).toBe(bulkSendQueue);
  expect(firstQueueOf({ project_id: 'p1', attachments_pending: true })).toBe(attachmentFetchQueue);
  expect(firstQueueOf({ project_id: 'p1_test', attachments_pending: true })).toBe(attachmentFetchQueue);
});
