import { gzipSync } from 'node:zlib';
import {
  containsPhrase,
  highlights,
  type IndexedMessage,
  InboxSearchIndex,
  mergeSerialized,
  parseQuery,
  type SearchFilters,
  SearchIndexVersionError,
  textOfHtml,
} from '#shared/inboxes/search-index';
import { random, vocabulary } from '../../bench/synthetic-mail';

const idOf = (n: number) => `01900000-0000-7000-8000-${String(n).padStart(12, '0')}`;
let next = 0;
const message = (fields: Partial<IndexedMessage> = {}): IndexedMessage => ({
  id: idOf(++next),
  thread_id: 'thread-1',
  subject: '',
  from: 'Alice Liddell <alice@example.com>',
  to: ['bob@example.org'],
  cc: [],
  bcc: [],
  text: '',
  received_at: '2024-05-01T10:00:00.000Z',
  has_attachment: false,
  ...fields,
});

/** An index of the messages, and a search that answers their ids. */
function indexOf(...messages: IndexedMessage[]) {
  const index = InboxSearchIndex.create();
  for (const m of messages) index.add(m);
  const ids = (filters: SearchFilters | string) =>
    index.search(typeof filters === 'string' ? { query: filters } : filters).map((hit) => hit.message_id);
  return { index, ids };
}

describe('parseQuery', () => {
  it('reads words, phrases and exclusions', () => {
    expect(parseQuery('invoice "quarterly report" -draft -"out of office" march')).toEqual({
      words: ['invoice', 'march'],
      phrases: ['quarterly report'],
      excludedWords: ['draft'],
      excludedPhrases: ['out of office'],
    });
  });

  it('tolerates unbalanced quotes, repeated spaces, lone dashes, typographic quotes and unicode', () => {
    expect(parseQuery('  a   "b  c')).toEqual({
      words: ['a'],
      phrases: ['b c'],
      excludedWords: [],
      excludedPhrases: [],
    });
    expect(parseQuery('- foo -  "" " " -"" bar -')).toEqual({
      words: ['foo', 'bar'],
      phrases: [],
      excludedWords: [],
      excludedPhrases: [],
    });
    expect(parseQuery('\u201cnext week\u201d Café 你好\u3000-世界 e-mail --x !!!')).toEqual({
      words: ['Café', '你好', 'e-mail'],
      phrases: ['next week'],
      excludedWords: ['世界', 'x'],
      excludedPhrases: [],
    });
    expect(parseQuery('')).toEqual({ words: [], phrases: [], excludedWords: [], excludedPhrases: [] });
    expect(parseQuery('same SAME same')).toMatchObject({ words: ['same'] });
  });
});

