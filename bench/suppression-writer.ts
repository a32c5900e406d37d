/**
 * The suppression writer's throughput beside the raw write rate of the same DynamoDB Local, in
 * one run, 32 operations in flight throughout:
 *  1. 10,000 PutItem calls (items the size of a suppression entry), after a warm-up;
 *  2. 10,000 TransactWriteItems of an entry's two items (DynamoDB Local runs transactions far
 *     slower than single puts), then 10,000 of what the writer writes for an entry (the two items
 *     and `suppression.added`: issue 39's yardstick), then that transaction after the GetItem of the
 *     SES message id the writer makes first (every call of an entry, without the writer's Node work);
 *  3. 10,000 Permanent-bounce notifications (one distinct address each, in SNS envelopes) through
 *     the worker's handler in SQS batches of 10 (the Lambda's work: parse, find the email by its
 *     SES message id, decide, one TransactWriteItems of the three per address);
 *  4. the same 10,000 again (every one a duplicate: a cancelled conditional transaction).
 *
 * Run alone: `npx tsx bench/suppression-writer.ts` (BENCH_NOTIFICATIONS, BENCH_CONCURRENCY to change the figures).
 */
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { ensureTable, startDynamoDbLocal } from '../local/aws/dynamodb';
import { freePort } from '../local/ports';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';

export interface SuppressionWriterResult {
  notifications: number;
  concurrency: number;
  /** PutItem calls per second */
  rawPutsPerSecond: number;
  /** TransactWriteItems of two puts (the first conditional), per second: what one new entry costs, without the worker */
  rawTransactionsPerSecond: number;
  /** the transaction the writer writes for a new entry (its two items and suppression.added), raw */
  rawEntryTransactionsPerSecond: number;
  /** every call the writer makes for a new entry (the SES message lookup, the transaction), raw */
  rawEntryCallsPerSecond: number;
  /** new entries per second (each is one transaction of three items: the entry, its by-id item, suppression.added) */
  entriesPerSecond: number;
  /** duplicate notifications per second (nothing written) */
  duplicatesPerSecond: number;
  entriesFound: number;
  failures: number;
}

