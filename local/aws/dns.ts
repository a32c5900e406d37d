/**
 * The local stand-in for DNS: an authoritative server on loopback, UDP and TCP on one port, that
 * the functions ask as they ask the resolver on AWS (DNS_SERVER, shared/platform/net/dns.ts, over
 * the same wire code, shared/platform/net/dns-wire.ts). It answers TXT and MX from
 * DATA_DIR/dns/txt.json and mx.json, which the control API writes (`PUT /_local/dns/txt|mx/<name>`,
 * local/control.ts), read at every query: a record set a moment ago is in the next answer.
 *
 * The files: `{"<name>": {"values": ["..."], "ttl": <seconds>}}` (MX values `"<priority> <host>"`);
 * the older shape `{"<name>": ["..."]}` still reads, as TTL 0. Answers: NOERROR with the records
 * and their TTL; NODATA (a name with records of another type, or one with names below it) and
 * NXDOMAIN (no such name) with an SOA of TTL and MINIMUM 0 in the authority section, so no negative
 * answer is cached; SERVFAIL when a file cannot be read; FORMERR, NOTIMP, REFUSED for what is not
 * a query of one IN question. A UDP answer larger than the query's EDNS payload size (512 bytes
 * without an OPT record) goes out truncated (TC, no records), so a large TXT set takes the TCP path
 * as on a real server.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { dnsName } from '../../shared/platform/net/dns';
import {
  CLASS_IN,
  type DnsMessage,
  decodeMessage,
  EDNS_PAYLOAD_BYTES,
  encodeMessage,
  optRecord,
  PLAIN_UDP_BYTES,
  RCODE,
  type ResourceRecord,
  TYPE,
} from '../../shared/platform/net/dns-wire';

/** One name's records in a file. */
export interface NameRecords {
  values: string[];
  ttl: number;
}

/** A records file: every name's records; none when the file is not there yet. */
export function readRecordsFile(file: string): Record<string, NameRecords> {
  if (!existsSync(file)) return {};
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string[] | NameRecords>;
  return Object.fromEntries(
    Object.entries(stored).map(([name, records]) => [
      name,
      Array.isArray(records) ? { values: records, ttl: 0 } : records,
    ]),
  );
}

/** Rewrites a records file whole: readers see the old file or the new one, never half of it. */
export function writeRecordsFile(file: string, records: Record<string, NameRecords>): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(records));
  renameSync(temporary, file);
}

export interface LocalDns {
  port: number;
  /** `127.0.0.1:<port>`, for DNS_SERVER */
  address: string;
  /** queries answered over each transport since the start */
  served: { udp: number; tcp: number };
  close(): Promise<void>;
}

interface Files {
  txtFile: string;
  mxFile: string;
}

/** The stand-in's zone apex: it answers for every name, as if it held the root. */
const SOA: ResourceRecord = {
  name: '',
  type: TYPE.SOA,
  class: CLASS_IN,
  ttl: 0,
  data: {
    kind: 'soa',
    mname: 'localhost',
    rname: 'hostmaster.localhost',
    serial: 1,
    refresh: 3600,
    retry: 600,
    expire: 86400,
    minimum: 0,
  },
};

/** A TXT value as character-strings of at most 255 bytes (the client joins them again). */
function characterStrings(value: string): Buffer[] {
  const bytes = Buffer.from(value, 'utf8');
  const strings: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) strings.push(bytes.subarray(at, at + 255));
  return strings.length ? strings : [Buffer.alloc(0)];
}

/** A response to `query` from the stand-in, with its question and, when it spoke EDNS, an OPT record. */
const replyTo = (query: DnsMessage, rcode: number, more: Partial<DnsMessage> = {}): DnsMessage => ({
  id: query.id,
  response: true,
  opcode: query.opcode,
  authoritative: true,
  truncated: false,
  recursionDesired: query.recursionDesired,
  recursionAvailable: false,
  rcode,
  questions: query.questions,
  answers: [],
  authority: [],
  additional: query.additional.some((r) => r.type === TYPE.OPT) ? [optRecord(EDNS_PAYLOAD_BYTES)] : [],
  ...more,
});

/** The answer to `query` from the files as they are now. */
export function answer(query: DnsMessage, files: Files): DnsMessage {
  const reply = (rcode: number, more?: Partial<DnsMessage>) => replyTo(query, rcode, more);
  if (query.opcode !== 0) return reply(RCODE.NOTIMP);
  if (query.response || query.questions.length !== 1) return reply(RCODE.FORMERR);
  const [question] = query.questions;
  if (question.class !== CLASS_IN) return reply(RCODE.REFUSED);
  const name = dnsName(question.name);
  const txt = readRecordsFile(files.txtFile);
  const mx = readRecordsFile(files.mxFile);
  const record = (ttl: number, data: ResourceRecord['data']): ResourceRecord => ({
    name: question.name,
    type: question.type,
    class: CLASS_IN,
    ttl,
    data,
  });
  const found =
    question.type === TYPE.TXT
      ? (txt[name]?.values ?? []).map((v) => record(txt[name].ttl, { kind: 'txt', strings: characterStrings(v) }))
      : question.type === TYPE.MX
        ? (mx[name]?.values ?? []).map((v) => {
            const [preference, exchange] = v.split(' ');
            return record(mx[name].ttl, { kind: 'mx', preference: Number(preference), exchange });
          })
        : [];
  if (found.length) return reply(RCODE.NOERROR, { answers: found });
  const names = [...Object.keys(txt), ...Object.keys(mx)];
  const exists = name === '' || names.some((n) => n === name || n.endsWith(`.${name}`));
  return reply(exists ? RCODE.NOERROR : RCODE.NXDOMAIN, { authority: [SOA] });
}