describe('InboxSearchIndex.search: the query', () => {
  const both = message({ subject: 'Invoice for March', text: 'Please find the invoice attached.' });
  const invoiceOnly = message({ subject: 'Invoice', text: 'For April this time.' });
  const marchOnly = message({ subject: 'Plans', text: 'See you in march.' });
  const { ids } = indexOf(both, invoiceOnly, marchOnly);

  it('ANDs the words, over subject and body, case-insensitively', () => {
    expect(ids('invoice march')).toEqual([both.id]);
    expect(ids('MARCH')).toEqual(expect.arrayContaining([both.id, marchOnly.id]));
    expect(ids('MARCH')).toHaveLength(2);
    expect(ids('invoice march nowhere')).toEqual([]);
  });

  it('matches the last word as a prefix, and only the last', () => {
    expect(ids('invo')).toHaveLength(2);
    expect(ids('march invo')).toEqual([both.id]);
    expect(ids('invo march')).toEqual([]);
  });

  it('finds phrase candidates by their words, and containsPhrase keeps the exact phrase', () => {
    const exact = message({ text: 'The Quarterly   Report is ready.' });
    const apart = message({ text: 'The report for this quarterly meeting.' });
    const neither = message({ text: 'Nothing to see.' });
    const { ids: search } = indexOf(exact, apart, neither);
    const texts = new Map([exact, apart, neither].map((m) => [m.id, m.text]));
    const candidates = search('"quarterly report"');
    expect(candidates.sort()).toEqual([exact.id, apart.id].sort());
    expect(candidates.filter((id) => containsPhrase(texts.get(id) ?? '', 'quarterly report'))).toEqual([exact.id]);
    expect(search('"quarterly repo"')).toEqual([]); // no prefix inside a phrase
  });

  it('excludes words and phrases (a phrase when all its words are there)', () => {
    const draft = message({ subject: 'Report draft', text: 'out of office until monday' });
    const final = message({ subject: 'Report final', text: 'in the office' });
    const { ids: search } = indexOf(draft, final);
    expect(search('report -draft')).toEqual([final.id]);
    expect(search('report -"out of office"')).toEqual([final.id]);
    expect(search('report -"out of reach"')).toHaveLength(2);
    expect(search('-draft')).toEqual([final.id]); // exclusions alone: everything else
  });

  it('searches the addresses, the names and the attachment names', () => {
    const m = message({
      from: 'Zoë Carter <zoe.carter@acme.io>',
      to: ['Dan <dan@corp.example>'],
      cc: ['carol@cc.example'],
      bcc: ['hidden@bcc.example'],
      attachment_names: ['Q3_forecast.xlsx'],
    });
    const { ids: search } = indexOf(m, message({ text: 'unrelated' }));
    for (const q of ['zoe', 'Zoë', 'carter', 'acme', 'dan', 'carol', 'hidden', 'forecast', 'xlsx', 'q3']) {
      expect({ q, ids: search(q) }).toEqual({ q, ids: [m.id] });
    }
  });

  it('finds an address whole, by its parts and by its start, and not by another address', () => {
    const fromAlice = message({ from: 'Alice <alice@example.com>', to: ['bob@example.org'] });
    const inBody = message({ from: 'eve@other.test', to: ['x@y.test'], text: 'Write to <alice@example.com>.' });
    const other = message({ from: 'alice@example.org', to: ['carl@example.com'] });
    const { ids: search } = indexOf(fromAlice, inBody, other);
    expect(search('alice@example.com').sort()).toEqual([fromAlice.id, inBody.id].sort());
    expect(search('ALICE@EXAMPLE.COM,').sort()).toEqual([fromAlice.id, inBody.id].sort());
    expect(search('alice').sort()).toEqual([fromAlice.id, inBody.id, other.id].sort());
    expect(search('alice@exa')).toHaveLength(3); // the start of an address, as the last word
    expect(search('alice@example.org')).toEqual([other.id]);
    expect(search('bob@example.org')).toEqual([fromAlice.id]);
  });

  it('folds accents both ways', () => {
    const cafe = message({ text: 'Rendez-vous au Café Über' });
    const plain = message({ text: 'cafe naive resume' });
    const { ids: search } = indexOf(cafe, plain);
    expect(search('cafe').sort()).toEqual([cafe.id, plain.id].sort());
    expect(search('CAFÉ')).toHaveLength(2);
    expect(search('uber')).toEqual([cafe.id]);
    expect(search('naïve résumé')).toEqual([plain.id]);
  });

  it('finds Chinese and Japanese words inside runs without spaces (bigrams)', () => {
    const zh = message({ subject: '你好世界', text: '我们明天见面' });
    const ja = message({ text: '東京タワーに行きました' });
    const { ids: search } = indexOf(zh, ja);
    expect(search('世界')).toEqual([zh.id]);
    expect(search('你好')).toEqual([zh.id]);
    expect(search('明天')).toEqual([zh.id]);
    expect(search('世')).toEqual([zh.id]); // one character: by prefix
    expect(search('界')).toEqual([zh.id]); // the last one of its run too
    expect(search('世你')).toEqual([]);
    expect(search('タワー')).toEqual([ja.id]);
    expect(search('東京 タワー')).toEqual([ja.id]);
    expect(search('"東京タワー"')).toEqual([ja.id]);
    expect(containsPhrase(ja.text, '東京タワー')).toBe(true);
    expect(containsPhrase(ja.text, '東京 タワー')).toBe(true);
    expect(containsPhrase(ja.text, 'タワー東京')).toBe(false);
  });

  it('answers the matched index terms with each hit', () => {
    const m = message({ text: 'Invoices and the invoice' });
    const { index } = indexOf(m);
    expect(index.search({ query: 'invoic' })[0].terms.sort()).toEqual(['invoice', 'invoices']);
    expect(index.search({ query: '' })).toEqual([expect.objectContaining({ message_id: m.id, terms: [] })]);
  });
});

