/**
 * Queue, stream and schedule consumers: the second half of the map, beside the route table.
 * The CDK stack will give each its event source mapping; the local runtime feeds each through a
 * poller with Lambda's batch semantics (local/lambda/queue-poller.ts, local/lambda/stream-poller.ts).
 *
 * Every queue consumer is idempotent, reports partial batch failures (`batchItemFailures`) and
 * has a DLQ. Workers arrive with the issues that need them (sending, SES feedback, webhooks).
 */
import { INDEX_MEMORY_MB } from '../shared/inboxes/model';
import { WORKER_TIMEOUT_SECONDS, type Needs } from './needs';
import { functionName } from './routes';

export interface QueueDefinition {
  /** logical name, also the local queue name */
  name: string;
  /** seconds a received message stays invisible; also the delay unit of retries scheduled by the consumer */
  visibilityTimeoutSeconds: number;
  /** receives before SQS moves a message to `<name>-dlq` */
  maxReceiveCount: number;
}

export type Trigger =
  /**
   * `maxConcurrency`: at most this many concurrent invocations (Lambda's SQS maximum concurrency, at
   * least 2). `scaledBySendRate`: batch size and concurrency come from the account's send rate
   * (`senderScaling`), as the stack and the local runtime know it, instead of the numbers here.
   */
  | { kind: 'queue'; queue: string; batchSize: number; maxConcurrency?: number; scaledBySendRate?: true }
  /** `filter` is a Lambda event-filtering pattern over the stream record, applied the same way locally */
  | { kind: 'stream'; batchSize: number; filter?: Record<string, unknown>; maxRetryAttempts: number }
  | { kind: 'schedule'; everySeconds: number };

/**
 * The largest message every queue takes (SQS's MaximumMessageSize, set on AWS and locally, so a
 * message that AWS would refuse is refused here too): 256 KiB, SQS's default.
 */
export const QUEUE_MAX_MESSAGE_BYTES = 256 * 1024;