/** Runs `task(i)` for i in [0, total) with at most `concurrency` in flight; returns the seconds it took. */
async function timed(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

function bounceRecord(projectId: string, i: number): SQSRecord {
  const messageId = `0108019${randomUUID().replace(/-/g, '')}-000000`;
  const emailAddress = `bounced-${i}@bench.example.com`;
  const event = {
    eventType: 'Bounce',
    bounce: {
      feedbackId: `${messageId}-bounce`,
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [
        { emailAddress, action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
      ],
      timestamp: new Date().toISOString(),
      reportingMTA: 'dns; a27-30.smtp-out.ap-southeast-2.amazonses.com',
    },
    mail: {
      timestamp: new Date().toISOString(),
      source: 'bench@bench.example.com',
      sendingAccountId: '123456789012',
      messageId,
      destination: [emailAddress],
      headersTruncated: false,
      commonHeaders: { from: ['bench@bench.example.com'], to: [emailAddress], subject: 'bench' },
      tags: { email_id: [randomUUID()], project_id: [projectId], 'ses:configuration-set': ['bench'] },
    },
  };
  const body = JSON.stringify({
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: 'arn:aws:sns:ap-southeast-2:123456789012:ses-events',
    Message: JSON.stringify(event),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature: 'bench',
    SigningCertURL: 'https://sns.ap-southeast-2.amazonaws.com/bench.pem',
    UnsubscribeURL: 'https://sns.ap-southeast-2.amazonaws.com/?Action=Unsubscribe',
  });
  return {
    messageId: randomUUID(),
    receiptHandle: 'bench',
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'bench',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:ap-southeast-2:123456789012:ses-suppression',
    awsRegion: 'ap-southeast-2',
  };
}

/** PutItem calls before the measured ones. */
const WARM_UP = 2000;

export async function benchSuppressionWriter(
  notifications = Number(process.env.BENCH_NOTIFICATIONS ?? 10_000),
  concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32),
): Promise<SuppressionWriterResult> {
  const dynamo = await startDynamoDbLocal({ port: freePort });
  try {
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const admin = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'ap-southeast-2', credentials });
    await ensureTable(admin, LOCAL_TABLE_NAME);
    admin.destroy();
    // The handler's whole view of AWS, set before its modules (and their client) load.
    Object.assign(process.env, {
      TABLE_NAME: LOCAL_TABLE_NAME,
      AWS_REGION: 'ap-southeast-2',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      LOG_LEVEL: 'ERROR',
    });
    const { handler } = await import('../functions/workers/suppression-writer');
    const { put, putItem, queryPage, transact } = await import('../shared/platform/db/table');
    const keys = await import('../shared/platform/db/keys');
    const { newId, nowIso } = await import('../shared/platform/ids');

    // 1. the raw write rate: one PutItem per item, items shaped like a suppression entry (after a
    //    warm-up, so the JVM's compiler does not count against the baseline)
    const rawProject = newId();
    const rawPut = async (i: number) => {
      const email = `raw-${i}@bench.example.com`;
      await putItem(
        put({
          ...keys.suppression(rawProject, email),
          type: 'suppression',
          project_id: rawProject,
          object: 'suppression',
          id: newId(),
          email,
          source: 'bounce',
          subtype: 'General',
          reason: 'smtp; 550 5.1.1 user unknown',
          message_id: randomUUID(),
          created_at: nowIso(),
        }),
      );
    };
    await timed(WARM_UP, concurrency, (i) => rawPut(notifications + i));
    const rawSeconds = await timed(notifications, concurrency, rawPut);
    // ... and the same items in the shape the writer writes them: the entry's two items in one transaction; then
    // with its `suppression.added` (what the writer writes for an entry); then that after the GetItem of the SES
    // message id the writer makes first (every call the writer makes for a new entry, raw)
    const { eventWrite } = await import('../shared/events/events');
    const { getItem } = await import('../shared/platform/db/table');
    const { sesMessage } = await import('../shared/platform/db/keys');
    const entryWrites = (prefix: string, i: number, withEvent: boolean) => {
      const email = `${prefix}-${i}@bench.example.com`;
      const id = newId();
      const record = {
        object: 'suppression',
        id,
        email,
        source: 'bounce',
        subtype: 'General',
        reason: 'smtp; 550 5.1.1 user unknown',
        message_id: randomUUID(),
        created_at: nowIso(),
      };
      const item = { type: 'suppression', project_id: rawProject, ...record };
      return [
        put({ ...keys.suppression(rawProject, email), ...item }, { ifAbsent: () => new Error('exists') }),
        put({ ...keys.suppressionById(rawProject, id), ...item, type: 'suppression_id' }),
        ...(withEvent
          ? [eventWrite({ projectId: rawProject, livemode: true }, 'suppression.added', record as never)]
          : []),
      ];
    };
    const transactionSeconds = await timed(notifications, concurrency, (i) => transact(entryWrites('tx', i, false)));
    const entryTransactionSeconds = await timed(notifications, concurrency, (i) =>
      transact(entryWrites('etx', i, true)),
    );
    const entryCallsSeconds = await timed(notifications, concurrency, async (i) => {
      await getItem(sesMessage(randomUUID()));
      await transact(entryWrites('ecall', i, true));
    });

    // 2. the suppression writer: batches of 10 notifications, as Lambda's SQS trigger hands them over
    const projectId = newId();
    const records = Array.from({ length: notifications }, (_, i) => bounceRecord(projectId, i));
    // what the sender records for each send (untimed): the writer finds the project by the SES message id alone
    const { sesMessageWrite } = await import('../shared/emails/ses-message');
    await timed(records.length, concurrency, async (i) => {
      const { mail } = JSON.parse(JSON.parse(records[i].body).Message);
      await putItem(
        sesMessageWrite(mail.messageId, projectId, mail.tags.email_id[0], mail.tags['ses:configuration-set'][0]),
      );
    });
    const batches: SQSEvent[] = [];
    for (let i = 0; i < records.length; i += 10) batches.push({ Records: records.slice(i, i + 10) });
    let failures = 0;
    const invoke = async (b: number) => {
      failures += (await handler(batches[b])).batchItemFailures.length;
    };
    const writerSeconds = await timed(batches.length, concurrency, invoke);
    // 3. the same notifications again: SNS and SQS deliver at least once
    const duplicateSeconds = await timed(batches.length, concurrency, invoke);

    let entriesFound = 0;
    let after: string | undefined;
    for (;;) {
      const page = await queryPage(keys.suppressions(projectId), { limit: 100, after });
      entriesFound += page.items.length;
      if (!page.hasMore) break;
      after = page.items[page.items.length - 1].id as string;
    }
    return {
      notifications,
      concurrency,
      rawPutsPerSecond: notifications / rawSeconds,
      rawTransactionsPerSecond: notifications / transactionSeconds,
      rawEntryTransactionsPerSecond: notifications / entryTransactionSeconds,
      rawEntryCallsPerSecond: notifications / entryCallsSeconds,
      entriesPerSecond: notifications / writerSeconds,
      duplicatesPerSecond: notifications / duplicateSeconds,
      entriesFound,
      failures,
    };
  } finally {
    await dynamo.stop();
  }
}