describe('InboxSearchIndex.search: filters and order', () => {
  const a = message({
    from: 'Alice Liddell <alice@example.com>',
    to: ['Bob <bob@example.org>', 'team@lists.example'],
    cc: ['carol@cc.example'],
    received_at: '2024-03-01T00:00:00.000Z',
    has_attachment: true,
    text: 'hello',
  });
  const b = message({
    from: 'dave@example.net',
    to: ['erin@example.org'],
    bcc: ['frank@secret.example'],
    received_at: '2024-03-31T23:59:59.999Z',
    text: 'hello',
  });
  const c = message({ from: 'ALICE@EXAMPLE.COM', to: ['gina@example.org'], received_at: '2024-04-01T00:00:00.000Z' });
  const { ids } = indexOf(a, b, c);

  it('from/to/cc/bcc: any value a case-insensitive substring of any entry, names included', () => {
    expect(ids({ from: ['alice@example.com'] })).toEqual([c.id, a.id]);
    expect(ids({ from: ['LIDDELL'] })).toEqual([a.id]);
    expect(ids({ from: ['nobody', 'example.net'] })).toEqual([b.id]);
    expect(ids({ to: ['team@'] })).toEqual([a.id]);
    expect(ids({ to: ['example.org'] })).toEqual([c.id, b.id, a.id]);
    expect(ids({ cc: ['carol'] })).toEqual([a.id]);
    expect(ids({ bcc: ['secret'] })).toEqual([b.id]);
    expect(ids({ bcc: ['carol'] })).toEqual([]);
    expect(ids({ from: ['alice'], to: ['gina'] })).toEqual([c.id]);
    expect(ids({ from: [] })).toHaveLength(3); // an empty list filters nothing
  });

  it('has_attachment', () => {
    expect(ids({ has_attachment: true })).toEqual([a.id]);
    expect(ids({ has_attachment: false })).toEqual([c.id, b.id]);
  });

  it('start_date and end_date, inclusive; a date alone ends at the end of its day', () => {
    expect(ids({ start_date: '2024-03-01', end_date: '2024-03-31' })).toEqual([b.id, a.id]);
    expect(ids({ start_date: '2024-03-31' })).toEqual([c.id, b.id]);
    expect(ids({ end_date: '2024-02-29' })).toEqual([]);
    expect(ids({ start_date: '2024-03-01T00:00:00.001Z' })).toEqual([c.id, b.id]);
    expect(ids({ end_date: '2024-03-01T00:00:00Z' })).toEqual([a.id]);
    expect(ids({ end_date: '2024-03-31T23:59:59Z' })).toEqual([b.id, a.id]); // through the end of that second
    expect(ids({ start_date: '2024-04-01T02:00:00+02:00' })).toEqual([c.id]);
    expect(() => ids({ start_date: 'yesterday' })).toThrow(/start_date/);
    expect(() => ids({ start_date: 'March 5, 2024' })).toThrow(/start_date is not an ISO date/);
    expect(ids({ start_date: '2024-04-01T00:00' })).toEqual([c.id]); // no zone: UTC
    expect(() => ids({ end_date: '2024-02-30' })).toThrow(/end_date/);
  });

  it('combines the query and the filters', () => {
    expect(ids({ query: 'hello', from: ['alice'] })).toEqual([a.id]);
    expect(ids({ query: 'hello', has_attachment: false })).toEqual([b.id]);
  });

  it('answers newest first, then by id descending', () => {
    const same = '2024-06-01T12:00:00.000Z';
    const [x, y, z] = [message({ received_at: same }), message({ received_at: same }), message()];
    const { ids: search } = indexOf(y, z, x);
    expect(search({})).toEqual([y.id, x.id, z.id]);
    const { index } = indexOf(message({ received_at: '2024-06-01T14:00:00+02:00' }));
    expect(index.search({})[0].received_at).toBe(same); // stored in one form: UTC with milliseconds
  });
});

