/**
 * shared/platform/net/dns-wire.ts: queries as bytes, responses read from hand-built packets
 * (compression, multi-string TXT, MX, CNAME chains, NXDOMAIN and NODATA with their SOA), what an
 * answer may be kept for, and hostile bytes (truncated packets, pointer loops, random and mutated
 * bytes): a DnsError, never another exception and never a hang. The network half (UDP, TCP, timeouts)
 * is test/integration/dns.test.ts.
 */
import fc from 'fast-check';
import { dnsName } from '../../shared/platform/net/dns';
import {
  answerOf,
  CLASS_IN,
  DnsError,
  type DnsMessage,
  decodeMessage,
  encodeMessage,
  queryMessage,
  RCODE,
  type RecordData,
  serverAddress,
  TYPE,
} from '../../shared/platform/net/dns-wire';
import { bySize, deep, seedFrom } from '../support/depth';

/** The properties' seed: fixed in `npm test`, random under `npm run test:deep`; PROPERTY_SEED=<seed> replays one. */
const SEED = seedFrom('PROPERTY_SEED', 20_261_128);
// test:deep runs ten times the cases: minutes, not the 30 s a unit test gets
if (deep) jest.setTimeout(600_000);

const u16 = (n: number) => [(n >> 8) & 0xff, n & 0xff];
const u32 = (n: number) => [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
const text = (s: string) => [...Buffer.from(s, 'latin1')];
/** labels, then the root's 0, or a pointer instead of the root */
const name = (labels: string[], pointer?: number) => [
  ...labels.flatMap((l) => [l.length, ...text(l)]),
  ...(pointer === undefined ? [0] : u16(0xc000 | pointer)),
];
const header = (id: number, flags: number, counts: [number, number, number, number]) => [
  ...u16(id),
  ...u16(flags),
  ...counts.flatMap(u16),
];
const record = (owner: number[], type: number, ttl: number, data: number[]) => [
  ...owner,
  ...u16(type),
  ...u16(CLASS_IN),
  ...u32(ttl),
  ...u16(data.length),
  ...data,
];
const soa = (ttl: number, minimum: number) =>
  record([0], TYPE.SOA, ttl, [
    ...name(['ns', 'example']),
    ...name(['hostmaster', 'example']),
    ...u32(1),
    ...u32(7200),
    ...u32(900),
    ...u32(86400),
    ...u32(minimum),
  ]);
/** A response (QR, RD, RA) to one question about example.com (at byte 12, so `0xc00c` points to it). */
const response = (rcode: number, answers: number[][], authority: number[][] = []) =>
  Buffer.from([
    ...header(0x1234, 0x8180 | rcode, [1, answers.length, authority.length, 0]),
    ...name(['example', 'com']),
    ...u16(TYPE.TXT),
    ...u16(CLASS_IN),
    ...answers.flat(),
    ...authority.flat(),
  ]);
const EXAMPLE_COM = 0x0c;

const txt = (...strings: string[]): RecordData => ({ kind: 'txt', strings: strings.map((s) => Buffer.from(s)) });

describe('a query', () => {
  it('is a recursive query with one question and an OPT record advertising 4096 bytes', () => {
    expect([...encodeMessage(queryMessage(0x1234, 'example.com', TYPE.TXT))]).toEqual([
      ...header(0x1234, 0x0100, [1, 0, 0, 1]),
      ...name(['example', 'com']),
      ...u16(TYPE.TXT),
      ...u16(CLASS_IN),
      0, // OPT: the root name
      ...u16(TYPE.OPT),
      ...u16(4096),
      ...u32(0),
      ...u16(0),
    ]);
  });

  it('refuses a name that cannot go on the wire', () => {
    expect(() => encodeMessage(queryMessage(1, `${'a'.repeat(64)}.com`, TYPE.TXT))).toThrow(DnsError);
    expect(() => encodeMessage(queryMessage(1, 'a..com', TYPE.TXT))).toThrow(DnsError);
    expect(() => encodeMessage(queryMessage(1, Array(128).fill('ab').join('.'), TYPE.TXT))).toThrow(DnsError);
  });
});

describe('a response', () => {
  it('reads a TXT record of several strings, its owner a compression pointer', () => {
    const bytes = response(RCODE.NOERROR, [
      record(u16(0xc000 | EXAMPLE_COM), TYPE.TXT, 300, [
        7,
        ...text('v=spf1 '),
        26,
        ...text('include:amazonses.com ~all'),
      ]),
      record(u16(0xc000 | EXAMPLE_COM), TYPE.TXT, 120, [3, ...text('two')]),
    ]);
    const message = decodeMessage(bytes);
    expect(message).toMatchObject({ id: 0x1234, response: true, truncated: false, rcode: RCODE.NOERROR });
    expect(message.questions).toEqual([{ name: 'example.com', type: TYPE.TXT, class: CLASS_IN }]);
    expect(message.answers.map((r) => [r.name, r.ttl, r.data])).toEqual([
      ['example.com', 300, txt('v=spf1 ', 'include:amazonses.com ~all')],
      ['example.com', 120, txt('two')],
    ]);
    // kept as long as its shortest TTL
    expect(answerOf(message, 'example.com', TYPE.TXT)).toEqual({
      rcode: RCODE.NOERROR,
      records: [txt('v=spf1 ', 'include:amazonses.com ~all'), txt('two')],
      ttl: 120,
    });
  });

  it('reads MX records whose exchange is compressed into the question', () => {
    const bytes = response(RCODE.NOERROR, [
      record(u16(0xc000 | EXAMPLE_COM), TYPE.MX, 3600, [...u16(10), ...name(['mx'], EXAMPLE_COM)]),
      record(u16(0xc000 | EXAMPLE_COM), TYPE.MX, 3600, [...u16(20), ...name(['backup', 'example', 'net'])]),
    ]);
    expect(answerOf(decodeMessage(bytes), 'example.com', TYPE.MX)).toEqual({
      rcode: RCODE.NOERROR,
      records: [
        { kind: 'mx', preference: 10, exchange: 'mx.example.com' },
        { kind: 'mx', preference: 20, exchange: 'backup.example.net' },
      ],
      ttl: 3600,
    });
  });

  it('follows a CNAME chain to the records of the asked type, kept for the shortest TTL on the way', () => {
    // example.com CNAME a.example.net (TTL 100); a.example.net CNAME b.example.net (TTL 500); b TXT (TTL 300)
    const head = response(RCODE.NOERROR, []).length;
    const aAt = head + 2 + 10; // after the first record's owner pointer and fixed fields: its data, a.example.net
    const bytes = response(RCODE.NOERROR, [
      record(u16(0xc000 | EXAMPLE_COM), TYPE.CNAME, 100, name(['a', 'example', 'net'])),
      record(u16(0xc000 | aAt), TYPE.CNAME, 500, name(['b'], aAt + 2)),
      record(name(['b', 'example', 'net']), TYPE.TXT, 300, [1, ...text('x')]),
      record(name(['unrelated', 'example']), TYPE.TXT, 5, [1, ...text('y')]),
    ]);
    const message = decodeMessage(bytes);
    expect(message.answers[1]).toMatchObject({
      name: 'a.example.net',
      data: { kind: 'cname', target: 'b.example.net' },
    });
    expect(answerOf(message, 'EXAMPLE.com', TYPE.TXT)).toEqual({ rcode: RCODE.NOERROR, records: [txt('x')], ttl: 100 });
  });

  it('ends a CNAME loop as an answer with no records', () => {
    const bytes = response(RCODE.NOERROR, [
      record(u16(0xc000 | EXAMPLE_COM), TYPE.CNAME, 60, name(['a', 'example', 'net'])),
      record(name(['a', 'example', 'net']), TYPE.CNAME, 60, [...u16(0xc000 | EXAMPLE_COM)]),
    ]);
    expect(answerOf(decodeMessage(bytes), 'example.com', TYPE.TXT)).toEqual({
      rcode: RCODE.NOERROR,
      records: [],
      ttl: undefined,
    });
  });

  it('keeps NXDOMAIN and NODATA for min(SOA TTL, SOA MINIMUM), and not at all without an SOA', () => {
    const nx = decodeMessage(response(RCODE.NXDOMAIN, [], [soa(900, 300)]));
    expect(nx.authority[0].data).toMatchObject({
      kind: 'soa',
      mname: 'ns.example',
      rname: 'hostmaster.example',
      minimum: 300,
    });
    expect(answerOf(nx, 'example.com', TYPE.TXT)).toEqual({ rcode: RCODE.NXDOMAIN, records: [], ttl: 300 });
    const noData = decodeMessage(response(RCODE.NOERROR, [], [soa(60, 3600)]));
    expect(answerOf(noData, 'example.com', TYPE.TXT)).toEqual({ rcode: RCODE.NOERROR, records: [], ttl: 60 });
    // records of another type are no answer either
    const other = decodeMessage(
      response(RCODE.NOERROR, [record(u16(0xc000 | EXAMPLE_COM), TYPE.A, 60, [192, 0, 2, 1])]),
    );
    expect(answerOf(other, 'example.com', TYPE.TXT)).toEqual({ rcode: RCODE.NOERROR, records: [], ttl: undefined });
  });

  it('reads a TTL with its top bit set as 0 (RFC 2181)', () => {
    const bytes = response(RCODE.NOERROR, [record(u16(0xc000 | EXAMPLE_COM), TYPE.TXT, 0x80000000, [1, ...text('x')])]);
    expect(answerOf(decodeMessage(bytes), 'example.com', TYPE.TXT).ttl).toBe(0);
  });

  it('throws for SERVFAIL, REFUSED and any other error rcode', () => {
    for (const rcode of [RCODE.SERVFAIL, RCODE.REFUSED, RCODE.FORMERR, RCODE.NOTIMP]) {
      const error = (() => {
        try {
          answerOf(decodeMessage(response(rcode, [])), 'example.com', TYPE.TXT);
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(DnsError);
      expect(error).toMatchObject({ reason: 'rcode', rcode });
    }
    expect(() => answerOf(decodeMessage(response(RCODE.SERVFAIL, [])), 'example.com', TYPE.TXT)).toThrow(
      'The DNS server answered SERVFAIL',
    );
  });
});

describe('malformed bytes', () => {
  const whole = response(RCODE.NOERROR, [
    record(u16(0xc000 | EXAMPLE_COM), TYPE.TXT, 300, [3, ...text('one'), 3, ...text('two')]),
    record(u16(0xc000 | EXAMPLE_COM), TYPE.MX, 300, [...u16(10), ...name(['mx'], EXAMPLE_COM)]),
  ]);

  it('throws a DnsError for every truncation of a response', () => {
    expect(decodeMessage(whole).answers).toHaveLength(2);
    for (let length = 0; length < whole.length; length++)
      expect(() => decodeMessage(whole.subarray(0, length))).toThrow(DnsError);
  });

  it('throws a DnsError for compression pointers that loop or point forward', () => {
    const withName = (owner: number[]) =>
      Buffer.from([...header(1, 0x8180, [1, 0, 0, 0]), ...owner, ...u16(TYPE.TXT), ...u16(CLASS_IN)]);
    expect(() => decodeMessage(withName(u16(0xc000 | 12)))).toThrow('does not point back'); // to itself
    expect(() => decodeMessage(withName([1, 97, ...u16(0xc000 | 12)]))).toThrow('does not point back'); // a label, then back to it
    expect(() => decodeMessage(withName(u16(0xc000 | 40)))).toThrow('does not point back'); // forward
    // two names pointing at each other: the second points back to the first, which points forward to it
    const pair = Buffer.from([
      ...header(1, 0x8180, [2, 0, 0, 0]),
      ...u16(0xc000 | 18),
      ...u16(TYPE.TXT),
      ...u16(CLASS_IN),
      ...u16(0xc000 | 12),
      ...u16(TYPE.TXT),
      ...u16(CLASS_IN),
    ]);
    expect(() => decodeMessage(pair)).toThrow(DnsError);
  });

  it('throws a DnsError for record data that does not end where its length says', () => {
    const short = response(RCODE.NOERROR, [record(u16(0xc000 | EXAMPLE_COM), TYPE.TXT, 1, [5, ...text('ab')])]);
    expect(() => decodeMessage(short)).toThrow(DnsError);
    const long = response(RCODE.NOERROR, [record(u16(0xc000 | EXAMPLE_COM), TYPE.MX, 1, [...u16(1), 0, 9, 9])]);
    expect(() => decodeMessage(long)).toThrow('does not end where its length says');
  });

  it('throws a DnsError for a name over 255 bytes or a reserved label type', () => {
    const long = Buffer.from([...header(1, 0, [1, 0, 0, 0]), ...name(Array(5).fill('a'.repeat(60))), 0, 16, 0, 1]);
    expect(() => decodeMessage(long)).toThrow('longer than 255');
    const reserved = Buffer.from([...header(1, 0, [1, 0, 0, 0]), 0x41, 0, 0, 16, 0, 1]);
    expect(() => decodeMessage(reserved)).toThrow('unknown label type');
  });

  it('never throws anything but a DnsError, whatever the bytes', () => {
    const decodes = (bytes: Uint8Array) => {
      try {
        decodeMessage(bytes);
      } catch (error) {
        if (!(error instanceof DnsError)) throw error;
      }
    };
    fc.assert(fc.property(fc.uint8Array({ maxLength: 1024 }), decodes), {
      seed: SEED,
      numRuns: bySize(5_000, 50_000),
    });
    // a valid response with bytes changed: deeper into the records than random bytes get
    const mutation = fc.array(fc.tuple(fc.nat(whole.length - 1), fc.integer({ min: 0, max: 255 })), {
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(mutation, (changes) => {
        const bytes = Buffer.from(whole);
        for (const [at, value] of changes) bytes[at] = value;
        decodes(bytes);
      }),
      { seed: SEED, numRuns: bySize(5_000, 50_000) },
    );
  });
});

describe('encoding and decoding', () => {
  const label = fc.stringMatching(/^[a-z0-9_-]{1,20}$/);
  const dnsNameArb = fc.array(label, { minLength: 1, maxLength: 5 }).map((labels) => labels.join('.'));
  const data: fc.Arbitrary<[number, RecordData]> = fc.oneof(
    fc
      .array(fc.uint8Array({ maxLength: 255 }), { minLength: 1, maxLength: 4 })
      .map((strings): [number, RecordData] => [TYPE.TXT, { kind: 'txt', strings: strings.map((s) => Buffer.from(s)) }]),
    fc
      .tuple(fc.nat(0xffff), dnsNameArb)
      .map(([preference, exchange]): [number, RecordData] => [TYPE.MX, { kind: 'mx', preference, exchange }]),
    dnsNameArb.map((target): [number, RecordData] => [TYPE.CNAME, { kind: 'cname', target }]),
  );
  const rr = fc.record({ name: dnsNameArb, data, ttl: fc.nat(0x7fffffff) });

  it('reads back what it wrote, names compressed or not', () => {
    fc.assert(
      fc.property(fc.nat(0xffff), dnsNameArb, fc.array(rr, { maxLength: 8 }), (id, asked, records) => {
        const message: DnsMessage = {
          ...queryMessage(id, asked, TYPE.TXT),
          response: true,
          answers: records.map(({ name, data: [type, rdata], ttl }) => ({
            name,
            type,
            class: CLASS_IN,
            ttl,
            data: rdata,
          })),
        };
        expect(decodeMessage(encodeMessage(message))).toEqual(message);
      }),
      { seed: SEED, numRuns: bySize(500, 5_000) },
    );
  });
});

describe('where to ask', () => {
  it("reads DNS_SERVER's and getServers()' forms", () => {
    expect(serverAddress('127.0.0.1:5353')).toEqual({ host: '127.0.0.1', port: 5353 });
    expect(serverAddress('10.0.0.2')).toEqual({ host: '10.0.0.2', port: 53 });
    expect(serverAddress('::1')).toEqual({ host: '::1', port: 53 });
    expect(serverAddress('[fd00::53]:5300')).toEqual({ host: 'fd00::53', port: 5300 });
    expect(() => serverAddress('127.0.0.1:99999')).toThrow(DnsError);
    expect(() => serverAddress('')).toThrow(DnsError);
  });

  it('compares names as DNS does', () => {
    expect(dnsName('Example.COM.')).toBe('example.com');
  });
});