export function formatSuppressionWriter(r: SuppressionWriterResult): string {
  const ok = r.entriesFound === r.notifications && r.failures === 0;
  const share = (rate: number, of: number) => `${((rate / of) * 100).toFixed(0)}%`;
  return [
    `${r.notifications.toLocaleString('en')} operations per row, ${r.concurrency} in flight (the writer: ${r.concurrency} invocations of SQS batches of 10).\n`,
    '| run | rate | table items written/s | vs raw PutItem | vs raw transaction |',
    '|---|---:|---:|---:|---:|',
    `| raw DynamoDB Local PutItem (1 item) | ${r.rawPutsPerSecond.toFixed(0)} puts/s | ${r.rawPutsPerSecond.toFixed(0)} | 100% | |`,
    `| raw DynamoDB Local TransactWriteItems (2 puts, as one entry) | ${r.rawTransactionsPerSecond.toFixed(0)} transactions/s | ${(r.rawTransactionsPerSecond * 2).toFixed(0)} | ${share(r.rawTransactionsPerSecond, r.rawPutsPerSecond)} | 100% |`,
    `| raw DynamoDB Local TransactWriteItems of what the writer writes for an entry (2 items + suppression.added) | ${r.rawEntryTransactionsPerSecond.toFixed(0)} transactions/s | ${(r.rawEntryTransactionsPerSecond * 3).toFixed(0)} | ${share(r.rawEntryTransactionsPerSecond, r.rawPutsPerSecond)} | ${share(r.rawEntryTransactionsPerSecond, r.rawTransactionsPerSecond)} |`,
    `| raw DynamoDB Local: every call of a new entry (the SES message GetItem, then that transaction) | ${r.rawEntryCallsPerSecond.toFixed(0)} entries/s | ${(r.rawEntryCallsPerSecond * 3).toFixed(0)} | ${share(r.rawEntryCallsPerSecond, r.rawPutsPerSecond)} | ${share(r.rawEntryCallsPerSecond, r.rawTransactionsPerSecond)} |`,
    `| suppression writer, new addresses | ${r.entriesPerSecond.toFixed(0)} entries/s | ${(r.entriesPerSecond * 3).toFixed(0)} | ${share(r.entriesPerSecond, r.rawPutsPerSecond)} | ${share(r.entriesPerSecond, r.rawTransactionsPerSecond)} |`,
    `| suppression writer, the same notifications again (duplicates, nothing written) | ${r.duplicatesPerSecond.toFixed(0)} notifications/s | 0 | ${share(r.duplicatesPerSecond, r.rawPutsPerSecond)} | ${share(r.duplicatesPerSecond, r.rawTransactionsPerSecond)} |`,
    '',
    `The writer against the transaction it writes: ${share(r.entriesPerSecond, r.rawEntryTransactionsPerSecond)} (issue 39's goal: >= 100%); against every call it makes, raw: ${share(r.entriesPerSecond, r.rawEntryCallsPerSecond)}.\n`,
    `Entries found afterwards: ${r.entriesFound.toLocaleString('en')} of ${r.notifications.toLocaleString('en')}; batch item failures: ${r.failures} (${ok ? 'MET' : 'NOT MET'}).`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchSuppressionWriter().then(
    (result) => {
      console.log('## Suppression writer beside the raw DynamoDB Local write rate\n');
      console.log(formatSuppressionWriter(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
