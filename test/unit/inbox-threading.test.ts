/**
 * Threading of inbox messages (shared/inboxes/threading.ts): the normalized forms, the rules
 * against a fake store, and the corpus of client formats (test/fixtures/threading/, its README),
 * read with the service's own parser and filed in arrival order through an in-memory store that
 * answers as the database keys do.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ArrivingMessage,
  bareAddressOf,
  chooseThread,
  hasReplyPrefix,
  normalizeMessageId,
  normalizeSubject,
  participantsOf,
  referencedMessageIds,
  SUBJECT_WINDOW_MS,
  subjectPrefixKind,
  type ThreadingStore,
} from '../../shared/inboxes/threading';
import { parseMessage } from '../../shared/receiving/mime';

const INBOX = 'support@acme.test';
const DAY = 24 * 60 * 60 * 1000;

describe('normalizeSubject', () => {
  it.each([
    ['Re: Help', 'help'],
    ['RE: Help', 'help'],
    ['re: help', 'help'],
    ['Fwd: Help', 'help'],
    ['FW: Help', 'help'],
    ['Fw: Help', 'help'],
    ['AW: Rechnung', 'rechnung'],
    ['WG: Rechnung', 'rechnung'],
    ['SV: Faktura', 'faktura'],
    ['VB: Faktura', 'faktura'],
    ['VS: Lasku', 'lasku'],
    ['Vs: Lasku', 'lasku'],
    ['VL: Lasku', 'lasku'],
    ['Antw: Factuur', 'factuur'],
    ['Doorst: Factuur', 'factuur'],
    ['TR: Facture', 'facture'],
    ['RE : Facture', 'facture'],
    ['RE\u00a0: Facture', 'facture'],
    ['RV: Factura', 'factura'],
    ['RES: Fatura', 'fatura'],
    ['ENC: Fatura', 'fatura'],
    ['Odp: Faktura', 'faktura'],
    ['ODP: Faktura', 'faktura'],
    ['PD: Faktura', 'faktura'],
    ['YNT: Fatura', 'fatura'],
    ['İLT: Fatura', 'fatura'],
    ['ILT: Fatura', 'fatura'],
    ['ΑΠ: Τιμολόγιο', 'τιμολόγιο'],
    ['ΣΧΕΤ: Τιμολόγιο', 'τιμολόγιο'],
    ['ΠΡΘ: Τιμολόγιο', 'τιμολόγιο'],
    ['Отв: Счёт', 'счёт'],
    ['Ответ: Счёт', 'счёт'],
    ['Пересл: Счёт', 'счёт'],
    ['回复：发票', '发票'],
    ['回复: 发票', '发票'],
    ['回覆: 發票', '發票'],
    ['答复: 发票', '发票'],
    ['转发: 发票', '发票'],
    ['轉寄: 發票', '發票'],
    ['返信: 請求書', '請求書'],
    ['転送: 請求書', '請求書'],
    ['회신: 청구서', '청구서'],
    ['전달: 청구서', '청구서'],
    ['R: Fattura', 'fattura'],
    ['I: Fattura', 'fattura'],
  ])('strips the prefix of %j', (subject, normalized) => {
    expect(normalizeSubject(subject)).toBe(normalized);
    expect(hasReplyPrefix(subject)).toBe(true);
  });

  it('strips any number and mix of prefixes, with counters, in any case', () => {
    expect(normalizeSubject('Re: Fwd: RE: AW: SV: Help')).toBe('help');
    expect(normalizeSubject('RE:RE:Help')).toBe('help');
    expect(normalizeSubject('Re[2]: Help')).toBe('help');
    expect(normalizeSubject('Re [3]: Help')).toBe('help');
    expect(normalizeSubject('RE^2: Help')).toBe('help');
    expect(normalizeSubject('Re(4): Help')).toBe('help');
    expect(normalizeSubject('Ответ: Отв: Re[2]: Help')).toBe('help');
    expect(normalizeSubject('回复： 回复：Help')).toBe('help');
    expect(normalizeSubject('Ｒｅ：Help')).toBe('help');
  });

  it('keeps bracketed list tags in front, once, wherever the prefixes are', () => {
    expect(normalizeSubject('[support] Re: Help')).toBe('[support] help');
    expect(normalizeSubject('Re: [support] Help')).toBe('[support] help');
    expect(normalizeSubject('Re: [support] Re: [Support] Help')).toBe('[support] help');
    expect(normalizeSubject('RE: [EXTERNAL] Re: Quote')).toBe('[external] quote');
    expect(normalizeSubject('[partners]')).toBe('[partners]');
  });

  it('reads the old forward forms "[Fwd: x]" and "x (fwd)"', () => {
    expect(normalizeSubject('[Fwd: Help]')).toBe('help');
    expect(normalizeSubject('Help (fwd)')).toBe('help');
    expect(subjectPrefixKind('Help (fwd)')).toBe('forward');
  });

  it('collapses whitespace and lower-cases', () => {
    expect(normalizeSubject('  RE:   CANNOT  EXPORT\tCSV \r\n ')).toBe('cannot export csv');
    expect(normalizeSubject('Order\u200b 42')).toBe('order 42');
  });

  it('counts a prefix only when a colon follows', () => {
    for (const subject of [
      'Re Help',
      'Return policy',
      'Fwd Help',
      'Reply: x',
      'FYI: x',
      'Ire: x',
      'RE2: x',
      'Invoice',
    ]) {
      expect(hasReplyPrefix(subject)).toBe(false);
      expect(normalizeSubject(subject)).toBe(subject.toLowerCase());
    }
  });

  it('gives the empty subject for nothing or prefixes only', () => {
    expect(normalizeSubject(null)).toBe('');
    expect(normalizeSubject(undefined)).toBe('');
    expect(normalizeSubject('')).toBe('');
    expect(normalizeSubject('Re:')).toBe('');
    expect(normalizeSubject('Re: Fwd: ')).toBe('');
    expect(hasReplyPrefix(null)).toBe(false);
  });

  it('tells a reply from a forward by the outermost prefix', () => {
    expect(subjectPrefixKind('Re: Fwd: x')).toBe('reply');
    expect(subjectPrefixKind('Fwd: Re: x')).toBe('forward');
    expect(subjectPrefixKind('[list] AW: x')).toBe('reply');
    expect(subjectPrefixKind('WG: AW: x')).toBe('forward');
    expect(subjectPrefixKind('RV: x')).toBe('forward');
    expect(subjectPrefixKind('R: x')).toBe('reply');
    expect(subjectPrefixKind('x')).toBeUndefined();
  });
});

describe('normalizeMessageId', () => {
  it('trims, drops the brackets and lower-cases', () => {
    expect(normalizeMessageId(' <CAF1x+Y=z@Mail.Gmail.com> ')).toBe('caf1x+y=z@mail.gmail.com');
    expect(normalizeMessageId('abc@example.org')).toBe('abc@example.org');
    expect(normalizeMessageId('<abc@example.org')).toBe('abc@example.org');
    expect(normalizeMessageId('abc@example.org>')).toBe('abc@example.org');
  });

  it("is '' for something that is no id", () => {
    for (const value of ['', '   ', '<>', 'unknown', '<unknown>', '@example.org', 'abc@', '<a b@c>', 'undefined']) {
      expect(normalizeMessageId(value)).toBe('');
    }
  });
});

describe('referencedMessageIds', () => {
  it("takes In-Reply-To's ids first, then References' from the newest", () => {
    expect(referencedMessageIds('<c@x>', '<a@x> <b@x> <c@x>')).toEqual(['c@x', 'b@x', 'a@x']);
    expect(referencedMessageIds(null, '<a@x> <b@x>')).toEqual(['b@x', 'a@x']);
    expect(referencedMessageIds('<b@x>', null)).toEqual(['b@x']);
    expect(referencedMessageIds('<d@x> <c@x>', '<a@x>')).toEqual(['d@x', 'c@x', 'a@x']);
  });

  it('reads ids without brackets, separated by commas, whitespace or newlines', () => {
    expect(referencedMessageIds('c@x', 'a@x b@x')).toEqual(['c@x', 'b@x', 'a@x']);
    expect(referencedMessageIds(null, '<a@x>,<b@x>, <c@x>')).toEqual(['c@x', 'b@x', 'a@x']);
    expect(referencedMessageIds('<c@x>,', '<a@x>\r\n\t<b@x>\n <c@x>')).toEqual(['c@x', 'b@x', 'a@x']);
    expect(referencedMessageIds(null, '<a@x><b@x>')).toEqual(['b@x', 'a@x']);
  });

  it('drops comments, nested ones too, and junk between the ids', () => {
    expect(referencedMessageIds(`<c@x> (Jane's message of "Mon, 6 Jan 2025 10:00:00 +0000")`, null)).toEqual(['c@x']);
    expect(referencedMessageIds('Your message of "Mon, 6 Jan 2025 10:00:00 +0000" <c@x>', null)).toEqual(['c@x']);
    expect(referencedMessageIds(null, '<a@x> (first (nested) <n@comment.example>) <b@x>')).toEqual(['b@x', 'a@x']);
    expect(referencedMessageIds('undefined', 'undefined, <a@x> [object Object] ;; <b@x> =?utf-8?q?junk?=')).toEqual([
      'b@x',
      'a@x',
    ]);
    expect(referencedMessageIds('<<c@x>>', 'null')).toEqual(['c@x']);
  });

  it('reads a header cut off before its closing bracket, and an unclosed comment', () => {
    expect(referencedMessageIds(null, '<a@x> <b@x')).toEqual(['b@x', 'a@x']);
    expect(referencedMessageIds(null, '<a@x> (oops <b@x>')).toEqual(['b@x', 'a@x']);
  });

  it('deduplicates ids across both headers and case', () => {
    expect(referencedMessageIds('<A@X>', '<a@x> <B@x> <a@X>')).toEqual(['a@x', 'b@x']);
  });

  it('keeps at most 20, the newest', () => {
    const refs = Array.from({ length: 30 }, (_, i) => `<m${i}@x>`).join(' ');
    const ids = referencedMessageIds('<m29@x>', refs);
    expect(ids).toHaveLength(20);
    expect(ids[0]).toBe('m29@x');
    expect(ids[19]).toBe('m10@x');
  });

  it('gives nothing for missing or empty headers', () => {
    expect(referencedMessageIds(null, undefined)).toEqual([]);
    expect(referencedMessageIds('', '<>')).toEqual([]);
    expect(referencedMessageIds('   ', '\r\n ')).toEqual([]);
  });
});

describe('bareAddressOf and participantsOf', () => {
  it('reads the bare lower-cased address', () => {
    expect(bareAddressOf('Jane Doe <Jane.Doe@Example.ORG>')).toBe('jane.doe@example.org');
    expect(bareAddressOf('jane@example.org')).toBe('jane@example.org');
    expect(bareAddressOf('"Doe, <J>" <jane@example.org>')).toBe('jane@example.org');
    expect(bareAddressOf('"a@b.example" <real@example.org>')).toBe('real@example.org');
    expect(bareAddressOf('jane@example.org (Jane)')).toBe('jane@example.org');
    expect(bareAddressOf('<mailto:jane@example.org>')).toBe('jane@example.org');
    expect(bareAddressOf('undisclosed-recipients:;')).toBe('');
    expect(bareAddressOf('')).toBe('');
  });

  it("lists from, to and cc without the inbox's own address, deduplicated, at most 10", () => {
    expect(
      participantsOf(
        {
          from: 'Jane <JANE@example.org>',
          to: ['Support <Support@Acme.test>', 'bob@example.org'],
          cc: ['jane@example.org', 'Carol <carol@example.org>', 'not an address'],
        },
        INBOX,
      ),
    ).toEqual(['jane@example.org', 'bob@example.org', 'carol@example.org']);
    const many = Array.from({ length: 15 }, (_, i) => `p${i}@example.org`);
    expect(participantsOf({ from: 'a@example.org', to: many, cc: [] }, 'Acme <support@acme.test>')).toHaveLength(10);
    expect(participantsOf({ from: INBOX, to: [INBOX], cc: [] }, INBOX)).toEqual([]);
  });
});

/** A fake store: fixed answers, and the questions asked. */
function fakeStore(byId: Record<string, string>, bySubject: Record<string, string>) {
  const asked: { ids: string[][]; subjects: [string, string, number][] } = { ids: [], subjects: [] };
  const store: ThreadingStore = {
    threadOfMessageIds: async (ids) => {
      asked.ids.push(ids);
      return ids.map((id) => byId[id]).find(Boolean);
    },
    threadOfSubject: async (subject, participant, sinceMs) => {
      asked.subjects.push([subject, participant, sinceMs]);
      return bySubject[`${subject}|${participant}`];
    },
  };
  return { store, asked };
}

