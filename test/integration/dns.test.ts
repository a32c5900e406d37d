/**
 * DNS lookups (shared/platform/net/dns.ts over shared/platform/net/dns-wire.ts) against the local
 * runtime's DNS stand-in (local/aws/dns.ts), both in this process, and against small fake servers
 * for what the stand-in never does (silence, SERVFAIL, answers to other queries, negative TTLs):
 * an answer is kept for its TTL on the service's clock (moved here by hand, setClockSource), a TTL
 * of 0 and a failure never, a large TXT set comes whole over TCP, no answer is an error.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalDns, type NameRecords, readRecordsFile, startLocalDns, writeRecordsFile } from '../../local/aws/dns';
import { setClockSource } from '../../shared/platform/clock';
import {
  cachedMx,
  cachedTxt,
  DNS_SERVER,
  lookupMx,
  lookupTxt,
  MAX_CACHED_NAMES,
  MAX_KEEP_SECONDS,
  MAX_NEGATIVE_KEEP_SECONDS,
} from '../../shared/platform/net/dns';
import {
  CLASS_IN,
  DnsError,
  type DnsMessage,
  decodeMessage,
  encodeMessage,
  query,
  RCODE,
  type ResourceRecord,
  TYPE,
} from '../../shared/platform/net/dns-wire';

const SECOND = 1000;
let clock = Date.parse('2026-12-01T09:00:00Z');
const advance = (seconds: number) => (clock += seconds * SECOND);

let dir: string;
let txtFile: string;
let mxFile: string;
let dns: LocalDns;
const serverBefore = process.env[DNS_SERVER];

beforeAll(async () => {
  setClockSource(() => clock, { standsStill: true });
  dir = mkdtempSync(join(tmpdir(), 'dns-test-'));
  txtFile = join(dir, 'txt.json');
  mxFile = join(dir, 'mx.json');
  dns = await startLocalDns({ txtFile, mxFile });
});
afterAll(async () => {
  setClockSource(Date.now);
  useServer(serverBefore);
  await dns?.close();
  rmSync(dir, { recursive: true, force: true });
});

function useServer(address: string | undefined): void {
  if (address === undefined) delete process.env[DNS_SERVER];
  else process.env[DNS_SERVER] = address;
}

let unique = 0;
/** A name no other test has asked (the cache is the module's, shared by every test). */
const fresh = (label: string) => `${label}-${++unique}.example.net`;

/** Sets the stand-in's TXT records of `name` as the control API does. */
function setTxt(name: string, records: NameRecords | undefined): void {
  const all = readRecordsFile(txtFile);
  if (records) all[name] = records;
  else delete all[name];
  writeRecordsFile(txtFile, all);
}