/** `answer`'s bytes; over UDP at most `limit` bytes, else truncated. */
function encodeAnswer(query: DnsMessage, files: Files, limit = Number.POSITIVE_INFINITY): Buffer {
  let reply: DnsMessage;
  let bytes: Buffer;
  try {
    reply = answer(query, files);
    bytes = encodeMessage(reply);
  } catch {
    // a file the control API did not write (hand-edited), or records that would not fit one message
    reply = replyTo(query, RCODE.SERVFAIL);
    bytes = encodeMessage(reply);
  }
  if (bytes.length <= limit) return bytes;
  return encodeMessage({ ...reply, truncated: true, answers: [], authority: [] });
}

/** What a query's bytes get: its answer, FORMERR for bytes that are no message but carry an id, else nothing. */
function respond(bytes: Buffer, files: Files, overUdp: boolean): Buffer | undefined {
  let query: DnsMessage;
  try {
    query = decodeMessage(bytes);
  } catch {
    if (bytes.length < 3 || bytes[2] & 0x80) return undefined; // no id to answer, or an answer itself
    const formerr = Buffer.alloc(12);
    bytes.copy(formerr, 0, 0, 2);
    formerr.writeUInt16BE(0x8000 | RCODE.FORMERR, 2);
    return formerr;
  }
  if (query.response) return undefined; // never answer an answer
  const opt = query.additional.find((r) => r.type === TYPE.OPT);
  const limit = overUdp ? Math.max(PLAIN_UDP_BYTES, opt?.class ?? PLAIN_UDP_BYTES) : undefined;
  try {
    return encodeAnswer(query, files, limit);
  } catch {
    return undefined; // a question that cannot be written back (a label holding a dot): no answer, as for noise
  }
}

const bound = (udp: UdpSocket, host: string) =>
  new Promise<number>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(0, host, () => {
      udp.off('error', reject);
      resolve(udp.address().port);
    });
  });

const listening = (tcp: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(port, host, () => {
      tcp.off('error', reject);
      resolve();
    });
  });

/** A UDP port the kernel picks, and TCP on the same number (taken meanwhile by another program: pick again). */
async function bindBoth(host: string): Promise<{ udp: UdpSocket; tcp: Server; port: number }> {
  for (let attempt = 0; ; attempt++) {
    const udp = createSocket('udp4');
    const port = await bound(udp, host);
    const tcp = createServer();
    try {
      await listening(tcp, port, host);
      return { udp, tcp, port };
    } catch (error) {
      udp.close();
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw error;
    }
  }
}

/** Whether a frame's first bytes can begin a query (no response bit, opcode QUERY, one question); needs its 12 header bytes. */
const beginsQuery = (frame: Buffer) => (frame[2] & 0xf8) === 0 && frame.readUInt16BE(4) === 1;

/**
 * TCP: length-prefixed queries, any number on one connection, answered in order. A peer that does not
 * speak DNS (a frame whose header is no query, or too short to carry one) is disconnected at once, not
 * held until the length its first two bytes happen to declare has arrived.
 */
function serveTcp(socket: Socket, files: Files, served: LocalDns['served']): void {
  let pending = Buffer.alloc(0);
  socket.setTimeout(10_000, () => socket.destroy()); // an idle connection is closed, as servers do
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2) {
      const end = 2 + pending.readUInt16BE(0);
      const frame = pending.subarray(2, Math.min(end, pending.length));
      if (frame.length >= 12 && !beginsQuery(frame)) return socket.destroy();
      if (pending.length < end) return;
      const reply = respond(frame, files, false);
      if (!reply) return socket.destroy();
      pending = pending.subarray(end);
      served.tcp++;
      const length = Buffer.alloc(2);
      length.writeUInt16BE(reply.length);
      socket.write(Buffer.concat([length, reply]));
    }
  });
}

/** The DNS stand-in on `host` (loopback), on a port the kernel picks. */
export async function startLocalDns(
  options: Files & { host?: string; log?: (line: string) => void },
): Promise<LocalDns> {
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? (() => undefined);
  const files = { txtFile: options.txtFile, mxFile: options.mxFile };
  const served = { udp: 0, tcp: 0 };
  const { udp, tcp, port } = await bindBoth(host);
  udp.on('error', (error) =>
    log(JSON.stringify({ level: 'ERROR', message: 'DNS stand-in (UDP)', error: String(error) })),
  );
  udp.on('message', (bytes, peer) => {
    const reply = respond(bytes, files, true);
    if (!reply) return;
    served.udp++;
    udp.send(reply, peer.port, peer.address);
  });
  const connections = new Set<Socket>();
  tcp.on('connection', (socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    serveTcp(socket, files, served);
  });
  return {
    port,
    address: `${host}:${port}`,
    served,
    close: async () => {
      for (const socket of connections) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => udp.close(() => resolve())),
        new Promise<void>((resolve) => tcp.close(() => resolve())),
      ]);
    },
  };
}