const NOW = Date.parse('2025-03-01T12:00:00Z');
const arriving = (fields: Partial<ArrivingMessage>): ArrivingMessage => ({
  subject: 'Re: Help',
  message_id: '<new@example.org>',
  in_reply_to: null,
  references: null,
  from: 'Jane <jane@example.org>',
  to: [`Acme Support <${INBOX}>`],
  cc: [],
  received_at_ms: NOW,
  ...fields,
});

describe('chooseThread', () => {
  it('follows the headers first, most specific id first, whatever the subject', async () => {
    const { store, asked } = fakeStore({ 'b@x': 'T-B', 'a@x': 'T-A' }, { 'help|jane@example.org': 'T-S' });
    const choice = await chooseThread(
      arriving({ subject: 'Something else entirely', in_reply_to: '<c@x>', references: '<a@x> <b@x> <c@x>' }),
      INBOX,
      store,
    );
    expect(choice).toEqual({ threadId: 'T-B', by: 'headers' });
    // its own id last: a message filed before it may have named it
    expect(asked.ids).toEqual([['c@x', 'b@x', 'a@x', 'new@example.org']]);
    expect(asked.subjects).toEqual([]);
  });

  it("joins the thread of a message filed before it that named it (its own id), when it names none of the inbox's", async () => {
    const { store } = fakeStore({ 'new@example.org': 'T-R' }, {});
    expect(await chooseThread(arriving({ subject: 'Refund', in_reply_to: '<gone@x>' }), INBOX, store)).toEqual({
      threadId: 'T-R',
      by: 'headers',
    });
    expect(await chooseThread(arriving({ subject: 'Refund' }), INBOX, store)).toEqual({
      threadId: 'T-R',
      by: 'headers',
    });
  });

  it('falls back to the subject for a reply whose headers are missing, within the window', async () => {
    const { store, asked } = fakeStore({}, { 'help|jane@example.org': 'T-S' });
    expect(await chooseThread(arriving({}), INBOX, store)).toEqual({ threadId: 'T-S', by: 'subject' });
    expect(asked.ids).toEqual([['new@example.org']]);
    expect(asked.subjects).toEqual([['help', 'jane@example.org', NOW - SUBJECT_WINDOW_MS]]);
    expect(SUBJECT_WINDOW_MS).toBe(14 * DAY);
  });

  it('falls back to the subject for a reply whose referenced ids are unknown', async () => {
    const { store } = fakeStore({}, { 'help|jane@example.org': 'T-S' });
    expect(await chooseThread(arriving({ in_reply_to: '<gone@x>' }), INBOX, store)).toEqual({
      threadId: 'T-S',
      by: 'subject',
    });
  });

  it('takes the fallback without a prefix only when the message references unknown ids', async () => {
    const { store, asked } = fakeStore({}, { 'invoice|jane@example.org': 'T-S' });
    expect(await chooseThread(arriving({ subject: 'Invoice' }), INBOX, store)).toEqual({
      threadId: undefined,
      by: 'new',
    });
    expect(asked.subjects).toEqual([]);
    expect(await chooseThread(arriving({ subject: 'Invoice', references: '<ticket-1@x>' }), INBOX, store)).toEqual({
      threadId: 'T-S',
      by: 'subject',
    });
  });

  it('never takes the fallback for a forward', async () => {
    const { store, asked } = fakeStore({}, { 'help|jane@example.org': 'T-S' });
    for (const subject of ['Fwd: Help', 'WG: Help', 'Fwd: Re: Help', '[Fwd: Help]']) {
      expect(await chooseThread(arriving({ subject, references: '<unknown@x>' }), INBOX, store)).toEqual({
        threadId: undefined,
        by: 'new',
      });
    }
    expect(asked.subjects).toEqual([]);
  });

  it('keeps two senders of the same subject apart: the participant must match', async () => {
    const { store } = fakeStore({}, { 'help|jane@example.org': 'T-JANE' });
    expect(await chooseThread(arriving({ from: 'Sam <sam@example.org>' }), INBOX, store)).toEqual({
      threadId: undefined,
      by: 'new',
    });
  });

  it('tries the participants in order (from, to, cc), the inbox never', async () => {
    const { store, asked } = fakeStore({}, { 'help|carol@example.org': 'T-C', 'help|bob@example.org': 'T-B' });
    const choice = await chooseThread(
      arriving({ to: [INBOX, 'carol@example.org'], cc: ['bob@example.org'] }),
      'Acme <support@acme.test>',
      store,
    );
    expect(choice).toEqual({ threadId: 'T-C', by: 'subject' });
    expect(asked.subjects.map(([, participant]) => participant)).toEqual(['jane@example.org', 'carol@example.org']);
  });

  it('starts a new thread for an empty normalized subject', async () => {
    const { store, asked } = fakeStore({}, { '|jane@example.org': 'T-S' });
    for (const subject of ['', 'Re:', null]) {
      expect(await chooseThread(arriving({ subject }), INBOX, store)).toEqual({ threadId: undefined, by: 'new' });
    }
    expect(asked.subjects).toEqual([]);
  });

  it('starts a new thread when nothing matches', async () => {
    const { store } = fakeStore({}, {});
    expect(await chooseThread(arriving({ references: '<a@x>' }), INBOX, store)).toEqual({
      threadId: undefined,
      by: 'new',
    });
  });
});

