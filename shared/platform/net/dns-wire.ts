/**
 * DNS over the wire (RFC 1035, EDNS0 of RFC 6891), for the few lookups the service makes
 * (./dns.ts): node's resolver (`node:dns/promises`) gives no TTL for TXT or MX answers, so an
 * answer could only be kept a guessed while; asked directly, every answer says how long it may be
 * kept. The local runtime's DNS stand-in (local/aws/dns.ts) builds its answers with the same
 * encoder, so both ends read the same packets.
 *
 * A query: a random 16-bit id, recursion desired, one question, an OPT record advertising
 * EDNS_PAYLOAD_BYTES. Over UDP first; an answer with TC set is asked again over TCP (2-byte length
 * prefix), which carries up to 64 KB. Each try waits `timeoutMs` of machine time (a network wait
 * measures the machine, not the service's calendar: ../clock.ts); after `udpTries` unanswered UDP
 * tries (each to the next server listed), a DnsError. A datagram that is not the answer to this
 * query (another id, another question, not a response: a late answer to an earlier try, a spoofed
 * one) is ignored; one that is, but is malformed, is an error.
 *
 * The decoder trusts nothing: every read is bounds-checked, a compression pointer must point
 * before the name it continues and before the previous pointer (so a loop cannot be built) and at
 * most MAX_POINTERS are followed, names stop at 255 bytes, and record data must end exactly where
 * its length says. Whatever the bytes, it returns or throws a DnsError, promptly.
 *
 * Answers (`query`): NOERROR and NXDOMAIN are answers (NXDOMAIN and NODATA have no records);
 * anything else (SERVFAIL, REFUSED, ...) throws, so a caller tells "no record" from "could not ask".
 * A recursive resolver answers a name that is an alias with the CNAME chain and the records at its
 * end: the records of the asked type at the end of the chain are the answer, kept as long as the
 * shortest TTL along it. A negative answer is kept min(SOA TTL, SOA MINIMUM) (RFC 2308), and not at
 * all without an SOA.
 */
import { randomInt } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { connect, isIP } from 'node:net';

export const TYPE = { A: 1, NS: 2, CNAME: 5, SOA: 6, MX: 15, TXT: 16, AAAA: 28, OPT: 41 } as const;
export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
export const CLASS_IN = 1;
/** What a query offers to take over UDP (RFC 6891's suggested size; big enough for most TXT sets). */
export const EDNS_PAYLOAD_BYTES = 4096;
/** What a UDP answer may hold when the query had no OPT record (RFC 1035). */
export const PLAIN_UDP_BYTES = 512;
/** The largest DNS message: TCP's 2-byte length prefix. */
export const MAX_MESSAGE_BYTES = 0xffff;
/** No real name needs more: a name has at most 127 labels. */
const MAX_POINTERS = 127;
const MAX_NAME_BYTES = 255;

/** Everything that can go wrong asking or reading DNS: the only error this module throws. */
export class DnsError extends Error {
  constructor(
    /** `malformed`: bytes that are no DNS message; `timeout`: no answer in time; `rcode`: the server's error answer; `network`: a socket error */
    readonly reason: 'malformed' | 'timeout' | 'rcode' | 'network',
    message: string,
    /** the server's response code, for `rcode` */
    readonly rcode?: number,
  ) {
    super(message);
    this.name = 'DnsError';
  }
}

export interface Question {
  /** labels joined with dots, no trailing dot; '' is the root */
  name: string;
  type: number;
  class: number;
}

/** A record's data, read for the types the service asks about; any other type's bytes as they are. */
export type RecordData =
  | { kind: 'txt'; strings: Buffer[] }
  | { kind: 'mx'; preference: number; exchange: string }
  | { kind: 'cname'; target: string }
  | {
      kind: 'soa';
      mname: string;
      rname: string;
      serial: number;
      refresh: number;
      retry: number;
      expire: number;
      minimum: number;
    }
  | { kind: 'raw'; bytes: Buffer };

export interface ResourceRecord {
  name: string;
  type: number;
  /** for OPT: the sender's UDP payload size */
  class: number;
  /** seconds; for OPT: extended rcode, version and flags */
  ttl: number;
  data: RecordData;
}

export interface DnsMessage {
  id: number;
  /** QR: a response */
  response: boolean;
  opcode: number;
  authoritative: boolean;
  truncated: boolean;
  recursionDesired: boolean;
  recursionAvailable: boolean;
  /** with an OPT record, its extended bits above the header's four */
  rcode: number;
  questions: Question[];
  answers: ResourceRecord[];
  authority: ResourceRecord[];
  additional: ResourceRecord[];
}