describe('the DNS stand-in, asked as the service asks', () => {
  beforeEach(() => useServer(dns.address));

  it('keeps a TTL answer until the clock passes its TTL', async () => {
    const name = fresh('spf');
    setTxt(name, { values: ['v=spf1 include:amazonses.com ~all'], ttl: 300 });
    expect(await cachedTxt(name)).toEqual(['v=spf1 include:amazonses.com ~all']);
    setTxt(name, { values: ['v=spf1 -all'], ttl: 300 });
    expect(await cachedTxt(name.toUpperCase())).toEqual(['v=spf1 include:amazonses.com ~all']);
    advance(299);
    expect(await cachedTxt(name)).toEqual(['v=spf1 include:amazonses.com ~all']);
    expect(await lookupTxt(name)).toEqual(['v=spf1 -all']); // uncached: always as it is now
    advance(2);
    expect(await cachedTxt(name)).toEqual(['v=spf1 -all']);
  });

  it('never keeps a TTL of 0, nor the older file shape (TTL 0)', async () => {
    const name = fresh('zero');
    setTxt(name, { values: ['one'], ttl: 0 });
    expect(await cachedTxt(name)).toEqual(['one']);
    setTxt(name, { values: ['two'], ttl: 0 });
    expect(await cachedTxt(name)).toEqual(['two']);
    const old = fresh('old');
    writeFileSync(txtFile, JSON.stringify({ [old]: ['as before'] }));
    expect(await cachedTxt(old)).toEqual(['as before']);
    writeFileSync(txtFile, JSON.stringify({ [old]: ['changed'] }));
    expect(await cachedTxt(old)).toEqual(['changed']);
  });

  it('answers no records for a name that does not exist or has none of the type, and keeps neither (SOA TTL 0)', async () => {
    const name = fresh('none');
    expect(await cachedTxt(name)).toEqual([]); // NXDOMAIN
    writeRecordsFile(mxFile, { [name]: { values: ['10 inbound-smtp.ap-southeast-2.amazonaws.com'], ttl: 60 } });
    expect(await cachedTxt(name)).toEqual([]); // NODATA
    expect(await cachedMx(name)).toEqual([{ priority: 10, exchange: 'inbound-smtp.ap-southeast-2.amazonaws.com' }]);
    expect(await cachedTxt(`_dmarc.${name}`)).toEqual([]);
    setTxt(name, { values: ['published'], ttl: 0 });
    expect(await cachedTxt(name)).toEqual(['published']); // the negative answers were not kept
  });

  it('answers MX records lowest priority first', async () => {
    const name = fresh('mx');
    writeRecordsFile(mxFile, { [name]: { values: ['20 Backup.Example.net', '10 mx.example.net'], ttl: 0 } });
    expect(await lookupMx(name)).toEqual([
      { priority: 10, exchange: 'mx.example.net' },
      { priority: 20, exchange: 'backup.example.net' },
    ]);
  });

  it('brings a TXT set larger than a UDP answer whole over TCP', async () => {
    const name = fresh('big');
    const values = ['a', 'b', 'c'].map((c, i) => `${i}:${c.repeat(2000)}`);
    setTxt(name, { values, ttl: 0 });
    const before = { ...dns.served };
    expect(await lookupTxt(name)).toEqual(values);
    expect(dns.served).toEqual({ udp: before.udp + 1, tcp: before.tcp + 1 });
  });
});

