/**
 * Threading: which conversation of an inbox an arriving message belongs to. Pure (no I/O): the
 * caller answers the two questions of ThreadingStore from its keys (keys.inboxMessageId,
 * keys.inboxSubject) and records each message it files (its Message-ID; its subject per
 * participant); test/fixtures/threading/ holds a corpus in the formats of real clients that
 * checks these rules (test/unit/inbox-threading.test.ts).
 *
 * 1. Headers. A message names what it answers: In-Reply-To (its parent), References (the chain,
 *    oldest first). The ids are tried most specific first (In-Reply-To, then References from the
 *    newest back), so a reply finds its thread even when the inbox missed some of the chain
 *    (a side conversation it was not copied on). Headers win over everything else, whatever the
 *    subject or the time since: a reply is a reply, also when its writer changed the subject or
 *    answered months later. Broken headers are read leniently (no brackets, commas, comments,
 *    junk), because the id is the one signal that never merges two conversations by mistake.
 *    The message's own id is tried last: a reply that overtook its original named it, and the
 *    filer keeps the ids a message names for its thread (shared/inboxes/filing.ts).
 * 2. Subject fallback, for the replies whose headers are gone (Outlook without References or
 *    In-Reply-To, webmail gateways, copy-and-paste): the same normalized subject, with one of the
 *    same people, within SUBJECT_WINDOW_MS of that person's last message in the thread. The
 *    participant condition keeps two customers who both write "Help" apart; the window keeps a
 *    "Re: Invoice" of next quarter out of this quarter's thread. The newest matching thread wins.
 *    The fallback is taken only when the message says it is a reply:
 *    - its subject's outermost prefix is a reply prefix ("Re:", "AW:", "SV:", "回复：", ...), or
 *    - it has no prefix at all but references ids the inbox has never seen (a client that adds no
 *      prefix, or a writer who deleted it).
 *    Not for a message with neither: the same sender writing "Invoice" or "Weekly report" twice
 *    in a fortnight is two matters, and merging unrelated mail is worse than splitting one
 *    conversation (a split is seen and merged by hand; a merge shows one customer's mail in
 *    another's conversation). The price: a follow-up written as a fresh message with the same
 *    subject starts a new thread. Not for a forward either ("Fwd:", "WG:", "TR:", ... outermost):
 *    forwarded mail without known references is a new matter brought in, often by a colleague
 *    who forwards many mails titled "Help"; a forward with References to a message of the inbox
 *    stays in its thread by rule 1. On the corpus (298 messages): this rule files 99.7% right (its
 *    one miss is such a fresh follow-up); the fallback for any message with a subject 94.3% (it
 *    merges the recurring "Invoice", "Question", "Weekly delivery report"); for any prefix, reply
 *    or forward, 98.0% (it merges a colleague's two forwards of different customers' "Help"); for
 *    a reply prefix only, not for unknown references, 98.7% (it splits off a ticketing system's
 *    answer, which keeps the subject as it was).
 *
 * Normalized forms, as stored and compared: Message-IDs trimmed, without brackets, lower-cased
 * (clients and gateways change the case; ids differing only in case are one message in practice);
 * subjects without any number or mix of reply/forward prefixes in the languages clients write,
 * bracketed list tags kept (the list's subject carries them on every message of the list),
 * whitespace collapsed, NFKC (full-width "Ｒｅ：" is "Re:"), lower-cased; participants as bare
 * lower-cased addresses of From, To and Cc without the inbox's own (Bcc is not seen by the others
 * and the inbox is in every message of its threads).
 */

/** Reply prefixes, by the languages and clients that write them (matched case-insensitively, before a colon). */
const REPLY_PREFIXES = [
  're', // English, and most clients in every language
  'aw', // German (Antwort)
  'antwort',
  'sv', // Swedish, Norwegian, Danish, Icelandic (Svar)
  'svar',
  'vs', // Finnish (Vastaus); Danish and Norwegian Outlook write it for a forward, read as a reply all the same
  'antw', // Dutch (Antwoord)
  'res', // Portuguese (Resposta)
  'odp', // Polish, Czech (Odpowiedź, Odpověď)
  'odg', // Slovenian, Croatian (Odgovor)
  'ynt', // Turkish (Yanıt)
  'r', // Italian (Risposta)
  'rif', // Italian (Riferimento)
  'atb', // Latvian, Welsh
  'vá', // Hungarian (Válasz)
  'balas', // Indonesian, Malay
  'απ', // Greek (Απάντηση)
  'σχετ', // Greek (Σχετικά)
  'отв', // Russian (Ответ)
  'ответ',
  'одг', // Serbian
  'השב', // Hebrew
  'رد', // Arabic
  '回复', // Chinese (simplified)
  '回覆', // Chinese (traditional)
  '答复', // Chinese (Outlook, simplified)
  '答覆', // Chinese (Outlook, traditional)
  '返信', // Japanese
  '회신', // Korean (Outlook)
  '답장', // Korean
];