const malformed = (why: string) => new DnsError('malformed', `Malformed DNS message: ${why}`);

/** Reads a message front to back; every read checks it stays inside. */
class Reader {
  offset = 0;
  constructor(readonly bytes: Buffer) {}

  private need(n: number, end = this.bytes.length): void {
    if (this.offset + n > end) throw malformed(`truncated at byte ${this.offset}`);
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.offset++];
  }
  u16(): number {
    this.need(2);
    const value = this.bytes.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }
  u32(): number {
    this.need(4);
    const value = this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  take(n: number, end?: number): Buffer {
    this.need(n, end);
    const slice = Buffer.from(this.bytes.subarray(this.offset, this.offset + n)); // a copy: the datagram's buffer is not kept
    this.offset += n;
    return slice;
  }
  /** A name at the current offset, following compression pointers (see the header for the loop rule). */
  name(): string {
    const { bytes } = this;
    const labels: string[] = [];
    let at = this.offset;
    let resumeAt = -1; // where reading goes on after the name: after its first pointer, or its end
    let below = this.offset; // a pointer must point before this
    let pointers = 0;
    let length = 1;
    for (;;) {
      if (at >= bytes.length) throw malformed(`truncated name at byte ${at}`);
      const size = bytes[at];
      if (size === 0) {
        if (resumeAt < 0) resumeAt = at + 1;
        break;
      }
      if ((size & 0xc0) === 0xc0) {
        if (at + 1 >= bytes.length) throw malformed(`truncated pointer at byte ${at}`);
        const target = ((size & 0x3f) << 8) | bytes[at + 1];
        if (target >= below) throw malformed(`compression pointer at byte ${at} does not point back`);
        if (++pointers > MAX_POINTERS) throw malformed(`more than ${MAX_POINTERS} compression pointers in a name`);
        if (resumeAt < 0) resumeAt = at + 2;
        below = target;
        at = target;
        continue;
      }
      if (size & 0xc0) throw malformed(`unknown label type at byte ${at}`);
      if (at + 1 + size > bytes.length) throw malformed(`truncated label at byte ${at}`);
      length += size + 1;
      if (length > MAX_NAME_BYTES) throw malformed(`name longer than ${MAX_NAME_BYTES} bytes`);
      labels.push(bytes.toString('latin1', at + 1, at + 1 + size));
      at += 1 + size;
    }
    this.offset = resumeAt;
    return labels.join('.');
  }
}

/** The header and the question section: enough to tell whose answer a datagram is. */
function readHead(reader: Reader): { message: DnsMessage; counts: [number, number, number] } {
  const id = reader.u16();
  const flags = reader.u16();
  const [qd, an, ns, ar] = [reader.u16(), reader.u16(), reader.u16(), reader.u16()];
  const questions: Question[] = [];
  for (let i = 0; i < qd; i++) questions.push({ name: reader.name(), type: reader.u16(), class: reader.u16() });
  const message: DnsMessage = {
    id,
    response: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    authoritative: (flags & 0x0400) !== 0,
    truncated: (flags & 0x0200) !== 0,
    recursionDesired: (flags & 0x0100) !== 0,
    recursionAvailable: (flags & 0x0080) !== 0,
    rcode: flags & 0xf,
    questions,
    answers: [],
    authority: [],
    additional: [],
  };
  return { message, counts: [an, ns, ar] };
}

function readData(reader: Reader, type: number, end: number): RecordData {
  switch (type) {
    case TYPE.TXT: {
      const strings: Buffer[] = [];
      while (reader.offset < end) strings.push(reader.take(reader.u8(), end));
      return { kind: 'txt', strings };
    }
    case TYPE.MX:
      return { kind: 'mx', preference: reader.u16(), exchange: reader.name() };
    case TYPE.CNAME:
      return { kind: 'cname', target: reader.name() };
    case TYPE.SOA:
      return {
        kind: 'soa',
        mname: reader.name(),
        rname: reader.name(),
        serial: reader.u32(),
        refresh: reader.u32(),
        retry: reader.u32(),
        expire: reader.u32(),
        minimum: reader.u32(),
      };
    default:
      return { kind: 'raw', bytes: reader.take(end - reader.offset, end) };
  }
}

