/**
 * The full-text search index of one inbox: one serialized object per inbox (the caller keeps it in S3),
 * updated by a worker as messages arrive and read by GET /inboxes/{id}/threads/search (which keeps the
 * loaded index between invocations).
 *
 * Why MiniSearch rather than FlexSearch or lunr: it is maintained, has no dependencies and a small bundle,
 * adds and removes documents one at a time (discard, then vacuum) where lunr can only rebuild the whole
 * index, and serializes to plain JSON and back (FlexSearch exports in pieces through callbacks).
 *
 * What is in the index: the message id; one indexed field (`content`) built from the subject, the first
 * 64 K characters of the body text, the from/to/cc/bcc headers and the attachment names, each distinct term once
 * per message (hits are ordered by date, so how often a word occurs does not matter); and the stored fields that
 * filtering and ordering need: thread_id, received_at, from, to, cc, bcc, has_attachment. No body text: a phrase
 * finds the messages that hold every word of it, and the caller checks the exact phrase with `containsPhrase`.
 * `toJSON` writes a packed form of MiniSearch's own JSON (`Packed`: postings as delta-encoded id arrays, each
 * message a tuple; less than half the size) without the postings of removed messages.
 *
 * Terms: lower-cased, accents folded (NFKD, the Latin/Greek/Cyrillic combining marks and the Hebrew and
 * Arabic vowel points removed, NFC again: "Café" is "cafe", "ＡＢＣ" is "abc"), split on anything that is not
 * a letter, mark or digit (Unicode-aware), at most 64 characters each. An email address is indexed both as
 * its parts (alice, example, com) and whole (alice@example.com), wherever it appears. Chinese and Japanese
 * (Han, Hiragana, Katakana) have no spaces between words: each such run is indexed as overlapping bigrams
 * plus its last character, so a word of two or more characters is found by its bigrams and a single
 * character by prefix. Korean is split on spaces like Latin text; Thai and other scripts without spaces
 * are indexed as whole runs (found by the start of a run only).
 *
 * Bounds: sized for 10,000 threads (~25,000 messages) per inbox. Measured on this machine (2 cores, shared
 * with other test runs at the time: read the times as upper bounds) by test/unit/inbox-search-index.test.ts,
 * 25,000 synthetic messages in 10,000 threads, subjects of 3-8 and bodies of 30-130 words drawn from a
 * Zipf-distributed vocabulary of 30,000 words:
 * - serialized: 11.1 MB of JSON, 3.0 MB gzipped (about 450 bytes a message: ~140 for its id, thread, date and
 *   addresses, ~3 per distinct term);
 * - a warm search (`search` evaluates the query on the posting lists as id sets, without MiniSearch's scoring and
 *   its result object per hit; a hit's `terms` are worked out when read): a rare word under 0.1 ms; two common
 *   words (21,600 hits) 12 ms, 152 ms through MiniSearch's own search; a two-letter prefix 13 ms; a `from` filter
 *   alone 13 ms (measured beside a test run);
 * - indexing all 25,000 messages 10-11 s; toJSON 2.6-4.6 s; fromJSON 2.0-3.0 s (1.6 s outside jest), and the
 *   loaded index holds about 130 MB of heap (measured apart, after a forced GC).
 * Real mail with long bodies or quoted replies has more distinct words a message and makes a larger index
 * (the body is capped at 64 K characters).
 * Bump SEARCH_INDEX_VERSION whenever what is indexed or how it is tokenized changes: an index of another
 * version is refused (SearchIndexVersionError), and the caller rebuilds it from the messages.
 */
import MiniSearch, { type AsPlainObject, type Options, type Query } from 'minisearch';

export interface IndexedMessage {
  /** message id (UUIDv7) */
  id: string;
  thread_id: string;
  subject: string;
  /** "Name <a@b>" or "a@b" */
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  /** the body as plain text (the caller strips html when there is no text part); the first 64 K characters are indexed */
  text: string;
  /** ISO date-time */
  received_at: string;
  has_attachment: boolean;
  attachment_names?: string[];
}

export interface SearchFilters {
  /** words (all must match, the last one as a prefix), "quoted phrases", -exclusions (-word and -"a phrase") */
  query?: string;
  /** each a list: a message matches when any value is a substring (case-insensitive) of any of its entries in that field */
  from?: string[];
  to?: string[];
  cc?: string[];
  bcc?: string[];
  has_attachment?: boolean;
  /** ISO date or date-time, inclusive on received_at: a date alone starts at 00:00Z / ends at the end of that day */
  start_date?: string;
  end_date?: string;
}

export interface SearchHit {
  message_id: string;
  thread_id: string;
  received_at: string;
  /** the index terms of the query that this message has (for `highlights`): worked out when read, for the hits a page shows */
  readonly terms: string[];
}

export interface ParsedQuery {
  words: string[];
  phrases: string[];
  excludedWords: string[];
  excludedPhrases: string[];
}

/** The format version `toJSON` writes; `fromJSON` reads only this one. */
export const SEARCH_INDEX_VERSION = 1;
const FORMAT = 'inbox-search-index';