describe('InboxSearchIndex: changes and storage', () => {
  it('add replaces a message with the same id; remove and removeThread take messages out', () => {
    const first = message({ thread_id: 't1', text: 'apples' });
    const { index, ids } = indexOf(first, message({ thread_id: 't1', text: 'pears' }));
    const other = message({ thread_id: 't2', text: 'apples' });
    index.add(other);
    index.add({ ...first, text: 'bananas' });
    expect(index.messageCount).toBe(3);
    expect(ids('apples')).toEqual([other.id]);
    expect(ids('bananas')).toEqual([first.id]);

    index.remove(other.id);
    index.remove('not-there');
    expect(index.has(other.id)).toBe(false);
    expect(ids('apples')).toEqual([]);

    index.removeThread('t1');
    expect(index.messageCount).toBe(0);
    expect(ids({})).toEqual([]);
    index.removeThread('t1');
  });

  it('refuses a message whose received_at is not a date', () => {
    expect(() => InboxSearchIndex.create().add(message({ received_at: 'soon' }))).toThrow(/received_at/);
  });

  it('keeps its results through toJSON and fromJSON, after removals too', () => {
    const messages = [
      message({ thread_id: 't1', subject: 'Café meeting', text: '你好世界', has_attachment: true }),
      message({ thread_id: 't2', text: 'quarterly report', received_at: '2024-05-02T00:00:00.000Z' }),
      message({ thread_id: 't3', text: 'gone soon' }),
    ];
    const { index } = indexOf(...messages);
    index.removeThread('t3');
    const queries: SearchFilters[] = [
      { query: 'cafe' },
      { query: '世界' },
      { query: '"quarterly report"' },
      { query: 'alice@example.com' },
      { query: 'gone' },
      { has_attachment: true },
      {},
    ];
    const answers = (from: InboxSearchIndex) =>
      queries.map((q) => from.search(q).map((hit) => ({ ...hit, terms: hit.terms })));
    const before = answers(index);
    const json = index.toJSON();
    const loaded = InboxSearchIndex.fromJSON(json);
    expect(loaded.messageCount).toBe(2);
    expect(answers(loaded)).toEqual(before);
    expect(InboxSearchIndex.fromJSON(loaded.toJSON()).toJSON()).toBe(json);
    expect(json).not.toContain('"gone"'); // the removed message's terms are not written
    expect(JSON.parse(json)).toMatchObject({ format: 'inbox-search-index', version: 1 });
    expect(json).not.toContain('你好世界'); // no body text: only its terms
  });

  it('refuses another format version, and what is not an index', () => {
    const json = JSON.parse(InboxSearchIndex.create().toJSON());
    expect(() => InboxSearchIndex.fromJSON(JSON.stringify({ ...json, version: 99 }))).toThrow(SearchIndexVersionError);
    expect(() => InboxSearchIndex.fromJSON(JSON.stringify({ ...json, version: 99 }))).toThrow(/version 99.*rebuild/);
    expect(() => InboxSearchIndex.fromJSON('{"documentCount":0}')).toThrow(/not a serialized inbox search index/);
  });
});