function readRecord(reader: Reader): ResourceRecord {
  const name = reader.name();
  const [type, klass, ttl, length] = [reader.u16(), reader.u16(), reader.u32(), reader.u16()];
  const end = reader.offset + length;
  if (end > reader.bytes.length) throw malformed(`record data runs past the message at byte ${reader.offset}`);
  const data = readData(reader, type, end);
  if (reader.offset !== end) throw malformed(`record data of type ${type} does not end where its length says`);
  return { name, type, class: klass, ttl, data };
}

/** A whole message; throws a DnsError for bytes that are not one. Bytes after the last record are ignored. */
export function decodeMessage(bytes: Uint8Array): DnsMessage {
  const reader = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const { message, counts } = readHead(reader);
  const [an, ns, ar] = counts;
  for (let i = 0; i < an; i++) message.answers.push(readRecord(reader));
  for (let i = 0; i < ns; i++) message.authority.push(readRecord(reader));
  for (let i = 0; i < ar; i++) message.additional.push(readRecord(reader));
  const opt = message.additional.find((r) => r.type === TYPE.OPT);
  if (opt) message.rcode |= (opt.ttl >>> 24) << 4;
  return message;
}

/** Writes a message into a buffer of the largest size, compressing names against those written before. */
class Writer {
  readonly bytes = Buffer.alloc(MAX_MESSAGE_BYTES);
  offset = 0;
  private readonly names = new Map<string, number>();

  private need(n: number): void {
    if (this.offset + n > this.bytes.length) throw malformed(`longer than ${MAX_MESSAGE_BYTES} bytes`);
  }
  u8(value: number): void {
    this.need(1);
    this.bytes[this.offset++] = value;
  }
  u16(value: number): void {
    this.need(2);
    this.offset = this.bytes.writeUInt16BE(value, this.offset);
  }
  u32(value: number): void {
    this.need(4);
    this.offset = this.bytes.writeUInt32BE(value >>> 0, this.offset);
  }
  put(data: Uint8Array): void {
    this.need(data.length);
    this.bytes.set(data, this.offset);
    this.offset += data.length;
  }
  name(name: string): void {
    const labels = name === '' ? [] : name.split('.');
    // on the wire: a length byte per label, the labels, the root's 0
    if (labels.length && Buffer.byteLength(name, 'latin1') + 2 > MAX_NAME_BYTES)
      throw malformed(`name too long: ${name}`);
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.').toLowerCase();
      const earlier = this.names.get(suffix);
      if (earlier !== undefined) {
        this.u16(0xc000 | earlier);
        return;
      }
      const label = Buffer.from(labels[i], 'latin1');
      if (label.length === 0 || label.length > 63) throw malformed(`label of ${label.length} bytes in ${name}`);
      if (this.offset < 0x4000) this.names.set(suffix, this.offset);
      this.u8(label.length);
      this.put(label);
    }
    this.u8(0);
  }
  /** A 16-bit length at `at`, of what was written since `at + 2`. */
  lengthAt(at: number): void {
    this.bytes.writeUInt16BE(this.offset - at - 2, at);
  }
}

function writeData(writer: Writer, data: RecordData): void {
  switch (data.kind) {
    case 'txt':
      for (const s of data.strings) {
        if (s.length > 255) throw malformed('a TXT character-string longer than 255 bytes');
        writer.u8(s.length);
        writer.put(s);
      }
      return;
    case 'mx':
      writer.u16(data.preference);
      writer.name(data.exchange);
      return;
    case 'cname':
      writer.name(data.target);
      return;
    case 'soa':
      writer.name(data.mname);
      writer.name(data.rname);
      for (const n of [data.serial, data.refresh, data.retry, data.expire, data.minimum]) writer.u32(n);
      return;
    case 'raw':
      writer.put(data.bytes);
      return;
  }
}

/** The bytes of `message` (names compressed); throws a DnsError when it would not fit 64 KB. */
export function encodeMessage(message: DnsMessage): Buffer {
  const w = new Writer();
  w.u16(message.id);
  w.u16(
    (message.response ? 0x8000 : 0) |
      ((message.opcode & 0xf) << 11) |
      (message.authoritative ? 0x0400 : 0) |
      (message.truncated ? 0x0200 : 0) |
      (message.recursionDesired ? 0x0100 : 0) |
      (message.recursionAvailable ? 0x0080 : 0) |
      (message.rcode & 0xf),
  );
  const sections = [message.answers, message.authority, message.additional];
  for (const count of [message.questions.length, ...sections.map((s) => s.length)]) w.u16(count);
  for (const q of message.questions) {
    w.name(q.name);
    w.u16(q.type);
    w.u16(q.class);
  }
  for (const record of sections.flat()) {
    w.name(record.name);
    w.u16(record.type);
    w.u16(record.class);
    w.u32(record.ttl);
    const at = w.offset;
    w.u16(0);
    writeData(w, record.data);
    w.lengthAt(at);
  }
  return Buffer.from(w.bytes.subarray(0, w.offset));
}