/** The index of another format version: rebuild it from the messages. */
export class SearchIndexVersionError extends Error {
  constructor(readonly version: unknown) {
    super(
      `inbox search index: format version ${JSON.stringify(version)} is not supported (this code reads version ${SEARCH_INDEX_VERSION}); rebuild the index`,
    );
    this.name = 'SearchIndexVersionError';
  }
}

/** How much of a body is indexed (characters). */
export const MAX_INDEXED_TEXT = 64 * 1024;
const MAX_TERM_LENGTH = 64;

// ---------------------------------------------------------------------------------------------------------------
// Terms

/** Combining marks that are accents: Latin/Greek/Cyrillic diacritics, Hebrew points, Arabic harakat. Not the kana voicing marks. */
const ACCENTS =
  /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u064b-\u065f\u0670]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range
const ASCII = /^[\u0000-\u007f]*$/;
/** Lower-cased, compatibility forms and accents folded. */
const fold = (s: string): string =>
  ASCII.test(s) ? s.toLowerCase() : s.toLowerCase().normalize('NFKD').replace(ACCENTS, '').normalize('NFC');

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;
/** Han, Hiragana, Katakana (and the marks they use, such as ー): no 'g' flag, so `test` keeps no state. */
const CJK = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}]/u;
/** An email address; bounded repetitions keep it linear on long runs of letters. */
const ADDRESS_CHARS = String.raw`[\p{L}\p{M}\p{N}._%+'\-]{1,64}@[\p{L}\p{M}\p{N}\-]{1,63}(?:\.[\p{L}\p{M}\p{N}\-]{1,63}){1,8}`;
const ADDRESS = new RegExp(ADDRESS_CHARS, 'gu');
const WHOLE_ADDRESS = new RegExp(String.raw`^[^\p{L}\p{N}]*(${ADDRESS_CHARS})[^\p{L}\p{N}]*$`, 'u');
const ADDRESS_EDGES = /^[._%+'-]+|[._%+'-]+$/g;

const cap = (term: string): string => (term.length > MAX_TERM_LENGTH ? term.slice(0, MAX_TERM_LENGTH) : term);

/**
 * The terms of one folded word (a run of letters, marks and digits). CJK runs become overlapping bigrams;
 * with `lastChar`, also the run's last character, so that every character starts some term.
 */
function wordTerms(word: string, out: string[], lastChar: boolean): void {
  if (!CJK.test(word)) {
    out.push(cap(word));
    return;
  }
  let other = '';
  let run: string[] = [];
  const flushRun = () => {
    if (run.length === 1) out.push(run[0]);
    else if (run.length > 1) {
      for (let i = 0; i < run.length - 1; i++) out.push(run[i] + run[i + 1]);
      if (lastChar) out.push(run[run.length - 1]);
    }
    run = [];
  };
  for (const ch of word) {
    if (CJK.test(ch)) {
      if (other) out.push(cap(other));
      other = '';
      run.push(ch);
    } else {
      flushRun();
      other += ch;
    }
  }
  flushRun();
  if (other) out.push(cap(other));
}

/** Every term of a text, as indexed: the whole addresses, then the words. */
function indexTerms(text: string): string[] {
  const folded = fold(text);
  const terms: string[] = [];
  if (folded.includes('@')) {
    for (const m of folded.matchAll(ADDRESS)) {
      const address = m[0].replace(ADDRESS_EDGES, '');
      if (address.includes('@')) terms.push(cap(address));
    }
  }
  for (const m of folded.matchAll(WORD)) wordTerms(m[0], terms, true);
  // each term once: results are ordered by date, so how often a term occurs does not matter (and the index is smaller)
  return [...new Set(terms)];
}

/** The terms of a query word or phrase (no trailing CJK character: the bigrams cover it). */
function queryTerms(text: string): string[] {
  const terms: string[] = [];
  for (const m of fold(text).matchAll(WORD)) wordTerms(m[0], terms, false);
  return terms;
}

// ---------------------------------------------------------------------------------------------------------------
// Query syntax

const QUOTES = new Set(['"', '\u201c', '\u201d', '\u201e']);
const SPACE = /\s/u;
const foldSpaces = (s: string): string => s.replace(/\s+/gu, ' ').trim();

/**
 * Words, "quoted phrases", -word and -"phrase" exclusions. Tolerant: an unclosed quote runs to the end, a lone
 * '-' and words without a letter or digit are ignored, typographic quotes count as quotes, duplicates are dropped.
 */
export function parseQuery(query: string): ParsedQuery {
  const parsed: ParsedQuery = { words: [], phrases: [], excludedWords: [], excludedPhrases: [] };
  const seen = new Set<string>();
  const push = (list: keyof ParsedQuery, value: string) => {
    const key = `${list}\0${fold(value)}`;
    if (!HAS_WORD_CHAR.test(value) || seen.has(key)) return;
    seen.add(key);
    parsed[list].push(value);
  };
  const s = query;
  let i = 0;
  while (i < s.length) {
    if (SPACE.test(s[i])) {
      i++;
      continue;
    }
    let negative = false;
    if (s[i] === '-') {
      negative = true;
      while (s[i] === '-') i++;
      if (i >= s.length || SPACE.test(s[i])) continue;
    }
    if (QUOTES.has(s[i])) {
      let close = i + 1;
      while (close < s.length && !QUOTES.has(s[close])) close++;
      push(negative ? 'excludedPhrases' : 'phrases', foldSpaces(s.slice(i + 1, close)));
      i = close + 1;
      continue;
    }
    let end = i;
    while (end < s.length && !SPACE.test(s[end]) && !QUOTES.has(s[end])) end++;
    push(negative ? 'excludedWords' : 'words', s.slice(i, end));
    i = end;
  }
  return parsed;
}

