/**
 * The send path at the sizes the gate no longer runs (issue 17; test/api/send-path-scale.test.ts
 * proves the same claims at smaller sizes), through the local runtime started in this process, with
 * a test-mode key: its mail never reaches the local SES, while the fan-out, the transactions, the
 * content store and the sender are live mail's.
 *
 * - Events: BENCH_SCALE_EMAILS (400) emails of 50 KB, in batches of 84 (under the 5 MB request
 *   limit), until the pipeline settled (`POST /_local/drain`: every email delivered, 4 events each);
 *   then GET /events: the size of its answer (the newest 1,000), its largest event, and whether any
 *   event carries a body, against Lambda's 6 MB response limit.
 * - Broadcast: BENCH_SCALE_CONTACTS (500) contacts in a segment (POST /contacts, 25 at a time), and a
 *   broadcast of 100 KB of html to them: recipients/s from the send to `sent` (the fan-out, pages of
 *   100 one after another at the local SES's 14/s: shared/broadcasts/fanout.ts), and the time until
 *   the pipeline settled with every email delivered; each recipient's email once.
 *
 * Run alone: `npx tsx bench/send-path-scale.ts`.
 */
import { startBenchApi } from './local-api';

const KEY = `es_live_${'S'.repeat(32)}`;
/** Lambda's synchronous response limit: what GET /events must stay under. */
const RESPONSE_LIMIT_BYTES = 6 * 1024 * 1024;

export interface SendPathScaleResult {
  events: {
    emails: number;
    emailKb: number;
    /** from the first batch to the pipeline settled */
    deliveredSeconds: number;
    answered: number;
    answerBytes: number;
    largestEventBytes: number;
    /** events whose `data.object` has an `html` */
    withBody: number;
    answerMs: number;
  };
  broadcast: {
    contacts: number;
    htmlKb: number;
    /** from the send to `sent` */
    fanOutSeconds: number;
    recipientsPerSecond: number;
    /** from the send to the pipeline settled */
    deliveredSeconds: number;
    status: string;
    counters: { recipients: number; sent: number; skipped: number; failed: number };
    delivered: number;
    distinctRecipients: number;
  };
}

const html = (kb: number, label: string) => `<p>${label}</p><p>${'x'.repeat(kb * 1024)}</p>`;
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

export async function benchSendPathScale(
  emails = Number(process.env.BENCH_SCALE_EMAILS ?? 400),
  contacts = Number(process.env.BENCH_SCALE_CONTACTS ?? 500),
): Promise<SendPathScaleResult> {
  const api = await startBenchApi('send-path-scale', KEY, { REPUTATION_MIN_SENDS: '1000000000' });
  try {
    const key = (await api.call('POST', '/api-keys', { name: 'scale', mode: 'test' })).token as string;
    const call = (method: string, path: string, body?: unknown) => api.call(method, path, body, key);
    const drain = () => api.call('POST', '/_local/drain', { timeout_seconds: 300 });
    const domain = (await call('POST', '/domains', { name: 'scale.example.com' })).name as string;
    /** The project's emails with this subject, read a page of 100 at a time. */
    const emailsWith = async (subject: string) => {
      const all: Record<string, any>[] = [];
      for (let after: string | undefined; ; ) {
        const page = await call('GET', `/emails?limit=100${after ? `&after=${after}` : ''}`);
        all.push(...page.data.filter((e: { subject: string }) => e.subject === subject));
        if (!page.has_more) return all;
        after = page.data.at(-1).id;
      }
    };

    // 1. events after `emails` emails of 50 KB
    const emailKb = 50;
    const started = process.hrtime.bigint();
    for (let first = 0; first < emails; first += 84) {
      const batch = Array.from({ length: Math.min(84, emails - first) }, (_, n) => ({
        from: `a@${domain}`,
        to: `r${first + n}@example.com`,
        subject: `Events ${first + n}`,
        html: html(emailKb, `email ${first + n}`),
      }));
      await call('POST', '/emails/batch', batch);
    }
    await drain();
    const deliveredSeconds = seconds(started);
    const asked = process.hrtime.bigint();
    const answer = await call('GET', '/events');
    const answerMs = seconds(asked) * 1000;
    const listed = answer.data as { data: { object: Record<string, unknown> } }[];
    const events = {
      emails,
      emailKb,
      deliveredSeconds,
      answered: listed.length,
      answerBytes: Buffer.byteLength(JSON.stringify(answer)),
      largestEventBytes: Math.max(...listed.map((e) => Buffer.byteLength(JSON.stringify(e)))),
      withBody: listed.filter((e) => 'html' in e.data.object).length,
      answerMs,
    };

    // 2. a broadcast of 100 KB to `contacts` contacts
    const segment = (await call('POST', '/segments', { name: 'everyone' })).id as string;
    for (let first = 0; first < contacts; first += 25)
      await Promise.all(
        Array.from({ length: Math.min(25, contacts - first) }, (_, n) =>
          call('POST', '/contacts', {
            email: `reader${first + n}@example.com`,
            first_name: `R${first + n}`,
            segments: [{ id: segment }],
          }),
        ),
      );
    const htmlKb = 100;
    const body = `<p>Hi {{{FIRST_NAME}}}</p>${html(htmlKb, 'newsletter')}<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>`;
    const broadcast = await call('POST', '/broadcasts', {
      segment_id: segment,
      from: `News <news@${domain}>`,
      subject: 'The big one',
      html: body,
    });
    const sent = process.hrtime.bigint();
    await call('POST', `/broadcasts/${broadcast.id}/send`, {});
    let done: Record<string, any> = broadcast;
    let fanOutSeconds = 0;
    // the fan-out's end, read every 200 ms while the drain waits for every email to be delivered
    const fanOut = async () => {
      while (!['sent', 'failed'].includes(done.status)) {
        await new Promise((r) => setTimeout(r, 200));
        done = await call('GET', `/broadcasts/${broadcast.id}`);
      }
      fanOutSeconds = seconds(sent);
    };
    await Promise.all([fanOut(), drain()]);
    const broadcastDelivered = seconds(sent);
    const received = await emailsWith('The big one');
    return {
      events,
      broadcast: {
        contacts,
        htmlKb,
        fanOutSeconds,
        recipientsPerSecond: done.counters.recipients / fanOutSeconds,
        deliveredSeconds: broadcastDelivered,
        status: done.status,
        counters: done.counters,
        delivered: received.filter((e) => e.last_event === 'delivered').length,
        distinctRecipients: new Set(received.map((e) => e.to[0])).size,
      },
    };
  } finally {
    await api.stop();
  }
}

