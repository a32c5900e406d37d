/**
 * DynamoDB calls per API operation, counted by a middleware on the handlers' own DynamoDB client
 * while real requests go through the local runtime (in this process). Each row is one request:
 * the calls it made in order, with the entity each touched (the sort key's prefix, the access
 * pattern of shared/platform/db/keys.ts), and DESIGN.md's budget: "at most one read round trip before the
 * write, and the write is one TransactWriteItems or PutItem". The API-key lookup (one GetItem
 * on the key's hash) comes before every authenticated request and is counted apart. So is the
 * request log's PutItem (shared/logs/request-log.ts), which every authenticated request makes once
 * its answer is decided, beside the rest of the pipeline: it has a column of its own ("log write
 * (after the answer)") and the budget verdict is about the operation's own writes. Workers run
 * in the same process; their calls are not counted (only those made while a request is handled).
 *
 * Run alone: `npx tsx bench/dynamodb-calls.ts`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalRuntime } from '../local/runtime';
import { readSettings } from '../local/settings';

export interface CallRow {
  operation: string;
  status: number;
  calls: string[];
  /** read round trips before the first write (reads that overlap in time are one round trip) */
  reads: number;
  writes: number;
  /** the request log's PutItem, made once the answer is decided (1 for every authenticated request): not in `calls`, `writes` or the budget */
  logWrites: number;
  /** null for read-only operations: DESIGN.md's budget is about writes */
  met: boolean | null;
}

const KEY = `es_live_${'C'.repeat(32)}`;
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'TransactWriteItemsCommand',
  'BatchWriteItemCommand',
  'PutCommand',
  'UpdateCommand',
  'DeleteCommand',
  'TransactWriteCommand',
  'BatchWriteCommand',
]);

/** `SEGMENT` for `SEGMENT#<id>`, `PROJECT#..#SEGMENT` partitions by their last entity. */
function entityOf(key: Record<string, unknown> | undefined): string {
  if (!key) return '?';
  const sk = String(key.SK ?? '');
  const pk = String(key.PK ?? '');
  const fromSk = sk.split('#')[0];
  if (pk.startsWith('PROJECT#') && pk.split('#').length > 2) return `${pk.split('#')[2]}_${fromSk}`;
  return fromSk === 'PROJECT' && !pk.startsWith('PROJECT#') ? pk.split('#')[0] : fromSk || pk.split('#')[0];
}

function describe(command: string, input: Record<string, any>): string {
  const name = command.replace(/Command$/, '');
  if (input.TransactItems) {
    const parts = (input.TransactItems as Record<string, any>[]).map((t) => {
      const [kind, body] = Object.entries(t)[0];
      return `${kind} ${entityOf(body.Key ?? body.Item)}`;
    });
    return `${name}(${parts.join(', ')})`;
  }
  if (input.RequestItems) {
    const table = Object.values(input.RequestItems)[0] as Record<string, any>;
    const keys: Record<string, unknown>[] =
      table.Keys ??
      (table as unknown as Record<string, any>[]).map?.((r) => r.PutRequest?.Item ?? r.DeleteRequest?.Key) ??
      [];
    return `${name}(${[...new Set(keys.map(entityOf))].join(', ')} x${keys.length})`;
  }
  if (input.KeyConditionExpression) {
    const values = input.ExpressionAttributeValues ?? {};
    const prefix = String(values[':prefix'] ?? values[':p'] ?? '').split('#')[0];
    return `${name}(${input.IndexName ? `${input.IndexName} ` : ''}${prefix || String(values[':pk'] ?? '').split('#')[0]})`;
  }
  return `${name}(${entityOf(input.Key ?? input.Item)})`;
}

/**
 * The workers run in this process too (the fan-outs, the sender): only calls made while an HTTP
 * request of the runtime is being handled are counted, marked through the servers' `request` event.
 */
const inRequest = new AsyncLocalStorage<true>();
const emit = Server.prototype.emit;
Server.prototype.emit = function (this: Server, event: string | symbol, ...args: unknown[]) {
  const forward = () => (emit as (event: string | symbol, ...args: unknown[]) => boolean).call(this, event, ...args);
  return event === 'request' ? inRequest.run(true, forward) : forward();
} as typeof Server.prototype.emit;