// ---------------------------------------------------------------------------------------------------------------
// The index

/** What MiniSearch indexes and stores for one message. */
interface Document {
  id: string;
  content: string;
  thread_id: string;
  received_at: string;
  from: string;
  to?: string[];
  cc?: string[];
  bcc?: string[];
  has_attachment?: true;
}
type Stored = Omit<Document, 'id' | 'content'>;

const OPTIONS: Options<Document> = {
  fields: ['content'],
  storeFields: ['thread_id', 'received_at', 'from', 'to', 'cc', 'bcc', 'has_attachment'],
  tokenize: indexTerms,
  processTerm: (term) => term,
  // queries are built here term by term (`termQuery`): MiniSearch takes each string as one finished term
  searchOptions: { tokenize: (term) => [term], processTerm: (term) => term },
  // no timers in a Lambda: removed messages leave their postings behind until `toJSON`, which writes only the live ones
  autoVacuum: false,
};

const termQuery = (term: string, prefix: boolean): Query => ({ combineWith: 'AND', prefix, queries: [term] });
const all = (queries: Query[]): Query => ({ combineWith: 'AND', queries });

/** A query word: all its terms; an address also whole. Prefix on the last term when `prefix`. */
function wordQuery(word: string, prefix: boolean): Query | undefined {
  const terms = queryTerms(word);
  if (terms.length === 0) return undefined;
  const prefixOf = (term: string) => prefix && (term.length >= 2 || CJK.test(term));
  const parts = all(terms.map((term, i) => termQuery(term, i === terms.length - 1 && prefixOf(term))));
  const folded = fold(word);
  if (!folded.includes('@')) return parts;
  const whole = WHOLE_ADDRESS.exec(folded)?.[1].replace(ADDRESS_EDGES, '');
  if (whole?.includes('@')) return termQuery(cap(whole), prefix);
  // a piece of an address ("alice@", "@example.com"): its parts, or the start of a whole address
  const start = folded.replace(/^[^\p{L}\p{N}]+|\s+/gu, '');
  if (!prefix || !start.includes('@')) return parts;
  return { combineWith: 'OR', queries: [termQuery(cap(start), true), parts] };
}

function phraseQuery(phrase: string): Query | undefined {
  const terms = queryTerms(phrase);
  return terms.length ? all(terms.map((term) => termQuery(term, false))) : undefined;
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The inclusive bound as a UTC ISO string; an end without seconds (or fractions) runs to the end of that minute (second). */
function dateBound(name: string, value: string, end: boolean): string {
  const v = value.trim();
  let ms: number;
  if (DATE_ONLY.test(v)) {
    ms = Date.parse(`${v}T00:00:00.000Z`) + (end ? 86_400_000 - 1 : 0);
    if (Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) !== v) ms = Number.NaN; // 2024-02-30
  } else {
    const time = DATE_TIME.exec(v);
    ms = time ? Date.parse(time[3] === undefined ? `${v}Z` : v) : Number.NaN; // no zone: UTC
    if (end && time) ms += time[1] === undefined ? 59_999 : time[2] === undefined ? 999 : 0;
  }
  if (!Number.isFinite(ms)) throw new RangeError(`${name} is not an ISO date or date-time: ${JSON.stringify(value)}`);
  return new Date(ms).toISOString();
}

function anyContains(entries: string | string[] | undefined, values: string[]): boolean {
  if (entries === undefined) return false;
  const list = typeof entries === 'string' ? [entries] : entries;
  return list.some((entry) => {
    const e = fold(entry);
    return values.some((value) => e.includes(value));
  });
}

function filterOf(filters: SearchFilters): ((stored: Stored) => boolean) | undefined {
  const checks: ((stored: Stored) => boolean)[] = [];
  for (const field of ['from', 'to', 'cc', 'bcc'] as const) {
    const values = filters[field]?.map((v) => fold(v.trim())).filter((v) => v !== '');
    if (values?.length) checks.push((stored) => anyContains(stored[field], values));
  }
  if (filters.has_attachment !== undefined) {
    const wanted = filters.has_attachment;
    checks.push((stored) => (stored.has_attachment === true) === wanted);
  }
  if (filters.start_date) {
    const start = dateBound('start_date', filters.start_date, false);
    checks.push((stored) => stored.received_at >= start);
  }
  if (filters.end_date) {
    const end = dateBound('end_date', filters.end_date, true);
    checks.push((stored) => stored.received_at <= end);
  }
  return checks.length ? (stored) => checks.every((check) => check(stored)) : undefined;
}