/** The environment variable that holds a queue's URL, on AWS and locally. */
export const queueUrlVariable = (name: string) => `QUEUE_URL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

export interface Worker {
  name: string;
  handler: string;
  trigger: Trigger;
  /** what the function may do on AWS (functions/needs.ts) besides consuming its own trigger (a queue worker is also given its queue's URL) */
  needs: Needs;
  /** gets PUBLIC_API_URL, the API's base URL, for links it writes into emails */
  publicApiUrl?: boolean;
  /** gets INBOX_FORWARDING_DOMAIN, the domain of the inboxes' forwarding addresses, when the deployment has one */
  forwardingDomain?: boolean;
  /** gets REPORTS_DOMAIN, the domain of the domains' DMARC and TLS report addresses, when the deployment has one */
  reportsDomain?: boolean;
  /** the function's timeout when WORKER_TIMEOUT_SECONDS (30 s) is too short */
  timeoutSeconds?: number;
  /** the function's memory when WORKER_MEMORY_MB (256 MB) is too little (functions/needs.ts `workerMemoryMb`) */
  memoryMb?: number;
}

/** A worker's function name in the stack, and locally in errors and the record of its AWS calls: `sender` -> `SenderWorker`. */
export const workerFunctionName = (name: string): string => `${functionName({ handler: name })}Worker`;

/** A worker's Lambda timeout. */
export const workerTimeoutSeconds = (worker: Pick<Worker, 'timeoutSeconds'>): number =>
  worker.timeoutSeconds ?? WORKER_TIMEOUT_SECONDS;

/** The fetch stage's queue (shared/emails/attachment-fetch.ts). */
export const ATTACHMENT_FETCH_QUEUE = 'attachment-fetch';
/** The fetch worker's timeout: an email's fetches end within 20 s (PATH_FETCH_TIMEOUT_MS), then up to 28 MB is stored. */
export const ATTACHMENT_FETCH_TIMEOUT_SECONDS = 60;

/** The automations' step queue (shared/automations/steps.ts), also the target of their one-time schedules. */
export const AUTOMATION_STEPS_QUEUE = 'automation-steps';

/** The queue the inbound topic feeds (lib/inbound.ts on AWS, local/aws/smtp-inbound.ts locally). */
export const INBOUND_QUEUE = 'inbound';
/** A 40 MB message, its parse (about 3 times its size) and its uploads, with room: and Lambda's CPU grows with memory. */
export const INBOUND_WORKER_MEMORY_MB = 2048;
/** Where SES (and locally the SMTP server) puts raw received messages in the inbound bucket: `raw/<SES message id>`. */
export const INBOUND_RAW_PREFIX = 'raw/';

export const queues: readonly QueueDefinition[] = [
  // One message per email to send, in two lanes (shared/emails/send-queue.ts): transactional mail,
  // and broadcast emails (grouped by project: an SQS fair queue). 30 s covers a batch of 10 sends
  // waiting for rate slots. A message that finds no slot comes back when its turn should be
  // (ChangeMessageVisibility) and a send SES refused is counted in the email (MAX_SEND_ATTEMPTS),
  // so receives are not failures: maxReceiveCount only catches a message no sender can read.
  { name: 'send', visibilityTimeoutSeconds: 30, maxReceiveCount: 100 },
  { name: 'send-bulk', visibilityTimeoutSeconds: 30, maxReceiveCount: 100 },
  // Test mode's emails, both lanes, grouped by project: simulated, never SES (shared/emails/send-queue.ts)
  { name: 'send-test', visibilityTimeoutSeconds: 30, maxReceiveCount: 100 },
  // Emails with `path` attachments, before their send queue: one message per email, grouped by
  // project (an SQS fair queue: shared/emails/send-queue.ts). 60 s: the worker's timeout, which
  // covers an email's fetches (20 s at most) and storing them. 5 receives: a message whose email
  // could not be written; the email's lease brings it back through the dispatcher anyway.
  { name: ATTACHMENT_FETCH_QUEUE, visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
  // SES events (SNS envelopes from the SES events topic): bounces and complaints only ...
  { name: 'ses-suppression', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // ... and every event, for the emails' status.
  { name: 'ses-events', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // One message per webhook delivery to attempt. Retries are the same message made invisible until
  // the attempt is due, and attempts are counted in the delivery record, so maxReceiveCount only
  // has to exceed the 8 scheduled attempts plus faults: 40, as a throttled endpoint's delivery is
  // received twice per attempt (held for its slot, then attempted: shared/webhooks/throttle.ts),
  // and once more per 12 h it waits. 60 s: a batch of 10 POSTs of at most 15 s.
  // Sent grouped by project (an SQS fair queue: shared/webhooks/queue.ts).
  { name: 'webhook-delivery', visibilityTimeoutSeconds: 60, maxReceiveCount: 40 },
  // One message per page of a broadcast's segment still to do (shared/broadcasts/queue.ts). 120 s:
  // a page is a few transactions and BatchGets; a failed page is redone after that.
  { name: 'broadcast-fanout', visibilityTimeoutSeconds: 120, maxReceiveCount: 10 },
  // SES receipt notifications (SNS envelopes from the inbound topic, lib/inbound.ts): one per
  // received message. 120 s: parsing a message of up to 40 MB and storing its attachments.
  { name: INBOUND_QUEUE, visibilityTimeoutSeconds: 120, maxReceiveCount: 5 },
  // One message per contact import (shared/audience/imports.ts), sent again by the worker before its timeout
  // while the file goes on. 150 s: one invocation (120 s) with room; a failed run resumes from the import's cursor.
  { name: 'contact-imports', visibilityTimeoutSeconds: 150, maxReceiveCount: 5 },
  // One message per automation step to run (shared/automations/steps.ts): a run's step, or the step a delay or a
  // wait resumes (SQS DelaySeconds up to 15 minutes, an EventBridge Scheduler one-time schedule beyond). Idempotent
  // per run and step; 30 s covers a batch of 10 steps (a send_email step is one accept, as POST /emails).
  { name: AUTOMATION_STEPS_QUEUE, visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // One message per platform event (and contact) that can start or resume automations, from the outbox's stream
  // consumer (shared/automations/events-forward.ts); the matcher is idempotent per event and automation.
  { name: 'automation-events', visibilityTimeoutSeconds: 30, maxReceiveCount: 5 },
  // One message per message filed into an inbox, from the outbox's stream consumer (shared/inboxes/search.ts): added to
  // its inbox's search index. 60 s: a batch reads its messages' bodies and writes one index object per inbox.
  { name: 'inbox-index', visibilityTimeoutSeconds: 60, maxReceiveCount: 5 },
];

/**
 * A queue's visibility timeout on AWS: at least 6 times its consumer's timeout, as AWS advises for
 * Lambda's SQS event source (a batch whose invocation was throttled and retried must not come back
 * to another invocation meanwhile). The local poller has no such retries and keeps the
 * definition's value, so a failed message comes back as soon in the tests; on AWS it comes back
 * after this (README "Operating" lists both).
 */
export function deployedVisibilityTimeoutSeconds(queue: QueueDefinition): number {
  const consumer = workers.find((w) => w.trigger.kind === 'queue' && w.trigger.queue === queue.name);
  return Math.max(
    queue.visibilityTimeoutSeconds,
    6 * (consumer ? workerTimeoutSeconds(consumer) : WORKER_TIMEOUT_SECONDS),
  );
}

/**
 * The SES events topic's subscriptions (each queue with its body filter): defined in
 * shared/platform/aws/ses-events-topic.ts, where the sender's test mode reads them too. The stack
 * subscribes the queues with these filters; the local SES front and the test-mode sender publish
 * through the same list.
 */
export { sesEventSubscriptions } from '../shared/platform/aws/ses-events-topic';
/** The webhook fan-out's stream filter: inserted items whose entity `type` is `event` (shared/events/events.ts). */
export const WEBHOOK_FANOUT_FILTER = { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } };

/** The email-list-index filter: email items inserted or changed (shared/emails/list-index.ts keeps GET /emails' index from them). */
export const EMAIL_LIST_INDEX_FILTER = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: { NewImage: { type: { S: ['email'] } } },
};

/**
 * The collection-cleanup filter: removed items whose entity `type` is `segment` or `inbox`, which leave
 * collections of their own behind (shared/audience/segments.ts, shared/inboxes/cleanup.ts).
 */
export const COLLECTION_CLEANUP_FILTER = {
  eventName: ['REMOVE'],
  dynamodb: { OldImage: { type: { S: ['segment', 'inbox'] } } },
};

/**
 * A send queue's batch size and concurrency for an account sending `rate` emails a second: about
 * a second of sends in flight (each message waits for its slot, at most 20 s, then calls SES), so
 * at the SES sandbox's 1 a second two invocations of one message each, at 14 two of ten, at 500
 * fifty of ten. The sender never exceeds the rate whatever runs (shared/emails/send-rate.ts); this
 * only keeps messages from waiting in an invocation for slots far ahead. On AWS the rate is the
 * CDK context `sesSendRate` (default 14, SES's usual production start; set it when the account's
 * quota grows), locally SEND_RATE_PER_SECOND or the local SES's rate.
 */
export function senderScaling(rate: number): { batchSize: number; maxConcurrency: number } {
  const batchSize = rate < 10 ? 1 : 10;
  return { batchSize, maxConcurrency: Math.max(2, Math.ceil(rate / batchSize)) };
}

/** A worker's queue trigger as deployed for an account sending `sendRate` a second. */
export function queueTrigger(
  trigger: Extract<Trigger, { kind: 'queue' }>,
  sendRate: number,
): Extract<Trigger, { kind: 'queue' }> {
  return trigger.scaledBySendRate ? { ...trigger, ...senderScaling(sendRate) } : trigger;
}

/**
 * The live senders' needs (the transactional and the bulk lane run the same code). DeleteItem: the
 * email's pending entry; the content bucket: the content and attachments to send (the sender
 * fetches no attachment: the fetch stage stored them). Nothing of test mode: that is the
 * test-sender's alone, so a live sender holds no grant it does not use for live mail.
 */
const SENDER_NEEDS: Needs = {
  table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  ses: ['ses:SendEmail', 'ses:GetAccount'],
  contentBucket: 'read',
};

/**
 * The test-mode sender's needs (the same code, on the `send-test` queue): no SES at all; the
 * content bucket: PutObject for the rendered message; the SES feedback queues: the simulated
 * events; the inbound bucket and queue: a test-mode email to its own sandbox's receiving domain
 * (shared/emails/test-mode-send.ts).
 */
const TEST_SENDER_NEEDS: Needs = {
  table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
  contentBucket: 'read-write',
  inboundBucket: 'write',
  queues: ['ses-events', 'ses-suppression', INBOUND_QUEUE],
};

export const workers: readonly Worker[] = [
  {
    name: 'sender',
    handler: 'workers/sender',
    trigger: { kind: 'queue', queue: 'send', batchSize: 10, maxConcurrency: 5, scaledBySendRate: true },
    needs: SENDER_NEEDS,
  },
  {
    // the bulk lane: the same sender for broadcast emails, which never take the transactional reserve of the send rate
    name: 'bulk-sender',
    handler: 'workers/bulk-sender',
    trigger: { kind: 'queue', queue: 'send-bulk', batchSize: 10, maxConcurrency: 5, scaledBySendRate: true },
    needs: SENDER_NEEDS,
  },
  {
    // test mode's lane, transactional and broadcast emails alike: the same sender code, simulating (no SES call)
    name: 'test-sender',
    handler: 'workers/test-sender',
    trigger: { kind: 'queue', queue: 'send-test', batchSize: 10, maxConcurrency: 5 },
    needs: TEST_SENDER_NEEDS,
  },
  {
    // emails with `path` attachments: fetched (test mode: checked) and stored, then sent on to the send queue
    // (shared/emails/attachment-fetch.ts). One email per invocation, so no email's fetch waits for another's;
    // broadcasts have no attachments, so only the transactional lane. DeleteItem, PutItem: a failed fetch ends
    // the email `failed` (its pending entry, its event); the content bucket: the content read, the bytes stored.
    name: 'attachment-fetcher',
    handler: 'workers/attachment-fetcher',
    trigger: { kind: 'queue', queue: ATTACHMENT_FETCH_QUEUE, batchSize: 1, maxConcurrency: 10 },
    needs: {
      table: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
      contentBucket: 'read-write',
      queues: ['send', 'send-test'],
    },
    timeoutSeconds: ATTACHMENT_FETCH_TIMEOUT_SECONDS,
  },
  {
    // SES Bounce and Complaint events -> suppression entries (idempotent: an address keeps its first entry)
    name: 'suppression-writer',
    handler: 'workers/suppression-writer',
    trigger: { kind: 'queue', queue: 'ses-suppression', batchSize: 10 },
    needs: { table: ['GetItem', 'PutItem', 'DeleteItem'] },
  },
  {
    name: 'email-status',
    handler: 'workers/email-status',
    trigger: { kind: 'queue', queue: 'ses-events', batchSize: 10 },
    needs: { table: ['GetItem', 'PutItem', 'UpdateItem', 'Query'] }, // Query: the project's reputation after a bounce or complaint
  },
  {
    name: 'dispatch-due-emails',
    handler: 'workers/dispatch-due-emails',
    trigger: { kind: 'schedule', everySeconds: 60 },
    // GetItem, PutItem, DeleteItem: settling staged emails of a batch whose request died (shared/emails/emails.ts)
    needs: {
      table: ['Query', 'BatchGetItem', 'UpdateItem', 'GetItem', 'PutItem', 'DeleteItem'],
      queues: ['send', 'send-bulk', 'send-test', ATTACHMENT_FETCH_QUEUE],
      untested: {
        'sqs:SendMessage:send-test':
          "a scheduled or stranded test-mode email coming due: the queue is picked by the same sendQueueOf as POST /emails' (test/unit/send-queue.test.ts)",
      },
    },
  },
  {
    // re-reads domains SES is still verifying; emits domain.verified / domain.verification_failed
    name: 'domain-verification',
    handler: 'workers/domain-verification',
    trigger: { kind: 'schedule', everySeconds: 60 },
    needs: {
      table: ['Query', 'BatchGetItem', 'GetItem', 'UpdateItem', 'PutItem'],
      ses: ['ses:GetEmailIdentity'],
      untested: {
        'dynamodb:GetItem':
          'reads the domain again only when its name claim changed during the check (a delete racing it)',
      },
    },
  },
  {
    // checks each domain's compliance every few hours; emits domain.compliance_changed (shared/deliverability/compliance.ts)
    name: 'compliance-check',
    handler: 'workers/compliance-check',
    trigger: { kind: 'schedule', everySeconds: 300 },
    // Query: the due records (GSI1) and the project's reputation counts; BatchGetItem: the due records;
    // GetItem: the domain and its last statuses; UpdateItem, PutItem: the statuses and the event (one transaction)
    needs: {
      table: ['Query', 'BatchGetItem', 'GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'],
      untested: {
        'dynamodb:DeleteItem':
          "a due record whose domain is gone: the domain's delete takes its record in the same transaction, so only a record written by a check racing that delete is left (test/api/domain-compliance-schedule.test.ts reaches the rest)",
      },
    },
    reportsDomain: true,
  },
  {
    // the outbox: every inserted event item -> a delivery per subscribed webhook + a message (shared/webhooks/fanout.ts)
    name: 'webhook-fanout',
    handler: 'workers/webhook-fanout',
    trigger: { kind: 'stream', batchSize: 100, filter: WEBHOOK_FANOUT_FILTER, maxRetryAttempts: 50 },
    // automation-events: the events that start or resume automations (shared/automations/events-forward.ts)
    // GetItem: the project's system events in use, before forwarding one
    // inbox-index: the messages filed into inboxes, for their search index (shared/inboxes/search.ts)
    needs: { table: ['Query', 'PutItem', 'GetItem'], queues: ['webhook-delivery', 'automation-events', 'inbox-index'] },
  },
  {
    // one signed POST per message; retries by the message's visibility (shared/webhooks/dispatch.ts):
    // ChangeMessageVisibility on its own queue, which its SQS trigger grants (and whose URL it is given);
    // inboundBucket read: the presigned URL of a large received body for webhooks with include_content
    // (shared/receiving/webhook-content.ts)
    name: 'webhook-dispatcher',
    handler: 'workers/webhook-dispatcher',
    trigger: { kind: 'queue', queue: 'webhook-delivery', batchSize: 10, maxConcurrency: 20 },
    needs: {
      table: ['BatchGetItem', 'GetItem', 'UpdateItem', 'PutItem'],
      secretsKey: 'decrypt',
      inboundBucket: 'read',
    },
  },
  {
    // one page of a broadcast's segment per message -> emails through the send queue (shared/broadcasts/fanout.ts);
    // maxConcurrency 10: room for MAX_PAGES_IN_FLIGHT (8) pages of one broadcast side by side
    name: 'broadcast-fanout',
    handler: 'workers/broadcast-fanout',
    trigger: { kind: 'queue', queue: 'broadcast-fanout', batchSize: 1, maxConcurrency: 10 },
    // ses:GetAccount: the send rate, to give each email a lease that lasts until its turn (locally the runtime's
    // functions share its cache: test/integration/lambda-emulation.test.ts reads it as each function)
    needs: {
      table: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem'],
      queues: ['send-bulk', 'send-test', 'broadcast-fanout'],
      ses: ['ses:GetAccount'],
      contentBucket: 'write',
      secretsKey: 'encrypt-decrypt',
    },
    publicApiUrl: true,
  },
  {
    // starts scheduled broadcasts and resumes fan-outs whose next-page message was lost
    name: 'dispatch-due-broadcasts',
    handler: 'workers/dispatch-due-broadcasts',
    trigger: { kind: 'schedule', everySeconds: 60 },
    needs: { table: ['Query', 'BatchGetItem', 'UpdateItem'], queues: ['broadcast-fanout'] },
  },
  {
    // inserted and changed email items -> the entries GET /emails' filters read (shared/emails/list-index.ts);
    // BatchWriteItem: unconditional puts and deletes of those entries only
    name: 'email-list-index',
    handler: 'workers/email-list-index',
    trigger: { kind: 'stream', batchSize: 100, filter: EMAIL_LIST_INDEX_FILTER, maxRetryAttempts: 50 },
    needs: { table: ['BatchWriteItem'] },
  },
  {
    // removed segment and inbox items -> the memberships DELETE /segments/{id} left (shared/audience/segments.ts), the
    // partition DELETE /inboxes/{id} left (shared/inboxes/cleanup.ts)
    // 5 minutes per call; a segment not done by then is retried from its record and goes on.
    name: 'collection-cleanup',
    handler: 'workers/collection-cleanup',
    trigger: { kind: 'stream', batchSize: 10, filter: COLLECTION_CLEANUP_FILTER, maxRetryAttempts: 100 },
    needs: { table: ['Query', 'BatchGetItem', 'DeleteItem', 'UpdateItem'] },
    timeoutSeconds: 300,
  },
  {
    // SES receipt notifications -> received emails, `email.received` then `email.stored` (shared/receiving/inbound.ts)
    name: 'inbound',
    handler: 'workers/inbound',
    // One message per invocation, with the memory and time a 40 MB message takes (shared/receiving/inbound.ts MAX_PARSE_BYTES);
    // 5 at once (locally 5 pollers): filing is safe for messages of one conversation filed together (shared/inboxes/filing.ts)
    trigger: { kind: 'queue', queue: INBOUND_QUEUE, batchSize: 1, maxConcurrency: 5 },
    needs: { table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'], inboundBucket: 'read-write' },
    memoryMb: INBOUND_WORKER_MEMORY_MB,
    timeoutSeconds: 120,
    forwardingDomain: true, // mail to an inbox's forwarding address (shared/inboxes/filing.ts)
    reportsDomain: true, // mail to a domain's DMARC or TLS report address (shared/deliverability/ingest.ts)
  },
  {
    // a CSV of contacts -> pages of contacts, each page one transaction with the import's cursor (shared/audience/imports.ts);
    // SendMessage to its own queue: the continuation of a file not done before the timeout
    name: 'contact-imports',
    handler: 'workers/contact-imports',
    trigger: { kind: 'queue', queue: 'contact-imports', batchSize: 1, maxConcurrency: 2 },
    needs: {
      table: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem', 'DeleteItem'],
      queues: ['contact-imports'],
      contentBucket: 'read',
    },
    timeoutSeconds: 120,
  },
  {
    // an event of a contact -> the runs waiting for it resumed, then the runs it triggers started (shared/automations/engine.ts)
    name: 'automation-matcher',
    handler: 'workers/automation-matcher',
    trigger: { kind: 'queue', queue: 'automation-events', batchSize: 10, maxConcurrency: 10 },
    // PutItem, UpdateItem: a run and its counter (one transaction), a waiter claimed
    needs: { table: ['Query', 'GetItem', 'PutItem', 'UpdateItem'], queues: [AUTOMATION_STEPS_QUEUE] },
  },
  {
    // one step of one run per message (shared/automations/engine.ts): a send_email step accepts its email as POST /emails
    // does (its grants: the send queues, the content bucket), contact steps change the contact as the contact routes do;
    // a delay or a wait past 15 minutes is a one-time schedule onto this queue
    name: 'automation-steps',
    handler: 'workers/automation-steps',
    trigger: { kind: 'queue', queue: AUTOMATION_STEPS_QUEUE, batchSize: 10, maxConcurrency: 10 },
    needs: {
      table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem', 'ConditionCheckItem'],
      queues: ['send', 'send-test', AUTOMATION_STEPS_QUEUE],
      contentBucket: 'write',
      scheduler: ['scheduler:CreateSchedule'],
    },
  },
  {
    // messages filed into inboxes -> their inbox's search index, a new object per batch and inbox (shared/inboxes/search.ts)
    name: 'inbox-index',
    handler: 'workers/inbox-index',
    trigger: { kind: 'queue', queue: 'inbox-index', batchSize: 10, maxConcurrency: 2 },
    needs: { table: ['GetItem', 'BatchGetItem', 'UpdateItem'], inboundBucket: 'read-write', contentBucket: 'read' },
    memoryMb: INDEX_MEMORY_MB,
    timeoutSeconds: 30,
  },
];