/** An OPT pseudo-record offering `payloadBytes` over UDP (EDNS version 0, no flags). */
export const optRecord = (payloadBytes: number): ResourceRecord => ({
  name: '',
  type: TYPE.OPT,
  class: payloadBytes,
  ttl: 0,
  data: { kind: 'raw', bytes: Buffer.alloc(0) },
});

/** A recursive query for `name`'s records of `type`, with EDNS0. */
export const queryMessage = (id: number, name: string, type: number): DnsMessage => ({
  id,
  response: false,
  opcode: 0,
  authoritative: false,
  truncated: false,
  recursionDesired: true,
  recursionAvailable: false,
  rcode: RCODE.NOERROR,
  questions: [{ name, type, class: CLASS_IN }],
  answers: [],
  authority: [],
  additional: [optRecord(EDNS_PAYLOAD_BYTES)],
});

/** Names compare without case (a resolver may randomise it, "0x20") and without a trailing dot. */
const sameName = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');

/** Whether `message` is a response to `query`: its id and its one question. */
function respondsTo(message: DnsMessage, query: DnsMessage): boolean {
  const [asked] = query.questions;
  const [q, ...more] = message.questions;
  return (
    message.response &&
    message.id === query.id &&
    q !== undefined &&
    more.length === 0 &&
    sameName(q.name, asked.name) &&
    q.type === asked.type &&
    q.class === asked.class
  );
}

/** Whether the bytes are a response to `query`, judged by their header and question only. */
function isResponseTo(bytes: Buffer, query: DnsMessage): boolean {
  try {
    return respondsTo(readHead(new Reader(bytes)).message, query);
  } catch {
    return false; // not even a header and a question: someone else's datagram
  }
}

type Server = { host: string; port: number };

/** A server as `host`, `host:port`, `[v6]:port` or a bare IPv6 address (what node's getServers() lists, and DNS_SERVER). */
export function serverAddress(server: string): Server {
  if (isIP(server)) return { host: server, port: 53 };
  const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+)(?::(\d+))?$/.exec(server);
  const port = Number(match?.[2] ?? 53);
  if (!match || !Number.isInteger(port) || port < 1 || port > 0xffff)
    throw new DnsError('network', `Not a DNS server address: ${server}`);
  return { host: match[1], port };
}

const where = (s: Server) => (isIP(s.host) === 6 ? `[${s.host}]:${s.port}` : `${s.host}:${s.port}`);

/** One UDP try: the first datagram answering `query`, or a DnsError. */
function overUdp(server: Server, query: DnsMessage, timeoutMs: number): Promise<DnsMessage> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
    let done = false;
    const finish = (error: DnsError | undefined, message?: DnsMessage) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      try {
        socket.close();
      } catch {
        // closed already
      }
      if (error) reject(error);
      else resolve(message!);
    };
    const timer = setTimeout(
      () => finish(new DnsError('timeout', `No DNS answer from ${where(server)} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('error', (error) =>
      finish(new DnsError('network', `DNS over UDP to ${where(server)}: ${error.message}`)),
    );
    socket.on('message', (bytes) => {
      if (!isResponseTo(bytes, query)) return;
      try {
        finish(undefined, decodeMessage(bytes));
      } catch (error) {
        finish(error as DnsError);
      }
    });
    // connected: the kernel drops datagrams from any other address
    socket.connect(server.port, server.host, () => socket.send(encodeMessage(query)));
  });
}

/** The query over TCP (after a truncated UDP answer): one message each way, length-prefixed. */
function overTcp(server: Server, query: DnsMessage, timeoutMs: number): Promise<DnsMessage> {
  return new Promise((resolve, reject) => {
    const request = encodeMessage(query);
    const socket = connect({ host: server.host, port: server.port });
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    const finish = (error: DnsError | undefined, message?: DnsMessage) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(message!);
    };
    const timer = setTimeout(
      () => finish(new DnsError('timeout', `No DNS answer over TCP from ${where(server)} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(request.length);
      socket.write(Buffer.concat([length, request]));
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received < 2) return;
      const all = Buffer.concat(chunks);
      const end = 2 + all.readUInt16BE(0);
      if (received < end) return;
      try {
        const message = decodeMessage(all.subarray(2, end));
        if (!respondsTo(message, query)) throw malformed('the TCP answer is not for this query');
        finish(undefined, message);
      } catch (error) {
        finish(error as DnsError);
      }
    });
    socket.on('error', (error) =>
      finish(new DnsError('network', `DNS over TCP to ${where(server)}: ${error.message}`)),
    );
    socket.on('close', () =>
      finish(new DnsError('network', `DNS over TCP: ${where(server)} closed before the whole answer`)),
    );
  });
}

const RCODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(RCODE).map(([k, v]) => [v, k]));

/** What a lookup found. */
export interface Answer {
  /** NOERROR or NXDOMAIN */
  rcode: number;
  /** the records of the asked type, at the end of any CNAME chain; none for NXDOMAIN and NODATA */
  records: RecordData[];
  /**
   * Seconds the answer may be kept: the smallest TTL of the records and the chain to them; for no
   * records, min(SOA TTL, SOA MINIMUM) of the authority section (and the chain's); undefined
   * without an SOA (not to be kept).
   */
  ttl: number | undefined;
}

/** RFC 2181 §8: a TTL with the top bit set is read as 0. */
const ttlOf = (ttl: number) => (ttl > 0x7fffffff ? 0 : ttl);

/** The answer of a response to a question about `name`'s records of `type`; throws for an error rcode. */
export function answerOf(message: DnsMessage, name: string, type: number): Answer {
  const { rcode } = message;
  if (rcode !== RCODE.NOERROR && rcode !== RCODE.NXDOMAIN)
    throw new DnsError('rcode', `The DNS server answered ${RCODE_NAMES[rcode] ?? `rcode ${rcode}`}`, rcode);
  let owner = name;
  let ttl = Number.POSITIVE_INFINITY;
  const followed = new Set<string>();
  for (;;) {
    const records = message.answers.filter((r) => r.type === type && sameName(r.name, owner));
    if (records.length && rcode === RCODE.NOERROR)
      return { rcode, records: records.map((r) => r.data), ttl: Math.min(ttl, ...records.map((r) => ttlOf(r.ttl))) };
    const alias = message.answers.find((r) => r.type === TYPE.CNAME && sameName(r.name, owner));
    if (alias?.data.kind !== 'cname' || followed.has(owner.toLowerCase())) break;
    followed.add(owner.toLowerCase());
    ttl = Math.min(ttl, ttlOf(alias.ttl));
    owner = alias.data.target;
  }
  const soa = message.authority.find((r) => r.type === TYPE.SOA);
  if (soa?.data.kind !== 'soa') return { rcode, records: [], ttl: undefined };
  return { rcode, records: [], ttl: Math.min(ttl, ttlOf(soa.ttl), ttlOf(soa.data.minimum)) };
}

export interface QueryOptions {
  /** the servers to ask, as `serverAddress` reads them; each UDP try asks the next */
  servers: string[];
  /** each try's wait, machine time */
  timeoutMs?: number;
  udpTries?: number;
}

export const QUERY_TIMEOUT_MS = 2000;
export const UDP_TRIES = 2;

/** `name`'s records of `type`, asked of `servers` (see the header). Throws a DnsError when no answer came. */
export async function query(name: string, type: number, options: QueryOptions): Promise<Answer> {
  const { servers, timeoutMs = QUERY_TIMEOUT_MS, udpTries = UDP_TRIES } = options;
  if (servers.length === 0) throw new DnsError('network', 'No DNS server to ask');
  let failure = new DnsError('timeout', 'No DNS answer');
  for (let attempt = 0; attempt < udpTries; attempt++) {
    const server = serverAddress(servers[attempt % servers.length]);
    const question = queryMessage(randomInt(0x10000), name, type);
    let response: DnsMessage;
    try {
      response = await overUdp(server, question, timeoutMs);
    } catch (error) {
      if ((error as DnsError).reason === 'malformed') throw error;
      failure = error as DnsError; // no answer from this one: the next try
      continue;
    }
    if (response.truncated) response = await overTcp(server, question, timeoutMs);
    return answerOf(response, name, type);
  }
  throw failure;
}