/**
 * The stored form: MiniSearch's own JSON (`AsPlainObject`) keeps every posting as `"shortId":frequency` in an object
 * per term (~10 bytes each) and the stored fields as objects with their keys; here the postings of a term are an array
 * of ascending short ids as deltas (a frequency other than 1, which the index does not make, as a negative number
 * after its id) and each message is a tuple.
 */
interface Packed {
  format: typeof FORMAT;
  version: typeof SEARCH_INDEX_VERSION;
  nextId: number;
  averageFieldLength: number[];
  /** [short id delta, id, content length, thread_id, received_at, from, to, cc, bcc, has_attachment 1/0] */
  messages: [number, string, number, string, string, string, string[], string[], string[], 0 | 1][];
  terms: string[];
  postings: number[][];
}

/** The serialization of MiniSearch this packing reads and writes. */
const MINISEARCH_SERIALIZATION = 2;

function pack(plain: AsPlainObject): Packed {
  if (plain.serializationVersion !== MINISEARCH_SERIALIZATION) {
    throw new Error(`inbox search index: MiniSearch serialization ${plain.serializationVersion} is not supported`);
  }
  const messages: Packed['messages'] = [];
  let previous = 0;
  for (const key of Object.keys(plain.documentIds)) {
    const shortId = Number(key);
    const stored = plain.storedFields[key] as Stored;
    messages.push([
      shortId - previous,
      plain.documentIds[key] as string,
      plain.fieldLength[key]?.[0] ?? 0,
      stored.thread_id,
      stored.received_at,
      stored.from,
      stored.to ?? [],
      stored.cc ?? [],
      stored.bcc ?? [],
      stored.has_attachment ? 1 : 0,
    ]);
    previous = shortId;
  }
  const terms: string[] = [];
  const postings: number[][] = [];
  for (const [term, fields] of plain.index) {
    for (const fieldId of Object.keys(fields)) {
      if (fieldId !== '0') throw new Error(`inbox search index: unexpected field ${fieldId}`);
    }
    const list: number[] = [];
    let last = 0;
    // integer keys enumerate in ascending order
    for (const [key, frequency] of Object.entries(fields['0'] ?? {})) {
      if (!Object.hasOwn(plain.documentIds, key)) continue; // a removed message
      const shortId = Number(key);
      list.push(list.length === 0 ? shortId : shortId - last);
      if (frequency !== 1) list.push(-frequency);
      last = shortId;
    }
    if (list.length === 0) continue;
    terms.push(term);
    postings.push(list);
  }
  return {
    format: FORMAT,
    version: SEARCH_INDEX_VERSION,
    nextId: plain.nextId,
    averageFieldLength: plain.averageFieldLength,
    messages,
    terms,
    postings,
  };
}

function unpack(value: unknown): AsPlainObject {
  if (typeof value !== 'object' || value === null || (value as { format?: unknown }).format !== FORMAT) {
    throw new Error('inbox search index: not a serialized inbox search index');
  }
  const packed = value as Packed;
  if (packed.version !== SEARCH_INDEX_VERSION) throw new SearchIndexVersionError(packed.version);
  const documentIds: AsPlainObject['documentIds'] = {};
  const fieldLength: AsPlainObject['fieldLength'] = {};
  const storedFields: AsPlainObject['storedFields'] = {};
  let shortId = 0;
  for (const [delta, id, length, thread_id, received_at, from, to, cc, bcc, attachment] of packed.messages) {
    shortId += delta;
    documentIds[shortId] = id;
    fieldLength[shortId] = [length];
    const stored: Stored = { thread_id, received_at, from };
    if (to.length) stored.to = to;
    if (cc.length) stored.cc = cc;
    if (bcc.length) stored.bcc = bcc;
    if (attachment) stored.has_attachment = true;
    storedFields[shortId] = stored;
  }
  const index: AsPlainObject['index'] = packed.terms.map((term, i) => {
    const frequencies: Record<number, number> = {};
    let id = 0;
    let first = true;
    for (const n of packed.postings[i]) {
      if (n < 0) {
        frequencies[id] = -n;
        continue;
      }
      id = first ? n : id + n;
      first = false;
      frequencies[id] = 1;
    }
    return [term, { 0: frequencies }];
  });
  return {
    documentCount: packed.messages.length,
    nextId: packed.nextId,
    documentIds,
    fieldIds: { content: 0 },
    fieldLength,
    averageFieldLength: packed.averageFieldLength,
    storedFields,
    dirtCount: 0,
    index,
    serializationVersion: MINISEARCH_SERIALIZATION,
  };
}

/** A packed index read back from its JSON (the format and version checked). */
function readPacked(json: string): Packed {
  const value = JSON.parse(json) as Packed;
  if (typeof value !== 'object' || value === null || value.format !== FORMAT) {
    throw new Error('inbox search index: not a serialized inbox search index');
  }
  if (value.version !== SEARCH_INDEX_VERSION) throw new SearchIndexVersionError(value.version);
  return value;
}

/**
 * Two serialized indexes as one, on their packed form (no MiniSearch index is built: merging costs the postings'
 * numbers, where loading an index costs a radix tree of its terms). `newer`'s messages win over `older`'s of the same
 * id (a message added again); messages received before `keepFrom` (ISO) are left out of both.
 */