/** A UDP server that answers each query with what `reply` makes of it (nothing: silence). */
async function fakeServer(reply: (query: DnsMessage) => DnsMessage[]) {
  const socket = createSocket('udp4');
  const queries: DnsMessage[] = [];
  socket.on('message', (bytes, peer) => {
    const asked = decodeMessage(bytes);
    queries.push(asked);
    for (const answer of reply(asked)) socket.send(encodeMessage(answer), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

const responseTo = (asked: DnsMessage, rcode: number, more: Partial<DnsMessage> = {}): DnsMessage => ({
  ...asked,
  response: true,
  recursionAvailable: true,
  rcode,
  additional: [],
  ...more,
});
const txtRecord = (asked: DnsMessage, value: string, ttl: number): ResourceRecord => ({
  name: asked.questions[0].name,
  type: TYPE.TXT,
  class: CLASS_IN,
  ttl,
  data: { kind: 'txt', strings: [Buffer.from(value)] },
});
const soa = (ttl: number, minimum: number): ResourceRecord => ({
  name: 'example.net',
  type: TYPE.SOA,
  class: CLASS_IN,
  ttl,
  data: {
    kind: 'soa',
    mname: 'ns.example.net',
    rname: 'hostmaster.example.net',
    serial: 1,
    refresh: 1,
    retry: 1,
    expire: 1,
    minimum,
  },
});

describe('servers that are not the stand-in', () => {
  const servers: { close(): Promise<void> }[] = [];
  async function serve(reply: (query: DnsMessage) => DnsMessage[]) {
    const server = await fakeServer(reply);
    servers.push(server);
    useServer(server.address);
    return server;
  }
  afterAll(() => Promise.all(servers.map((s) => s.close())));

  it('times out with an error when the server never answers, after asking twice', async () => {
    const silent = await serve(() => []);
    const asking = query('quiet.example.net', TYPE.TXT, { servers: [silent.address], timeoutMs: 200, udpTries: 2 });
    await expect(asking).rejects.toThrow(DnsError);
    await expect(asking).rejects.toMatchObject({ reason: 'timeout' });
    expect(silent.queries).toHaveLength(2);
  });

  it('throws for SERVFAIL and asks again next time (a failure is never kept)', async () => {
    const failing = await serve((asked) => [responseTo(asked, RCODE.SERVFAIL)]);
    const name = fresh('servfail');
    await expect(cachedTxt(name)).rejects.toThrow('The DNS server answered SERVFAIL');
    await expect(cachedTxt(name)).rejects.toMatchObject({ reason: 'rcode', rcode: RCODE.SERVFAIL });
    expect(failing.queries).toHaveLength(2);
  });

  it('ignores a datagram with another id or another question, and takes the answer', async () => {
    await serve((asked) => [
      responseTo(asked, RCODE.NOERROR, { id: (asked.id + 1) & 0xffff, answers: [txtRecord(asked, 'spoofed', 60)] }),
      responseTo(asked, RCODE.NOERROR, {
        questions: [{ ...asked.questions[0], name: 'other.example.net' }],
        answers: [txtRecord(asked, 'other question', 60)],
      }),
      responseTo(asked, RCODE.NOERROR, { answers: [txtRecord(asked, 'the answer', 60)] }),
    ]);
    expect(await lookupTxt(fresh('spoof'))).toEqual(['the answer']);
  });

  it('keeps NXDOMAIN for min(SOA TTL, MINIMUM), at most MAX_NEGATIVE_KEEP_SECONDS', async () => {
    const short = await serve((asked) => [responseTo(asked, RCODE.NXDOMAIN, { authority: [soa(600, 60)] })]);
    const name = fresh('nx');
    expect(await cachedTxt(name)).toEqual([]);
    advance(59);
    expect(await cachedTxt(name)).toEqual([]);
    expect(short.queries).toHaveLength(1);
    advance(2);
    expect(await cachedTxt(name)).toEqual([]);
    expect(short.queries).toHaveLength(2);

    const long = await serve((asked) => [responseTo(asked, RCODE.NXDOMAIN, { authority: [soa(86400, 86400)] })]);
    const other = fresh('nx-long');
    expect(await cachedTxt(other)).toEqual([]);
    advance(MAX_NEGATIVE_KEEP_SECONDS - 1);
    expect(await cachedTxt(other)).toEqual([]);
    expect(long.queries).toHaveLength(1);
    advance(2);
    expect(await cachedTxt(other)).toEqual([]);
    expect(long.queries).toHaveLength(2);
  });

  it('keeps no negative answer without an SOA', async () => {
    const server = await serve((asked) => [responseTo(asked, RCODE.NOERROR)]);
    const name = fresh('nodata');
    expect(await cachedTxt(name)).toEqual([]);
    expect(await cachedTxt(name)).toEqual([]);
    expect(server.queries).toHaveLength(2);
  });

  it('keeps a record set at most MAX_KEEP_SECONDS, whatever its TTL', async () => {
    const server = await serve((asked) => [
      responseTo(asked, RCODE.NOERROR, { answers: [txtRecord(asked, 'v', 86400)] }),
    ]);
    const name = fresh('day');
    expect(await cachedTxt(name)).toEqual(['v']);
    advance(MAX_KEEP_SECONDS - 1);
    expect(await cachedTxt(name)).toEqual(['v']);
    expect(server.queries).toHaveLength(1);
    advance(2);
    expect(await cachedTxt(name)).toEqual(['v']);
    expect(server.queries).toHaveLength(2);
  });

  it(`keeps at most ${MAX_CACHED_NAMES} names, dropping the oldest`, async () => {
    const server = await serve((asked) => [
      responseTo(asked, RCODE.NOERROR, { answers: [txtRecord(asked, 'v', 3600)] }),
    ]);
    const names = Array.from({ length: MAX_CACHED_NAMES + 1 }, () => fresh('many'));
    for (const name of names) await cachedTxt(name);
    expect(server.queries).toHaveLength(MAX_CACHED_NAMES + 1);
    await cachedTxt(names[MAX_CACHED_NAMES]); // the newest is kept
    expect(server.queries).toHaveLength(MAX_CACHED_NAMES + 1);
    await cachedTxt(names[0]); // the oldest was dropped
    expect(server.queries).toHaveLength(MAX_CACHED_NAMES + 2);
  });
});