// ------------------------------------------------------------------ the corpus

interface ManifestEntry {
  file: string;
  conversation: string;
  direction: 'inbound' | 'outbound';
  received_at: string;
  client: string;
  case: string;
}

/**
 * The store as the keys answer: a Message-ID's item names its thread; a (subject, participant)
 * item names the newest thread and the time of its last message with that participant, put again
 * with every message (the last write is the newest thread).
 */
class KeyStore implements ThreadingStore {
  private readonly byId = new Map<string, string>();
  private readonly bySubject = new Map<string, { threadId: string; lastMs: number }>();

  async threadOfMessageIds(ids: string[]): Promise<string | undefined> {
    for (const id of ids) {
      const threadId = this.byId.get(id);
      if (threadId) return threadId;
    }
    return undefined;
  }

  async threadOfSubject(normalizedSubject: string, participant: string, sinceMs: number): Promise<string | undefined> {
    const item = this.bySubject.get(`${normalizedSubject}\n${participant}`);
    return item && item.lastMs >= sinceMs ? item.threadId : undefined;
  }

  /** what filing a message into a thread puts */
  record(threadId: string, message: ArrivingMessage): void {
    const id = normalizeMessageId(message.message_id ?? '');
    if (id) this.byId.set(id, threadId);
    const subject = normalizeSubject(message.subject);
    if (!subject) return;
    for (const participant of participantsOf(message, INBOX)) {
      this.bySubject.set(`${subject}\n${participant}`, { threadId, lastMs: message.received_at_ms });
    }
  }
}