export function mergeSerialized(olderJson: string, newerJson: string, keepFrom = ''): string {
  const older = readPacked(olderJson);
  const newer = readPacked(newerJson);
  const newerIds = new Set(newer.messages.map((m) => m[1]));
  const offset = older.nextId;
  const messages: Packed['messages'] = [];
  const lengths: number[] = [];
  let previous = 0;
  /** the short ids each side keeps (a set of the dropped ones is smaller to hold) */
  const dropped = [new Set<number>(), new Set<number>()];
  [older, newer].forEach((packed, side) => {
    let shortId = 0;
    for (const message of packed.messages) {
      shortId += message[0];
      const [, id, length, , receivedAt] = message;
      if (receivedAt < keepFrom || (side === 0 && newerIds.has(id))) {
        dropped[side].add(shortId);
        continue;
      }
      const merged = side === 0 ? shortId : shortId + offset;
      messages.push([
        merged - previous,
        ...(message.slice(1) as [string, number, string, string, string, string[], string[], string[], 0 | 1]),
      ]);
      lengths.push(length);
      previous = merged;
    }
  });
  // per term: its postings as deltas, and the last absolute id written (newer's ids all come after older's)
  const postings = new Map<string, { list: number[]; last: number }>();
  [older, newer].forEach((packed, side) => {
    const shift = side === 0 ? 0 : offset;
    packed.terms.forEach((term, i) => {
      let entry = postings.get(term);
      let id = 0;
      let first = true;
      let keptLast = false;
      for (const n of packed.postings[i]) {
        if (n < 0) {
          if (keptLast) entry!.list.push(n); // the frequency of the id just written
          continue;
        }
        id = first ? n : id + n;
        first = false;
        keptLast = !dropped[side].has(id);
        if (!keptLast) continue;
        if (!entry) postings.set(term, (entry = { list: [], last: 0 }));
        const merged = id + shift;
        entry.list.push(entry.list.length === 0 ? merged : merged - entry.last);
        entry.last = merged;
      }
    });
  });
  const packed: Packed = {
    format: FORMAT,
    version: SEARCH_INDEX_VERSION,
    nextId: offset + newer.nextId,
    averageFieldLength: [lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0],
    messages,
    terms: [...postings.keys()],
    postings: [...postings.values()].map((entry) => entry.list),
  };
  return JSON.stringify(packed);
}

const descending = (x: string, y: string): number => (x < y ? 1 : x > y ? -1 : 0);
/** The order of hits: received_at descending, then message id descending. */
export const newestFirst = (a: SearchHit, b: SearchHit): number =>
  descending(a.received_at, b.received_at) || descending(a.message_id, b.message_id);
const nonEmpty = (list: string[] | undefined): string[] | undefined => (list?.length ? [...list] : undefined);

export class InboxSearchIndex {
  private constructor(private readonly mini: MiniSearch<Document>) {}

  static create(): InboxSearchIndex {
    return new InboxSearchIndex(new MiniSearch<Document>(OPTIONS));
  }

  /** What `toJSON` wrote. Throws SearchIndexVersionError for another format version. */
  static fromJSON(json: string): InboxSearchIndex {
    return new InboxSearchIndex(MiniSearch.loadJS(unpack(JSON.parse(json)), OPTIONS));
  }

  /** The index as JSON (see `Packed`), without the postings of removed messages. */
  toJSON(): string {
    return JSON.stringify(pack(this.mini.toJSON()));
  }

  get messageCount(): number {
    return this.mini.documentCount;
  }

  has(messageId: string): boolean {
    return this.mini.has(messageId);
  }

  /** Adds the message, or replaces the one with its id. */
  add(message: IndexedMessage): void {
    const receivedMs = Date.parse(message.received_at);
    if (!Number.isFinite(receivedMs)) {
      throw new RangeError(`received_at is not an ISO date-time: ${JSON.stringify(message.received_at)}`);
    }
    if (this.mini.has(message.id)) this.mini.discard(message.id);
    const content = [
      message.subject,
      message.text.length > MAX_INDEXED_TEXT ? message.text.slice(0, MAX_INDEXED_TEXT) : message.text,
      message.from,
      ...message.to,
      ...message.cc,
      ...message.bcc,
      ...(message.attachment_names ?? []),
    ].join('\n');
    this.mini.add({
      id: message.id,
      content,
      thread_id: message.thread_id,
      // one form (UTC, milliseconds), so that strings compare as instants
      received_at: new Date(receivedMs).toISOString(),
      from: message.from,
      to: nonEmpty(message.to),
      cc: nonEmpty(message.cc),
      bcc: nonEmpty(message.bcc),
      has_attachment: message.has_attachment ? true : undefined,
    });
  }

  remove(messageId: string): void {
    if (this.mini.has(messageId)) this.mini.discard(messageId);
  }

  removeThread(threadId: string): void {
    const ids = this.mini
      .search(MiniSearch.wildcard, { filter: (result) => result.thread_id === threadId })
      .map((result) => result.id as string);
    this.mini.discardAll(ids);
  }