/** Forward prefixes. */
const FORWARD_PREFIXES = [
  'fwd',
  'fw',
  'fwrd',
  'wg', // German (Weitergeleitet)
  'vb', // Swedish (Vidarebefordrat)
  'vl', // Finnish (Välitetty)
  'doorst', // Dutch (Doorsturen)
  'tr', // French (Transféré)
  'rv', // Spanish (Reenviado)
  'enc', // Portuguese (Encaminhado)
  'pd', // Polish (Prześlij dalej)
  'i', // Italian (Inoltrato)
  '[iİı]\u0307?lt', // Turkish (İlet): İ does not case-fold to i, so its spellings are listed
  'pārs', // Latvian
  'posl', // Slovenian (Posredovano)
  'prosl', // Croatian (Proslijeđeno)
  'továbbítás', // Hungarian
  'trs', // Indonesian (Terusan)
  'πρθ', // Greek (Προώθηση)
  'пересл', // Russian (Переслано)
  'הועבר', // Hebrew
  '转发', // Chinese (simplified)
  '轉發', // Chinese (traditional)
  '转寄',
  '轉寄', // Chinese (traditional, Outlook)
  '転送', // Japanese
  '전달', // Korean
];

const alternatives = (list: string[]) => [...list].sort((a, b) => b.length - a.length).join('|');
/**
 * One prefix at the start: the word, an optional counter ("Re[2]:", "RE^2:", "Re(2):"), the
 * colon (full-width "：" is ":" after NFKC), with optional space before it (French "RE :").
 */
const PREFIX = new RegExp(
  `^(?:(${alternatives(REPLY_PREFIXES)})|(${alternatives(FORWARD_PREFIXES)}))` +
    '(?:\\s*(?:\\[\\d+\\]|\\(\\d+\\)|\\^\\d+))?\\s*:\\s*',
  'iu',
);
/** A bracketed tag at the start ("[support]", "[EXTERNAL]"). */
const TAG = /^\[([^[\]]*)\]\s*/u;
/** Pine and others append "(fwd)". */
const TRAILING_FWD = /\s*\(fwd\)$/iu;
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/gu;

interface SubjectParts {
  tags: string[];
  rest: string;
  /** the outermost prefix */
  first: 'reply' | 'forward' | undefined;
}

function subjectParts(subject: string | null | undefined): SubjectParts {
  let rest = (subject ?? '').normalize('NFKC').replace(INVISIBLE, '').replace(/\s+/gu, ' ').trim();
  const tags: string[] = [];
  let first: SubjectParts['first'];
  for (;;) {
    const prefix = PREFIX.exec(rest);
    if (prefix) {
      first ??= prefix[1] ? 'reply' : 'forward';
      rest = rest.slice(prefix[0].length);
      continue;
    }
    const tag = TAG.exec(rest);
    if (!tag) break;
    rest = rest.slice(tag[0].length);
    if (PREFIX.test(tag[1].trim())) {
      // Netscape's and old Thunderbird's forward: "[Fwd: Subject]"
      rest = `${tag[1].trim()} ${rest}`.trim();
      continue;
    }
    const kept = tag[0].trim();
    if (!tags.some((t) => t.toLowerCase() === kept.toLowerCase())) tags.push(kept);
  }
  if (TRAILING_FWD.test(rest)) {
    rest = rest.replace(TRAILING_FWD, '');
    first ??= 'forward';
  }
  return { tags, rest, first };
}

const normalizedOf = ({ tags, rest }: SubjectParts) => [...tags, rest].join(' ').trim().toLowerCase();

/** The subject without reply/forward prefixes (list tags kept, in front), whitespace collapsed, lower-cased. */
export function normalizeSubject(subject: string | null | undefined): string {
  return normalizedOf(subjectParts(subject));
}

/** true when the subject starts (after any list tags) with a reply or forward prefix, or is an old-style forward ("[Fwd: x]", "x (fwd)"). */
export function hasReplyPrefix(subject: string | null | undefined): boolean {
  return subjectParts(subject).first !== undefined;
}