describe('containsPhrase', () => {
  it('matches consecutive whole words, ignoring case, accents, punctuation and spacing', () => {
    expect(containsPhrase('Our  CAFÉ,\nopens today', 'cafe opens')).toBe(true);
    expect(containsPhrase('Our cafe is open', 'cafe open')).toBe(false);
    expect(containsPhrase('the reporter', 'report')).toBe(false);
    expect(containsPhrase('anything', '')).toBe(true);
  });
});

describe('highlights', () => {
  it('marks the matched words and escapes the rest', () => {
    expect(highlights('Hello <script>alert("x")</script> & the Café', ['cafe', 'script'], [])).toEqual([
      'Hello &lt;<mark>script</mark>&gt;alert(&quot;x&quot;)&lt;/<mark>script</mark>&gt; &amp; the <mark>Café</mark>',
    ]);
  });

  it('marks phrases, CJK bigrams and whole addresses', () => {
    expect(
      highlights(
        'Write to Alice@Example.com about the Quarterly   Report',
        ['alice@example.com'],
        ['quarterly report'],
      ),
    ).toEqual(['Write to <mark>Alice@Example.com</mark> about the <mark>Quarterly Report</mark>']);
    expect(highlights('我们说你好世界吧', ['世界'], [])).toEqual(['我们说你好<mark>世界</mark>吧']);
  });

  it('cuts snippets of about 160 characters at word boundaries, up to max, with an ellipsis where cut', () => {
    const filler = (word: string, n: number) => Array.from({ length: n }, () => word).join(' ');
    const text = `${filler('lorem', 60)} needle ${filler('ipsum', 60)} haystack ${filler('dolor', 60)} pin ${filler('amet', 60)}`;
    const snippets = highlights(text, ['needle', 'haystack', 'pin'], []);
    expect(snippets).toHaveLength(3);
    for (const s of snippets) {
      expect(s.startsWith('…')).toBe(true);
      expect(s.endsWith('…')).toBe(true);
      expect(s.replace(/<\/?mark>/g, '').length).toBeLessThanOrEqual(162);
      expect(s).toMatch(/^…(lorem|ipsum|dolor) .* (ipsum|dolor|amet)…$/);
    }
    expect(snippets[0]).toContain('<mark>needle</mark>');
    expect(snippets[2]).toContain('<mark>pin</mark>');
    expect(highlights(text, ['needle', 'haystack', 'pin'], [], 1)).toHaveLength(1);
    expect(highlights('short needle text', ['needle'], [])).toEqual(['short <mark>needle</mark> text']);
    expect(highlights('nothing here', ['needle'], [])).toEqual([]);
  });
});

describe('textOfHtml', () => {
  it('keeps the text: tags removed, entities decoded, scripts and styles dropped, whitespace collapsed', () => {
    const html = `<!DOCTYPE html><html><head><title>T</title><style>p { color: red }</style></head>
      <body><!-- a comment --><p>Hello&nbsp;<b>W</b>orld &amp; caf&eacute;&#233; &#x263A; &lt;tag&gt;</p>
      <script>alert("no")</script><div>Second<br/>line</div><span>&zwnj;&#8203;</span></body></html>`;
    expect(textOfHtml(html)).toBe('Hello World & caféé ☺ <tag> Second line');
    expect(textOfHtml('<p>unclosed <script>var x = 1;')).toBe('unclosed');
    expect(textOfHtml('a < b &amp c')).toBe('a < b & c');
  });
});