  /**
   * Every matching message, newest first (received_at desc, then id desc). Words AND together and match the
   * subject, body, from/to/cc/bcc and attachment names, the last word as a prefix too; a phrase matches a message
   * that has all of its words (check the exact phrase with `containsPhrase`); an exclusion removes the messages
   * that have the word (for a phrase: all its words). Filters apply to the stored fields. No words and no phrases:
   * every message that passes the filters (and the exclusions).
   */
  search(filters: SearchFilters): SearchHit[] {
    const parsed = parseQuery(filters.query ?? '');
    const positive: Query[] = [];
    parsed.words.forEach((word, i) => {
      const q = wordQuery(word, i === parsed.words.length - 1);
      if (q) positive.push(q);
    });
    for (const phrase of parsed.phrases) {
      const q = phraseQuery(phrase);
      if (q) positive.push(q);
    }
    const excluded: Query[] = [];
    for (const word of parsed.excludedWords) {
      const q = wordQuery(word, false);
      if (q) excluded.push(q);
    }
    for (const phrase of parsed.excludedPhrases) {
      const q = phraseQuery(phrase);
      if (q) excluded.push(q);
    }
    const base: Query = positive.length ? all(positive) : MiniSearch.wildcard;
    const query: Query = excluded.length ? { combineWith: 'AND_NOT', queries: [base, ...excluded] } : base;
    const filter = filterOf(filters);
    const { _documentIds: ids, _storedFields: storedFields } = this.internals;
    const hits: SearchHit[] = [];
    for (const shortId of this.matching(query)) {
      const stored = storedFields.get(shortId) as Stored;
      if (filter && !filter(stored)) continue;
      hits.push(new Hit(this, shortId, positive, ids.get(shortId)!, stored.thread_id, stored.received_at));
    }
    return hits.sort(newestFirst);
  }

  /**
   * The short ids of the messages a query matches, on MiniSearch's posting lists: sets of ids, no scores and no
   * result object per message (MiniSearch's own search scores every hit and builds an object with its stored fields:
   * 100-150 ms for a word in 21,000 of 25,000 messages, most of a search's time).
   */
  private matching(query: Query): Set<number> {
    if (query === MiniSearch.wildcard) return new Set(this.internals._documentIds.keys());
    const {
      combineWith = 'OR',
      prefix = false,
      queries,
    } = query as { combineWith?: string; prefix?: boolean; queries: (Query | string)[] };
    const parts = queries.map((part) =>
      typeof part === 'string' ? this.termMatching(part, prefix) : this.matching(part),
    );
    if (combineWith === 'OR') {
      const union = new Set<number>();
      for (const part of parts) for (const id of part) union.add(id);
      return union;
    }
    if (combineWith === 'AND_NOT') {
      const [first, ...rest] = parts;
      for (const part of rest) for (const id of part) first.delete(id);
      return first;
    }
    const [smallest, ...others] = [...parts].sort((a, b) => a.size - b.size);
    if (!smallest) return new Set();
    for (const id of smallest) if (!others.every((part) => part.has(id))) smallest.delete(id);
    return smallest;
  }

  /** The live messages that have `term` (or, with `prefix`, a term that starts with it). */
  private termMatching(term: string, prefix: boolean): Set<number> {
    const { _index: index, _documentIds: ids } = this.internals;
    const found = new Set<number>();
    const add = (data: TermData | undefined) => {
      const postings = data?.get(0);
      if (postings) for (const id of postings.keys()) if (ids.has(id)) found.add(id); // a discarded message stays in postings until written
    };
    add(index.get(term));
    if (prefix) for (const [derived, data] of index.atPrefix(term)) if (derived !== term) add(data);
    return found;
  }

  /** The index terms of the positive query parts that the message has. */
  termsOf(shortId: number, positive: Query[]): string[] {
    const { _index: index } = this.internals;
    const terms = new Set<string>();
    const visit = (query: Query) => {
      if (query === MiniSearch.wildcard) return;
      const { prefix = false, queries } = query as { prefix?: boolean; queries: (Query | string)[] };
      for (const part of queries) {
        if (typeof part !== 'string') {
          visit(part);
          continue;
        }
        if (index.get(part)?.get(0)?.has(shortId)) terms.add(part);
        if (prefix)
          for (const [derived, data] of index.atPrefix(part)) if (data.get(0)?.has(shortId)) terms.add(derived);
      }
    };
    for (const query of positive) visit(query);
    return [...terms];
  }

  /** MiniSearch's own maps (7.x, private there): the index, the ids and the stored fields (test/unit/inbox-search-index.test.ts compares this search with MiniSearch's). */
  private get internals(): Internals {
    return this.mini as unknown as Internals;
  }
}

/** term -> field id -> short id -> frequency */
type TermData = Map<number, Map<number, number>>;
interface Internals {
  _index: { get(term: string): TermData | undefined; atPrefix(prefix: string): Iterable<[string, TermData]> };
  _documentIds: Map<number, string>;
  _storedFields: Map<number, unknown>;
}