export async function benchDynamoDbCalls(): Promise<CallRow[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-calls-'));
  process.env.LOG_LEVEL = 'ERROR';
  process.env.API_RATE_LIMIT_PER_SECOND = '1000000'; // counted, never refused (bench/rate-limit.ts measures the count)
  const runtime = await startLocalRuntime(
    readSettings({
      PORT: '0',
      DATA_DIR: dataDir,
      DYNAMODB_IN_MEMORY: 'true',
      LOCAL_API_KEY: KEY,
      LOCAL_SES_PORT: '0',
      LOCAL_SES_VERIFY_DELAY_MS: '0',
    }),
    () => undefined,
  );
  const { documentClient } = await import('../shared/platform/db/client');
  let recording: { command: string; input: Record<string, any>; start: number; end: number }[] | undefined;
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      const entry = {
        command: String(context.commandName),
        input: args.input as Record<string, any>,
        start: performance.now(),
        end: Number.POSITIVE_INFINITY,
      };
      if (inRequest.getStore()) recording?.push(entry);
      try {
        return await next(args);
      } finally {
        entry.end = performance.now();
      }
    },
    { step: 'initialize', name: 'benchCallCounter' },
  );
  const rows: CallRow[] = [];
  const call = async (operation: string, method: string, path: string, body?: unknown): Promise<any> => {
    recording = [];
    const res = await fetch(runtime.apiUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${KEY}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    await new Promise((r) => setTimeout(r, 20)); // calls after the response (none expected) would land here
    // the key's lookup, the rate limit's count beside it, and the project's settings (read once a minute) are every request's
    const everyRequest = (c: { command: string; input: Record<string, any> }) =>
      (c.command.startsWith('Get') &&
        (String(c.input.Key?.PK ?? '').startsWith('API_KEY_HASH#') || c.input.Key?.SK === 'PROJECT')) ||
      (c.command.startsWith('Update') && String(c.input.Key?.PK ?? '').startsWith('RATE_LIMIT#')) ||
      // a key's last_used_at, at most once an hour, beside the request (shared/access/api-keys.ts markUsed)
      (c.command.startsWith('TransactWrite') &&
        (c.input.TransactItems ?? []).some((t: any) => String(t.Update?.Key?.PK ?? '').startsWith('API_KEY_HASH#')));
    // the request log's entry, put once the answer is decided (shared/logs/request-log.ts): counted in its own column
    const logWrite = (c: { command: string; input: Record<string, any> }) =>
      c.command.startsWith('Put') && c.input.Item?.type === 'request_log';
    const logWrites = recording.filter(logWrite).length;
    const made = recording.filter((c) => !everyRequest(c) && !logWrite(c));
    recording = undefined;
    const firstWrite = made.findIndex((c) => WRITES.has(c.command));
    // round trips: a read that starts before the reads of the current round have all ended is in that round
    let reads = 0;
    let roundEnds = Number.NEGATIVE_INFINITY;
    for (const read of firstWrite < 0 ? made : made.slice(0, firstWrite)) {
      if (read.start >= roundEnds) {
        reads++;
        roundEnds = read.end;
      } else roundEnds = Math.max(roundEnds, read.end);
    }
    const writes = made.filter((c) => WRITES.has(c.command)).length;
    // budget: <= 1 read round trip before the write, and at most one write call (a read-only operation: <= 1 read... lists may page)
    const met = firstWrite < 0 ? null : reads <= 1 && writes === 1;
    rows.push({
      operation: `${operation} (${method} ${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')})`,
      status: res.status,
      calls: made.map((c) => describe(c.command, c.input)),
      reads,
      writes,
      logWrites,
      met,
    });
    return text ? JSON.parse(text) : undefined;
  };
  try {
    const key = await call('createApiKey', 'POST', '/api-keys', { name: 'bench' });
    await call('listApiKeys', 'GET', '/api-keys');
    await call('deleteApiKey', 'DELETE', `/api-keys/${key.id}`);
    const domain = await call('createDomain', 'POST', '/domains', { name: 'calls.example.com' });
    await call('getDomain', 'GET', `/domains/${domain.id}`);
    await call('verifyDomain', 'POST', `/domains/${domain.id}/verify`);
    await call('listDomains', 'GET', '/domains');
    const segment = await call('createSegment', 'POST', '/segments', { name: 'bench' });
    await call('getSegment', 'GET', `/segments/${segment.id}`);
    const email = await call('sendEmail', 'POST', '/emails', {
      from: 'bench@calls.example.com',
      to: 'success@simulator.amazonses.com',
      subject: 'calls',
      text: 'hi',
    });
    await call(
      'sendBatch',
      'POST',
      '/emails/batch',
      [1, 2].map((i) => ({
        from: 'bench@calls.example.com',
        to: 'success@simulator.amazonses.com',
        subject: `calls ${i}`,
        text: 'hi',
      })),
    );
    await call('getEmail', 'GET', `/emails/${email.id}`);
    await call('listEmails', 'GET', '/emails');
    const scheduled = await call('sendEmail (scheduled)', 'POST', '/emails', {
      from: 'bench@calls.example.com',
      to: 'x@example.com',
      subject: 's',
      text: 'hi',
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await call('updateEmail', 'PATCH', `/emails/${scheduled.id}`, {
      scheduled_at: new Date(Date.now() + 7_200_000).toISOString(),
    });
    await call('cancelEmail', 'POST', `/emails/${scheduled.id}/cancel`);
    await call('createSuppression', 'POST', '/suppressions', { email: 'gone@example.com' });
    await call('createSuppression (again)', 'POST', '/suppressions', { email: 'gone@example.com' });
    await call('getSuppression', 'GET', '/suppressions/gone@example.com');
    await call('listSuppressions', 'GET', '/suppressions');
    await call('deleteSuppression', 'DELETE', '/suppressions/gone@example.com');
    // up to 33 entries: one BatchGet, one transaction (a call of 100 takes four: shared/suppressions/suppressions.ts)
    await call('batchAddSuppressions', 'POST', '/suppressions/batch/add', {
      emails: ['one@example.com', 'two@example.com'],
    });
    await call('batchRemoveSuppressions', 'POST', '/suppressions/batch/remove', {
      emails: ['one@example.com', 'two@example.com'],
    });
    const topic = await call('createTopic', 'POST', '/topics', { name: 'news', default_subscription: 'opt_in' });
    await call('updateTopic', 'PATCH', `/topics/${topic.id}`, { description: 'monthly' });
    const property = await call('createContactProperty', 'POST', '/contact-properties', {
      key: 'plan',
      type: 'string',
      fallback_value: 'free',
    });
    await call('updateContactProperty', 'PATCH', `/contact-properties/${property.id}`, { fallback_value: 'basic' });
    const contact = await call('createContact', 'POST', '/contacts', {
      email: 'reader@example.com',
      first_name: 'Ada',
      segments: [{ id: segment.id }],
      topics: [{ id: topic.id, subscription: 'opt_in' }],
    });
    await call('getContact', 'GET', `/contacts/${contact.id}`);
    await call('getContact (by address)', 'GET', '/contacts/reader@example.com');
    await call('updateContact', 'PATCH', `/contacts/${contact.id}`, {
      email: 'reader@example.com',
      last_name: 'Lovelace',
    });
    await call('updateContact (properties: schema read beside the contact)', 'PATCH', `/contacts/${contact.id}`, {
      email: 'reader@example.com',
      properties: { plan: 'pro' },
    });
    await call('listContacts (segment)', 'GET', `/contacts?segment_id=${segment.id}`);
    await call('updateContactTopics', 'PATCH', `/contacts/${contact.id}/topics`, [
      { id: topic.id, subscription: 'opt_out' },
    ]);
    const other = await call('createSegment', 'POST', '/segments', { name: 'other' });
    await call('addContactSegment', 'POST', `/contacts/${contact.id}/segments/${other.id}`);
    await call('removeContactSegment', 'DELETE', `/contacts/${contact.id}/segments/${other.id}`);
    await call('deleteContact', 'DELETE', `/contacts/${contact.id}`);
    await call('deleteContactProperty', 'DELETE', `/contact-properties/${property.id}`);
    const template = await call('createTemplate', 'POST', '/templates', {
      name: 'welcome',
      alias: 'welcome',
      subject: 'Hi {{{NAME}}}',
      html: '<p>Hi {{NAME}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallback_value: 'there' }],
    });
    await call('publishTemplate', 'POST', `/templates/${template.id}/publish`);
    await call('getTemplate (by alias)', 'GET', '/templates/welcome');
    await call('sendEmail (template)', 'POST', '/emails', {
      from: 'bench@calls.example.com',
      to: 'success@simulator.amazonses.com',
      template: { id: template.id, variables: { NAME: 'Ada' } },
    });
    await call('listReceivedEmails', 'GET', '/emails/receiving');
    const webhook = await call('createWebhook', 'POST', '/webhooks', {
      endpoint: 'https://hooks.example.com/x',
      events: ['email.sent'],
    });
    await call('getWebhook', 'GET', `/webhooks/${webhook.id}`);
    await call('updateWebhook', 'PATCH', `/webhooks/${webhook.id}`, { description: 'bench' });
    await call('listWebhooks', 'GET', '/webhooks');
    await call('listWebhookEvents', 'GET', '/webhook-events');
    await call('deleteWebhook', 'DELETE', `/webhooks/${webhook.id}`);
    const broadcast = await call('createBroadcast', 'POST', '/broadcasts', {
      segment_id: segment.id,
      from: 'bench@calls.example.com',
      subject: 'b',
      text: 'hi',
    });
    await call('updateBroadcast', 'PATCH', `/broadcasts/${broadcast.id}`, { subject: 'c' });
    await call('getBroadcast', 'GET', `/broadcasts/${broadcast.id}`);
    await call('sendBroadcast', 'POST', `/broadcasts/${broadcast.id}/send`, {
      scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await call('cancelBroadcast', 'POST', `/broadcasts/${broadcast.id}/cancel`);
    await call('listBroadcasts', 'GET', '/broadcasts');
    await call('listEvents', 'GET', '/events');
    const logs = await call('listLogs', 'GET', '/logs?limit=5');
    await call('getLog', 'GET', `/logs/${logs.data[0].id}`);
    await call('deleteSegment', 'DELETE', `/segments/${segment.id}`);
    await call('deleteDomain', 'DELETE', `/domains/${domain.id}`);
    return rows;
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Operations over the budget by design, and why (shown under the table; still counted as over). */
const WHY_OVER: Record<string, string> = {};

export function formatDynamoDbCalls(rows: CallRow[]): string {
  return [
    "Calls after the API-key lookup and the rate limit's count beside it (one GetItem and one UpdateItem, one round trip, on every authenticated request). Budget (DESIGN.md), for operations that write: at most one read round trip before the write (reads in parallel are one), the write one call (TransactWriteItems or PutItem/UpdateItem/DeleteItem). Calls a request makes after its write (an enqueue, a read for the answer) are listed too. Every authenticated request also puts its request log entry (one PutItem, shared/logs/request-log.ts) once its answer is decided, beside the rest of the pipeline: it is counted in its own column, not among the operation's writes nor in its budget (bench/request-log.ts measures its latency and write units).\n",
    '| operation | status | DynamoDB calls in order (entity) | read round trips before the write | writes | log write (after the answer) | budget |',
    '|---|---:|---|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${r.operation} | ${r.status} | ${r.calls.join(' → ') || '-'} | ${r.reads} | ${r.writes} | ${r.logWrites} | ${r.met === null ? 'read-only' : r.met ? 'met' : 'OVER'} |`,
    ),
    '',
    ...rows
      .filter((r) => r.met === false && WHY_OVER[r.operation.split(' (')[0]])
      .map((r) => `Why ${r.operation.split(' (')[0]} is over: ${WHY_OVER[r.operation.split(' (')[0]]}.`),
    '',
    `${rows.filter((r) => r.met).length} of ${rows.filter((r) => r.met !== null).length} writing operations within the budget; ${rows.filter((r) => r.met === null).length} read-only operations (no budget; their round trips are shown). ${rows.filter((r) => r.logWrites === 1).length} of ${rows.length} requests put exactly one request log entry after their answer.`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchDynamoDbCalls().then(
    (rows) => {
      console.log('## DynamoDB calls per API operation\n');
      console.log(formatDynamoDbCalls(rows));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