describe('the threading corpus (test/fixtures/threading)', () => {
  const dir = join(__dirname, '..', 'fixtures', 'threading');
  const manifest: ManifestEntry[] = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));

  it('lists every message file once, in arrival order, from all four clients', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
    expect(manifest.map((e) => e.file).sort()).toEqual(files.sort());
    expect(new Set(manifest.map((e) => e.file)).size).toBe(manifest.length);
    expect(manifest.length).toBeGreaterThanOrEqual(200);
    const times = manifest.map((e) => Date.parse(e.received_at));
    expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]))).toBe(true);
    const clients = new Set(manifest.filter((e) => e.direction === 'inbound').map((e) => e.client));
    for (const client of ['gmail', 'outlook', 'apple-mail', 'thunderbird']) expect(clients).toContain(client);
  });

  it('files at least 99% of the messages into their conversation, and never merges two conversations', async () => {
    const store = new KeyStore();
    let threads = 0;
    const latestThreadOf = new Map<string, string>();
    const filed: { entry: ManifestEntry; threadId: string; by: string; started: boolean }[] = [];
    for (const entry of manifest) {
      const parsed = await parseMessage(readFileSync(join(dir, entry.file)));
      const message: ArrivingMessage = {
        subject: parsed.subject,
        message_id: parsed.message_id,
        in_reply_to: parsed.headers['in-reply-to'] ?? null,
        references: parsed.headers.references ?? null,
        from: parsed.from,
        to: parsed.to,
        cc: parsed.cc,
        received_at_ms: Date.parse(entry.received_at),
      };
      let threadId: string | undefined;
      let by: string;
      if (entry.direction === 'outbound') {
        // the service files its answer into the thread it answers, and records its Message-ID
        threadId = latestThreadOf.get(entry.conversation);
        by = 'outbound';
      } else {
        ({ threadId, by } = await chooseThread(message, INBOX, store));
      }
      const started = threadId === undefined;
      threadId ??= `T${++threads}`;
      store.record(threadId, message);
      latestThreadOf.set(entry.conversation, threadId);
      filed.push({ entry, threadId, by, started });
    }

    const firstThread = new Map<string, string>();
    const conversationsIn = new Map<string, Set<string>>();
    for (const { entry, threadId } of filed) {
      if (!firstThread.has(entry.conversation)) firstThread.set(entry.conversation, threadId);
      conversationsIn.set(threadId, (conversationsIn.get(threadId) ?? new Set()).add(entry.conversation));
    }
    const correct = (f: (typeof filed)[number]) =>
      f.threadId === firstThread.get(f.entry.conversation) &&
      conversationsIn.get(f.threadId)!.size === 1 &&
      (filed.find((g) => g.entry.conversation === f.entry.conversation) !== f || f.started);
    const right = filed.filter(correct);
    const inbound = filed.filter((f) => f.entry.direction === 'inbound');
    const inboundRight = inbound.filter(correct);
    const count = (by: string) => inbound.filter((f) => f.by === by).length;
    const misses = filed.filter((f) => !correct(f)).map((f) => `${f.entry.file} (${f.by})`);
    const merged = [...conversationsIn].filter(([, labels]) => labels.size > 1).map(([, labels]) => [...labels]);
    const percent = (n: number, d: number) => ((100 * n) / d).toFixed(1);
    console.log(
      `threading corpus: ${right.length}/${filed.length} messages in their conversation's thread (${percent(right.length, filed.length)}%); ` +
        `inbound ${inboundRight.length}/${inbound.length} (${percent(inboundRight.length, inbound.length)}%), ` +
        `by headers ${count('headers')}, subject ${count('subject')}, new ${count('new')}; ` +
        `${firstThread.size} conversations; misses: ${misses.join(', ') || 'none'}`,
    );

    expect(merged).toEqual([]);
    expect(right.length / filed.length).toBeGreaterThanOrEqual(0.99);
    expect(inboundRight.length / inbound.length).toBeGreaterThanOrEqual(0.99);
    // each rule is exercised by the corpus
    expect(count('headers')).toBeGreaterThan(50);
    expect(count('subject')).toBeGreaterThan(20);
    expect(count('new')).toBeGreaterThan(20);
  });
});
