import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { streamFailureAt } from '#shared/platform/aws/batch';
import { EVENT_SK_PREFIX } from '#shared/platform/db/keys';
import type { OutboxEvent } from '#shared/webhooks/deliveries';
import { fanOut } from '#shared/webhooks/fanout';
import { itemOfImage } from '#shared/platform/aws/stream-image';
import {
  AUTOMATION_EVENT_TYPES,
  automationEventQueue,
  automationEventsOf,
  withoutUnused,
} from '#shared/automations/events-forward';
import { INBOX_INDEX_EVENT_TYPES, inboxIndexQueue, indexMessageOf } from '#shared/inboxes/search';

/**
 * The table's stream, filtered (functions/workers.ts) to inserted event items: each becomes a
 * delivery per subscribed webhook and a message on the delivery queue (shared/webhooks/fanout.ts),
 * and those that can start or resume automations a message on the automation events queue
 * (shared/automations/events-forward.ts). A failure reports the first record that did not go out;
 * Lambda retries from there (both are idempotent).
 */
function outboxEvent(record: DynamoDBRecord): OutboxEvent {
  const image = record.dynamodb?.NewImage;
  const sk = image?.SK?.S ?? '';
  const event = {
    projectId: image?.project_id?.S ?? '',
    id: sk.slice(EVENT_SK_PREFIX.length),
    type: image?.event_type?.S ?? '',
    createdAt: image?.event?.M?.created_at?.S ?? '',
    expiresAt: Number(image?.expires_at?.N),
  };
  if (
    !event.projectId ||
    !sk.startsWith(EVENT_SK_PREFIX) ||
    !event.type ||
    !event.createdAt ||
    !Number.isFinite(event.expiresAt)
  )
    throw new Error('not an event item');
  return event;
}

const AUTOMATION_TYPES: ReadonlySet<string> = new Set(AUTOMATION_EVENT_TYPES);

type StreamedEvent = { record: DynamoDBRecord; event: OutboxEvent };

/** The event as the record's image holds it: its mode and `data.object`. */
const envelopeOf = (record: DynamoDBRecord) =>
  itemOfImage(record.dynamodb?.NewImage?.event?.M) as {
    livemode?: boolean;
    data?: { object?: Record<string, unknown> };
  };

/** The automation events of the records (their index in `events`), for the types that have any. */
function automationEvents(events: StreamedEvent[]) {
  return events.flatMap(({ record, event }, index) => {
    if (!AUTOMATION_TYPES.has(event.type)) return [];
    const envelope = envelopeOf(record);
    return automationEventsOf({
      projectId: event.projectId,
      livemode: envelope.livemode !== false,
      id: event.id,
      type: event.type,
      createdAt: event.createdAt,
      object: envelope.data?.object ?? {},
    }).map((message) => ({ index, message }));
  });
}

const INDEX_TYPES: ReadonlySet<string> = new Set(INBOX_INDEX_EVENT_TYPES);

/** Messages filed into inboxes, for their search index (shared/inboxes/search.ts). */
const inboxIndexMessages = (events: StreamedEvent[]) =>
  events.flatMap(({ record, event }, index) =>
    INDEX_TYPES.has(event.type)
      ? [{ index, message: indexMessageOf(event.projectId, envelopeOf(record).data?.object ?? {}) }]
      : [],
  );

/** Sends the messages to their queue; answers the index (in `events`) of the first event whose messages were not all taken, or -1. */
async function forward<M>(
  queue: { enqueue(messages: M[]): Promise<M[]> },
  forwarded: { index: number; message: M }[],
  what: string,
): Promise<number> {
  if (!forwarded.length) return -1;
  const refused = new Set(
    await queue.enqueue(forwarded.map((f) => f.message)).catch(() => forwarded.map((f) => f.message)),
  );
  const failed = forwarded.filter((f) => refused.has(f.message)).map((f) => f.index);
  if (failed.length) logger.error(`${what} messages not sent`, { count: failed.length });
  return failed.length ? Math.min(...failed) : -1;
}

export const handler = async (stream: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const events = stream.Records.flatMap((record) => {
    try {
      return [{ record, event: outboxEvent(record) }];
    } catch (error) {
      // let through by the filter but not an event item: nothing to deliver, and a retry cannot change that
      logger.error('skipping a stream record that is not an event item', {
        sequence_number: record.dynamodb?.SequenceNumber,
        error,
      });
      return [];
    }
  });
  // One fan-out for the whole batch (one Query per project, enqueues of 10), so not processStreamBatch's record at a time.
  const [webhooksFailedAt, automationsFailedAt, indexFailedAt] = await Promise.all([
    fanOut(events.map((e) => e.event)),
    withoutUnused(automationEvents(events)).then(
      (forwarded) => forward(automationEventQueue, forwarded, 'automation event'),
      (error) => {
        logger.error('automation events not forwarded: the system events in use were not read', { error });
        return 0; // the batch again, from its first record
      },
    ),
    forward(inboxIndexQueue, inboxIndexMessages(events), 'inbox index'),
  ]);
  const failures = [webhooksFailedAt, automationsFailedAt, indexFailedAt].filter((i) => i >= 0);
  const failedAt = failures.length ? Math.min(...failures) : -1;
  return streamFailureAt(stream.Records, failedAt === -1 ? -1 : stream.Records.indexOf(events[failedAt].record));
};