/** GET /events answered the newest 1,000, none with a body, under Lambda's response limit. */
export const eventsAnswerMet = (r: SendPathScaleResult): boolean =>
  r.events.answered === 1000 && r.events.withBody === 0 && r.events.answerBytes < RESPONSE_LIMIT_BYTES;

/** Every contact got the broadcast once, delivered. */
export const scaleBroadcastMet = ({ broadcast: b }: SendPathScaleResult): boolean =>
  b.status === 'sent' &&
  b.counters.recipients === b.contacts &&
  b.counters.sent === b.contacts &&
  b.delivered === b.contacts &&
  b.distinctRecipients === b.contacts;

export function formatSendPathScale(r: SendPathScaleResult): string {
  const { events: e, broadcast: b } = r;
  return [
    'Through the local runtime with a test-mode key (the fan-out, transactions, content store and sender of live mail; no SES).\n',
    '| what | figure |',
    '|---|---|',
    `| ${e.emails} emails of ${e.emailKb} KB, batches of 84, to every one delivered | ${e.deliveredSeconds.toFixed(1)} s (${(e.emails / e.deliveredSeconds).toFixed(0)} emails/s) |`,
    `| GET /events after them: the newest ${e.answered.toLocaleString('en')} events | ${(e.answerBytes / 1024).toFixed(0)} KB (largest event ${e.largestEventBytes} bytes; ${e.withBody} with a body), answered in ${e.answerMs.toFixed(0)} ms |`,
    `| a broadcast of ${b.htmlKb} KB to ${b.contacts} contacts: the fan-out, send to \`sent\` | ${b.fanOutSeconds.toFixed(1)} s (${b.recipientsPerSecond.toFixed(1)} recipients/s) |`,
    `| the same, send to every email delivered | ${b.deliveredSeconds.toFixed(1)} s (${(b.delivered / b.deliveredSeconds).toFixed(1)} emails/s) |`,
    '',
    `GET /events: ${eventsAnswerMet(r) ? 'MET' : 'NOT MET'} (the newest 1,000, none with a body, under the ${RESPONSE_LIMIT_BYTES / 2 ** 20} MB Lambda may answer). ` +
      `Broadcast: status ${b.status}; counters ${b.counters.recipients} / ${b.counters.sent} / ${b.counters.skipped} / ${b.counters.failed} (recipients / sent / skipped / failed); ` +
      `${b.delivered} delivered to ${b.distinctRecipients} distinct recipients (${scaleBroadcastMet(r) ? 'MET' : 'NOT MET'}: every contact once). ` +
      `Measured ${new Date().toISOString().slice(0, 10)}; run alone: \`npx tsx bench/send-path-scale.ts\` (BENCH_SCALE_EMAILS, BENCH_SCALE_CONTACTS).`,
  ].join('\n');
}

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  benchSendPathScale().then(
    (result) => {
      console.log('## The send path at scale\n');
      console.log(formatSendPathScale(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