describe('mergeSerialized', () => {
  const words = ['harbour', 'quokka', 'invoice', 'zanzibar', 'kettle', 'meadow'];
  const many = Array.from({ length: 60 }, (_, i) =>
    message({
      subject: `note ${words[i % 6]}`,
      text: `${words[(i * 7) % 6]} and ${words[(i * 5 + 1) % 6]} ${i % 10 === 0 ? 'rarely' : ''}`,
      thread_id: `thread-${i % 9}`,
      received_at: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
      has_attachment: i % 4 === 0,
    }),
  );
  const queries: SearchFilters[] = [
    { query: 'harbour' },
    { query: 'quokka harbour' },
    { query: 'rarely' },
    { query: 'mea' },
    { query: 'note -kettle' },
    { from: ['alice@'] },
    { has_attachment: true, query: 'zanzibar' },
  ];

  it('answers as one index of every message does, across several merges', () => {
    const whole = indexOf(...many).index;
    let base = InboxSearchIndex.create().toJSON();
    for (let i = 0; i < many.length; i += 25)
      base = mergeSerialized(base, indexOf(...many.slice(i, i + 25)).index.toJSON());
    const merged = InboxSearchIndex.fromJSON(base);
    expect(merged.messageCount).toBe(60);
    for (const query of queries) {
      const answer = (index: InboxSearchIndex) => index.search(query).map((hit) => hit.message_id);
      expect(answer(merged)).toEqual(answer(whole));
      expect(answer(merged).length).toBeGreaterThan(0);
    }
  });

  it('keeps the newer copy of a message added again, and leaves out messages before keepFrom', () => {
    const older = indexOf(...many.slice(0, 30)).index.toJSON();
    const changed = { ...many[3], text: 'lighthouse' };
    const merged = InboxSearchIndex.fromJSON(
      mergeSerialized(older, indexOf(changed, ...many.slice(30)).index.toJSON(), many[2].received_at),
    );
    expect(merged.messageCount).toBe(58); // 0 and 1 are older than keepFrom; 3 once
    expect(merged.search({ query: 'lighthouse' }).map((hit) => hit.message_id)).toEqual([many[3].id]);
    expect(merged.has(many[0].id)).toBe(false);
    const harbour = many.slice(2).filter((m) => m !== many[3] && `${m.subject} ${m.text}`.includes('harbour'));
    expect(
      merged
        .search({ query: 'harbour' })
        .map((hit) => hit.message_id)
        .sort(),
    ).toEqual(harbour.map((m) => m.id).sort());
  });

  it('refuses what is not an index of this version', () => {
    const index = InboxSearchIndex.create().toJSON();
    expect(() => mergeSerialized('{"format":"other"}', index)).toThrow('not a serialized inbox search index');
    expect(() => mergeSerialized(index.replace('"version":1', '"version":99'), index)).toThrow(SearchIndexVersionError);
  });
});