/** Whether the outermost prefix is a reply's or a forward's ("Fwd: Re: x" is a forward); undefined without one. */
export function subjectPrefixKind(subject: string | null | undefined): 'reply' | 'forward' | undefined {
  return subjectParts(subject).first;
}

import { normalizeMessageId } from '../platform/mail/message-id';

export { normalizeMessageId };

export const MAX_REFERENCED_IDS = 20;

/** The ids in one header, in order: comments removed, then any token that is an id, bracketed or not. */
function idsInHeader(value: string | null | undefined): string[] {
  if (!value) return [];
  let text = value;
  // comments nest: remove the innermost until none is left; an unclosed "(" is then a separator
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(/\([^()]*\)/g, ' ');
  }
  // commas, semicolons, quotes and parentheses are never in an id (RFC 5322 atext), brackets delimit it
  return text
    .split(/[\s,;<>()"]+/)
    .map(normalizeMessageId)
    .filter(Boolean);
}

/**
 * The ids a message refers to, most specific first: In-Reply-To's, then References' from the
 * newest to the oldest; deduplicated; at most MAX_REFERENCED_IDS (one BatchGet of the keys).
 */
export function referencedMessageIds(
  inReplyTo: string | null | undefined,
  references: string | null | undefined,
): string[] {
  const ids = [...idsInHeader(inReplyTo), ...idsInHeader(references).reverse()];
  return [...new Set(ids)].slice(0, MAX_REFERENCED_IDS);
}

import { bareAddressOf } from '../platform/mail/bare-address';

export { bareAddressOf };

export const MAX_PARTICIPANTS = 10;

/** The people a message is between for the inbox: From, To, Cc (not Bcc) without the inbox's own address; at most 10. */
export function participantsOf(message: { from: string; to: string[]; cc: string[] }, inboxAddress: string): string[] {
  const inbox = bareAddressOf(inboxAddress) || inboxAddress.trim().toLowerCase();
  const all = [message.from, ...message.to, ...message.cc].map(bareAddressOf);
  return [...new Set(all.filter((a) => a && a !== inbox))].slice(0, MAX_PARTICIPANTS);
}

export const SUBJECT_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/**
 * What the inbox already knows, as its keys in the database answer it (the caller implements it
 * with key lookups). A filer records, besides each message's own Message-ID, the ids it names
 * that the inbox has not seen, for its thread: the original that arrives after its reply then
 * finds the thread by its own id (rule 1, the last id tried).
 */
export interface ThreadingStore {
  /** the thread of the first of these (normalized) Message-IDs that the inbox has seen, in the order given */
  threadOfMessageIds(ids: string[]): Promise<string | undefined>;
  /** the thread whose normalized subject is this and that had a message with this participant at or after `sinceMs`; the newest such thread */
  threadOfSubject(normalizedSubject: string, participant: string, sinceMs: number): Promise<string | undefined>;
}

export interface ArrivingMessage {
  subject: string | null;
  message_id: string | null;
  /** raw header value */
  in_reply_to: string | null;
  /** raw header value */
  references: string | null;
  from: string;
  to: string[];
  cc: string[];
  received_at_ms: number;
}

export type ThreadChoice = { threadId: string | undefined; by: 'headers' | 'subject' | 'new' };

/** Which existing thread the message belongs to, and how that was decided; undefined threadId = a new thread. */
export async function chooseThread(
  message: ArrivingMessage,
  inboxAddress: string,
  store: ThreadingStore,
): Promise<ThreadChoice> {
  const ids = referencedMessageIds(message.in_reply_to, message.references);
  // its own id last: a message filed before it named it (a reply that overtook its original, or
  // one filed at the same moment), and the filer keeps the ids it names (see ThreadingStore)
  const own = message.message_id ? normalizeMessageId(message.message_id) : '';
  const lookedUp = own && !ids.includes(own) ? [...ids, own] : ids;
  if (lookedUp.length > 0) {
    const threadId = await store.threadOfMessageIds(lookedUp);
    if (threadId) return { threadId, by: 'headers' };
  }
  const parts = subjectParts(message.subject);
  const normalized = normalizedOf(parts);
  const saysReply = parts.first === 'reply' || (parts.first === undefined && ids.length > 0);
  if (normalized && saysReply) {
    const since = message.received_at_ms - SUBJECT_WINDOW_MS;
    for (const participant of participantsOf(message, inboxAddress)) {
      const threadId = await store.threadOfSubject(normalized, participant, since);
      if (threadId) return { threadId, by: 'subject' };
    }
  }
  return { threadId: undefined, by: 'new' };
}