/** A search hit; its `terms` are worked out when read (a page reads 20 of thousands). */
class Hit implements SearchHit {
  // private fields, not properties: a hit compares and prints as its ids and date
  readonly #index: InboxSearchIndex;
  readonly #shortId: number;
  readonly #positive: Query[];

  constructor(
    index: InboxSearchIndex,
    shortId: number,
    positive: Query[],
    readonly message_id: string,
    readonly thread_id: string,
    readonly received_at: string,
  ) {
    this.#index = index;
    this.#shortId = shortId;
    this.#positive = positive;
  }

  get terms(): string[] {
    return this.#index.termsOf(this.#shortId, this.#positive);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Phrases, highlights, html

/** The words of a text for phrase matching: folded, CJK characters one by one. */
function phraseWords(text: string): string[] {
  const words: string[] = [];
  for (const m of fold(text).matchAll(WORD)) {
    if (!CJK.test(m[0])) {
      words.push(m[0]);
      continue;
    }
    let other = '';
    for (const ch of m[0]) {
      if (CJK.test(ch)) {
        if (other) words.push(other);
        other = '';
        words.push(ch);
      } else other += ch;
    }
    if (other) words.push(other);
  }
  return words;
}

/** Case- and accent-insensitive, whitespace-normalized test that `text` contains `phrase` as consecutive words. */
export function containsPhrase(text: string, phrase: string): boolean {
  const wanted = phraseWords(phrase);
  if (wanted.length === 0) return true;
  return ` ${phraseWords(text).join(' ')} `.includes(` ${wanted.join(' ')} `);
}

const SNIPPET_LENGTH = 160;
const SNIPPET_LEAD = 40;
/** How much of a text `highlights` reads (characters, after collapsing whitespace). */
const MAX_HIGHLIGHT_TEXT = 2 * MAX_INDEXED_TEXT;

interface Unit {
  start: number;
  end: number;
  norm: string;
  cjk: boolean;
}
interface Match {
  start: number;
  end: number;
  key: string;
}

/** The words of `text` with their offsets, CJK characters one by one. */
function units(text: string): Unit[] {
  const out: Unit[] = [];
  for (const m of text.matchAll(WORD)) {
    const token = m[0];
    const at = m.index ?? 0;
    if (!CJK.test(token)) {
      out.push({ start: at, end: at + token.length, norm: fold(token), cjk: false });
      continue;
    }
    let offset = at;
    let otherStart = -1;
    for (const ch of token) {
      if (CJK.test(ch)) {
        if (otherStart >= 0)
          out.push({ start: otherStart, end: offset, norm: fold(text.slice(otherStart, offset)), cjk: false });
        otherStart = -1;
        out.push({ start: offset, end: offset + ch.length, norm: fold(ch), cjk: true });
      } else if (otherStart < 0) otherStart = offset;
      offset += ch.length;
    }
    if (otherStart >= 0)
      out.push({ start: otherStart, end: offset, norm: fold(text.slice(otherStart, offset)), cjk: false });
  }
  return out;
}

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * Up to `max` snippets of `text` (each at most ~160 characters, cut at word boundaries, "…" where cut) around the
 * first occurrences of the terms (a hit's `terms`) and phrases, in text order, the matches wrapped in
 * <mark>…</mark> and everything else HTML-escaped. None when nothing matches.
 */
export function highlights(text: string, terms: string[], phrases: string[], max = 3): string[] {
  let body = text.replace(/\s+/gu, ' ').trim();
  if (body.length > MAX_HIGHLIGHT_TEXT) body = body.slice(0, MAX_HIGHLIGHT_TEXT);
  const termSet = new Set(terms.map((t) => fold(t.trim())).filter((t) => t !== ''));
  const phraseList = phrases.map((p) => ({ key: `"${p}`, words: phraseWords(p) })).filter((p) => p.words.length);
  if (max <= 0 || body === '' || (termSet.size === 0 && phraseList.length === 0)) return [];

  const matches: Match[] = [];
  const list = units(body);
  for (let i = 0; i < list.length; i++) {
    const u = list[i];
    if (termSet.has(cap(u.norm))) matches.push({ start: u.start, end: u.end, key: u.norm });
    const next = list[i + 1];
    if (u.cjk && next?.cjk && next.start === u.end && termSet.has(u.norm + next.norm)) {
      matches.push({ start: u.start, end: next.end, key: u.norm + next.norm });
    }
    for (const phrase of phraseList) {
      const n = phrase.words.length;
      if (i + n > list.length) continue;
      let k = 0;
      while (k < n && list[i + k].norm === phrase.words[k]) k++;
      if (k === n) matches.push({ start: u.start, end: list[i + n - 1].end, key: phrase.key });
    }
  }
  if ([...termSet].some((t) => t.includes('@'))) {
    for (const m of body.matchAll(ADDRESS)) {
      const raw = m[0];
      const lead = raw.length - raw.replace(/^[._%+'-]+/, '').length;
      const trimmed = raw.replace(ADDRESS_EDGES, '');
      const key = fold(trimmed);
      const start = (m.index ?? 0) + lead;
      if (termSet.has(key)) matches.push({ start, end: start + trimmed.length, key });
    }
  }
  if (matches.length === 0) return [];

  matches.sort((a, b) => a.start - b.start || b.end - a.end);
  const marks: Match[] = [];
  for (const m of matches) {
    const last = marks[marks.length - 1];
    if (last && m.start <= last.end) last.end = Math.max(last.end, m.end);
    else marks.push({ ...m });
  }
  const firsts: Match[] = [];
  const seenKeys = new Set<string>();
  for (const m of matches) {
    if (seenKeys.has(m.key)) continue;
    seenKeys.add(m.key);
    firsts.push(m);
  }

  const snippets: string[] = [];
  let previousEnd = 0;
  for (const m of firsts) {
    if (snippets.length >= max) break;
    if (m.start < previousEnd) continue; // already shown
    let start = Math.max(previousEnd, m.start - SNIPPET_LEAD);
    let end = Math.min(body.length, Math.max(m.end, start + SNIPPET_LENGTH));
    if (end - start < SNIPPET_LENGTH) start = Math.max(previousEnd, end - SNIPPET_LENGTH);
    if (start > 0 && body[start - 1] !== ' ') {
      const space = body.indexOf(' ', start);
      if (space !== -1 && space < m.start) start = space + 1;
    }
    if (end < body.length && body[end] !== ' ') {
      const space = body.lastIndexOf(' ', end);
      if (space >= m.end) end = space;
    }
    while (start < m.start && body[start] === ' ') start++;
    while (end > m.end && body[end - 1] === ' ') end--;
    let html = start > 0 ? '…' : '';
    let at = start;
    for (const mark of marks) {
      if (mark.start < start || mark.end > end) continue;
      html += `${escapeHtml(body.slice(at, mark.start))}<mark>${escapeHtml(body.slice(mark.start, mark.end))}</mark>`;
      at = mark.end;
    }
    html += escapeHtml(body.slice(at, end)) + (end < body.length ? '…' : '');
    snippets.push(html);
    previousEnd = end;
  }
  return snippets;
}

/** The Latin-1 entities, U+00A0 to U+00FF in order; html reads these without a semicolon too. */
const LATIN1_NAMES =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro ' +
  'para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil ' +
  'Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave ' +
  'Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml ' +
  'igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute ' +
  'thorn yuml';
const ENTITIES: Record<string, string> = {
  ...Object.fromEntries(LATIN1_NAMES.split(' ').map((name, i) => [name, String.fromCharCode(0xa0 + i)])),
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  OElig: 'Œ',
  oelig: 'œ',
  Scaron: 'Š',
  scaron: 'š',
  Yuml: 'Ÿ',
  fnof: 'ƒ',
  circ: 'ˆ',
  tilde: '˜',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  zwnj: '',
  zwj: '',
  lrm: '',
  rlm: '',
  ndash: '–',
  mdash: '—',
  lsquo: '\u2018',
  rsquo: '\u2019',
  sbquo: '\u201a',
  ldquo: '\u201c',
  rdquo: '\u201d',
  bdquo: '\u201e',
  dagger: '†',
  Dagger: '‡',
  bull: '•',
  hellip: '…',
  permil: '‰',
  prime: '′',
  Prime: '″',
  lsaquo: '‹',
  rsaquo: '›',
  euro: '€',
  trade: '™',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
};
const LEGACY_ENTITIES = new Set([...LATIN1_NAMES.split(' '), 'amp', 'lt', 'gt', 'quot']);
const BLOCK_TAGS =
  /^(address|article|aside|blockquote|br|caption|dd|div|dl|dt|figcaption|figure|footer|form|h[1-6]|header|hr|li|main|nav|ol|p|pre|section|table|tbody|td|tfoot|th|thead|tr|ul)$/i;

function decodeEntity(entity: string, body: string, semicolon: string): string {
  if (body[0] === '#') {
    const code =
      body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
    if (!Number.isFinite(code) || code <= 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(code);
  }
  const name = Object.hasOwn(ENTITIES, body) ? body : body.toLowerCase(); // &AMP; &NBSP;
  const value = Object.hasOwn(ENTITIES, name) ? ENTITIES[name] : undefined;
  if (value === undefined || (!semicolon && !LEGACY_ENTITIES.has(name))) return entity;
  return value;
}

/** Plain text of an html body (tags removed, entities decoded, scripts/styles dropped, whitespace collapsed). */
export function textOfHtml(html: string): string {
  return (
    html
      .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
      .replace(/<(script|style|noscript|template)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, ' ')
      .replace(/<head\b[\s\S]*?<\/head\s*>/gi, ' ')
      .replace(/<![^>]*>|<\?[^>]*>/g, ' ')
      .replace(/<\/?([a-zA-Z][a-zA-Z0-9-]*)\b[^>]*>/g, (_tag, name: string) => (BLOCK_TAGS.test(name) ? ' ' : ''))
      .replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31})(;?)/g, decodeEntity)
      // invisible padding (preheaders) and soft hyphens
      .replace(/\u034f|[\u00ad\u200b-\u200d\u2060\ufeff]/g, '')
      .replace(/\s+/gu, ' ')
      .trim()
  );
}