describe('at scale', () => {
  // 5,000 messages keep the suite quick; the scale (10,000 threads and more) is bench/inboxes.ts's
  it('indexes 5,000 messages in 2,000 threads and answers as a scan of every message does', () => {
    const rand = random(42);
    const { words, sentence, pick } = vocabulary(rand);
    const senders = Array.from({ length: 500 }, (_, i) => `Sender ${i} <sender${i}@corp${i % 37}.example>`);
    const recipients = Array.from({ length: 200 }, (_, i) => `user${i}@inbox.example`);

    const start = Date.parse('2024-01-01T00:00:00.000Z');
    const messages: IndexedMessage[] = [];
    for (let i = 0; i < 5_000; i++) {
      const text = sentence(30 + Math.floor(rand() * 100));
      messages.push({
        id: idOf(1_000_000 + i),
        thread_id: `thread-${Math.floor(rand() * 2_000)}`,
        subject: sentence(3 + Math.floor(rand() * 6)),
        from: pick(senders),
        to: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(recipients)),
        cc: rand() < 0.2 ? [pick(recipients)] : [],
        bcc: [],
        text: i % 1000 === 7 ? `${text} the zanzibar contract` : text,
        received_at: new Date(start + i * 3_000_000 + Math.floor(rand() * 3_000_000)).toISOString(),
        has_attachment: rand() < 0.1,
        attachment_names: rand() < 0.1 ? ['report.pdf'] : [],
      });
    }

    const index = InboxSearchIndex.create();
    const indexStarted = performance.now();
    for (const m of messages) index.add(m);
    const indexMs = performance.now() - indexStarted;
    expect(index.messageCount).toBe(5_000);

    // the oracle: a plain scan of every message's words
    const tokens = messages.map((m) => {
      const content = [m.subject, m.text, m.from, ...m.to, ...m.cc, ...(m.attachment_names ?? [])].join(' ');
      return new Set(content.toLowerCase().split(/[^a-z0-9]+/));
    });
    const newestFirst = (list: IndexedMessage[]) =>
      list
        .sort((x, y) => (x.received_at < y.received_at ? 1 : x.received_at > y.received_at ? -1 : 0))
        .map((m) => m.id);
    const expected = (test: (words: Set<string>, m: IndexedMessage) => boolean) =>
      newestFirst(messages.filter((m, i) => test(tokens[i], m)));

    // the last word of a query also matches as a prefix
    const starts = (w: Set<string>, prefix: string) => [...w].some((t) => t.startsWith(prefix));
    const [common, middling, rare] = [words[20], words[300], words[5_000]];
    const prefix = words[150].slice(0, 3);
    const cases: [SearchFilters, string[]][] = [
      [{ query: 'zanzibar' }, expected((w) => w.has('zanzibar'))],
      [{ query: `${common} ${prefix}` }, expected((w) => w.has(common) && starts(w, prefix))],
      [{ query: `${common} -${middling}` }, expected((w) => starts(w, common) && !w.has(middling))],
      [{ query: rare }, expected((w) => starts(w, rare))],
      [
        { query: common, from: ['corp3.example'], start_date: '2024-03-01', end_date: '2024-04-30' },
        expected(
          (w, m) =>
            starts(w, common) &&
            m.from.includes('corp3.example') &&
            m.received_at >= '2024-03-01' &&
            m.received_at < '2024-05-01',
        ),
      ],
      [
        { has_attachment: true, to: ['user7@'] },
        expected((_w, m) => m.has_attachment && m.to.some((to) => to.includes('user7@'))),
      ],
    ];
    for (const [filters, ids] of cases) {
      expect(ids.length).toBeGreaterThan(0);
      const hits = index.search(filters).map((hit) => hit.message_id);
      expect({ filters, count: hits.length }).toEqual({ filters, count: ids.length });
      expect(hits).toEqual(ids);
    }

    const serializeStarted = performance.now();
    const json = index.toJSON();
    const serializeMs = performance.now() - serializeStarted;
    const loadStarted = performance.now();
    const loaded = InboxSearchIndex.fromJSON(json);
    const loadMs = performance.now() - loadStarted;
    expect(loaded.search(cases[1][0]).map((hit) => hit.message_id)).toEqual(cases[1][1]);

    const timed = (filters: SearchFilters) => {
      loaded.search(filters); // warm
      const times = Array.from({ length: 3 }, () => {
        const t = performance.now();
        loaded.search(filters);
        return performance.now() - t;
      }).sort((x, y) => x - y);
      return `${times[1].toFixed(1)} ms`;
    };
    const figures = {
      messages: messages.length,
      indexMs: Math.round(indexMs),
      serializedMB: +(json.length / 1e6).toFixed(1),
      gzipMB: +(gzipSync(json).length / 1e6).toFixed(1),
      toJSONMs: Math.round(serializeMs),
      fromJSONMs: Math.round(loadMs),
      searchRare: timed({ query: rare }),
      searchCommonWord: timed({ query: words[0] }),
      searchTwoWordsPrefix: timed({ query: `${common} ${prefix}` }),
      searchTwoLetterPrefix: timed({ query: words[0].slice(0, 2) }),
      searchFiltersOnly: timed({ from: ['corp3'], start_date: '2024-03-01' }),
    };
    console.log(`inbox search index at scale: ${JSON.stringify(figures)}`);
  }, 60_000);
});
