/**
 * Webhook pieces without I/O: which addresses the dispatcher may connect to, which endpoints may
 * be saved, signatures (checked against the standardwebhooks package), delivery ids, the retry
 * schedule and the keys. Nothing here touches the network: the only host name resolved is
 * `localhost` (the hosts file).
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import * as keys from '../../shared/platform/db/keys';
import { newId, UUID_PATTERN } from '../../shared/platform/ids';
import {
  DEFAULT_RETRY_SCHEDULE_SECONDS,
  deliveryId,
  newAttempt,
  newDeliveryItem,
  retryDelaySeconds,
  retrySchedule,
} from '../../shared/webhooks/deliveries';
import { eventLogStatus } from '../../shared/webhooks/event-log';
import {
  classifyAddress,
  endpointProblem,
  normaliseHost,
  SPECIAL_PURPOSE_RANGES,
} from '../../shared/platform/net/endpoint';
import { createPublicKey, verify } from 'node:crypto';
import type { lookup as dnsLookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  checkedAddress,
  checkedAddresses,
  CONNECT_TIMEOUT_MS,
  pinnedLookup,
  postWebhook,
  RESPONSE_KEPT_BYTES,
  WEBHOOK_TIMEOUT_MS,
} from '../../shared/platform/net/outbound';
import { hangingEndpoint, unacceptingEndpoint } from '../support/unresponsive-endpoints';
import { newSigningKey, newSigningSecret, secretPrefix, sign, signatureHeaders } from '../../shared/webhooks/signing';

const withEnv = async <T>(value: string | undefined, run: () => T | Promise<T>): Promise<T> => {
  const saved = process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS;
  if (value === undefined) delete process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS;
  else process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS = value;
  try {
    return await run();
  } finally {
    if (saved === undefined) delete process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS;
    else process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS = saved;
  }
};

/** The first and last address of a CIDR range (IPv4 or IPv6), as text. */
function rangeEnds(cidr: string): [string, string] {
  const [base, bitsText] = cidr.split('/');
  const v6 = base.includes(':');
  const width = v6 ? 128n : 32n;
  const bits = BigInt(bitsText);
  let n = 0n;
  if (v6) {
    const [head, tail = ''] = base.split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    for (const group of [...left, ...Array(8 - left.length - right.length).fill('0'), ...right])
      n = (n << 16n) | BigInt(parseInt(group, 16));
  } else for (const octet of base.split('.')) n = (n << 8n) | BigInt(octet);
  const hostMask = (1n << (width - bits)) - 1n;
  const text = (x: bigint) =>
    v6
      ? Array.from({ length: 8 }, (_, i) => ((x >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':')
      : Array.from({ length: 4 }, (_, i) => ((x >> BigInt(24 - 8 * i)) & 0xffn).toString()).join('.');
  return [text(n & ~hostMask), text(n | hostMask)];
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['52.95.110.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.1', 'public'],
    ['100.63.255.255', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'private'],
    ['fd00:ec2::254', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['::10.0.0.1', 'reserved'], // IPv4-compatible (deprecated): outside 2000::/3
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::808:808', 'public'],
    ['2002:a00:1::', 'reserved'], // 6to4, refused whole
    ['2001:db8::1', 'reserved'],
    ['[::1]', 'loopback'],
    // issue 16: each of these was 'public'
    ['::ffff:0:127.0.0.1', 'reserved'], // IPv4-translated
    ['::ffff:0:7f00:1', 'reserved'],
    ['::ffff:0:8.8.8.8', 'reserved'],
    ['64:ff9b:1::a00:1', 'reserved'], // local-use NAT64
    ['64:ff9b:1:ffff::1', 'reserved'],
    ['2001::1', 'reserved'], // Teredo
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['192.88.99.1', 'reserved'], // 6to4 relay anycast
    ['100::1', 'reserved'], // discard-only
    ['100::ffff:ffff:ffff:ffff', 'reserved'],
    ['2001:10::1', 'reserved'], // ORCHID
    ['2001:1f:ffff::1', 'reserved'],
    // the rest of the registries, and what is just outside them
    ['192.0.0.9', 'reserved'],
    ['192.0.0.170', 'reserved'],
    ['192.31.196.1', 'reserved'],
    ['192.52.193.1', 'reserved'],
    ['192.175.48.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['192.88.98.255', 'public'],
    ['192.88.100.0', 'public'],
    ['100:0:0:1::1', 'reserved'],
    ['100:0:0:2::1', 'reserved'], // outside 2000::/3
    ['2001:2::1', 'reserved'],
    ['2001:3::1', 'reserved'],
    ['2001:4:112::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['2001:30::1', 'reserved'],
    ['2001:1ff:ffff::1', 'reserved'], // end of IETF protocol assignments 2001::/23
    ['2001:200::1', 'public'], // just after it
    ['2620:4f:8000::1', 'reserved'],
    ['2620:4f:8001::1', 'public'],
    ['3fff::1', 'reserved'],
    ['3fff:1000::1', 'public'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['fec0::1', 'private'],
    ['FE80::1', 'link-local'],
    ['::ffff:192.88.99.1', 'reserved'],
    ['64:ff9b::c058:6301', 'reserved'], // NAT64 of 192.88.99.1
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each(SPECIAL_PURPOSE_RANGES)('refuses all of %s (%s: %s)', (cidr) => {
    for (const ip of rangeEnds(cidr)) expect(classifyAddress(ip)).not.toBe('public');
  });

  it('refuses to classify something that is not an address', () => {
    expect(() => classifyAddress('example.com')).toThrow(/not an IP address/);
  });
});

describe('endpointProblem', () => {
  it('on AWS: https only, never to a non-public literal address or localhost, no credentials', () =>
    withEnv(undefined, () => {
      expect(endpointProblem('https://hooks.example.com/in?x=1')).toBeUndefined();
      expect(endpointProblem('https://8.8.8.8/in')).toBeUndefined();
      expect(endpointProblem('http://hooks.example.com/in')).toMatch(/https/);
      expect(endpointProblem('http://127.0.0.1:8080/in')).toMatch(/https/);
      expect(endpointProblem('https://127.0.0.1/in')).toMatch(/loopback/);
      expect(endpointProblem('https://localhost/in')).toMatch(/loopback/);
      expect(endpointProblem('https://169.254.169.254/latest/meta-data')).toMatch(/link-local/);
      expect(endpointProblem('https://[fd00:ec2::254]/')).toMatch(/private/);
      expect(endpointProblem('https://10.0.0.5/')).toMatch(/private/);
      expect(endpointProblem('https://user:pw@hooks.example.com/')).toMatch(/user name or password/);
      expect(endpointProblem('ftp://hooks.example.com/')).toMatch(/https/);
      expect(endpointProblem('hooks.example.com/in')).toMatch(/absolute URL/);
    }));

  it('locally (ALLOW_HTTP_LOOPBACK_WEBHOOKS=true): plain http to loopback too, but not elsewhere', () =>
    withEnv('true', () => {
      expect(endpointProblem('http://127.0.0.1:8080/in')).toBeUndefined();
      expect(endpointProblem('http://localhost:8080/in')).toBeUndefined();
      expect(endpointProblem('http://[::1]:8080/in')).toBeUndefined();
      expect(endpointProblem('https://127.0.0.1/in')).toBeUndefined();
      expect(endpointProblem('http://hooks.example.com/in')).toMatch(/loopback/);
      expect(endpointProblem('http://10.0.0.5/in')).toMatch(/loopback/);
    }));
});

describe('host names, normalised before they are judged', () => {
  it.each([
    ['LOCALHOST.', 'localhost'],
    ['Hooks.Example.COM.', 'hooks.example.com'],
    ['0x7f.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['[::FFFF:7F00:1]', '::ffff:7f00:1'],
  ])('%s is %s', (host, normal) => expect(normaliseHost(host)).toBe(normal));

  it('on AWS: a loopback host in any spelling is refused (https://LOCALHOST./ passed)', () =>
    withEnv(undefined, () => {
      for (const url of [
        'https://LOCALHOST./',
        'https://localhost./in',
        'https://api.LOCALHOST./',
        'https://0x7f.1/',
        'https://2130706433/',
        'https://127.1/',
        'https://[::ffff:127.0.0.1]/',
      ]) {
        expect([url, endpointProblem(url)]).toEqual([url, expect.stringMatching(/loopback/)]);
      }
      for (const url of [
        'https://[::ffff:0:7f00:1]/',
        'https://[64:ff9b:1::a00:1]/',
        'https://[2001::1]/',
        'https://192.88.99.1/',
        'https://[100::1]/',
        'https://[2001:10::1]/',
      ]) {
        expect([url, endpointProblem(url)]).toEqual([url, expect.stringMatching(/reserved address/)]);
      }
    }));
});

/** Runs `run` with these environment variables set (undefined: unset), restoring them after. */
const withVars = async <T>(vars: Record<string, string | undefined>, run: () => T | Promise<T>): Promise<T> => {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  try {
    return await run();
  } finally {
    apply(saved);
  }
};

describe("the local runtime's own services (LOCAL_RUNTIME_PORTS)", () => {
  let server: Server;
  let port: number;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it.each(['true', undefined])('are refused when saved, with ALLOW_HTTP_LOOPBACK_WEBHOOKS=%s', (allow) =>
    withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: allow, LOCAL_RUNTIME_PORTS: `9,${port},8005` }, () => {
      for (const url of [
        `http://127.0.0.1:${port}/clear-store`,
        `http://localhost:${port}/`,
        `http://LOCALHOST.:${port}/`,
        `http://[::1]:${port}/`,
        `http://0.0.0.0:${port}/`,
        `https://127.0.0.1:${port}/`,
        `https://[::ffff:127.0.0.1]:${port}/`,
        `https://0x7f.1:${port}/`,
        'http://127.0.0.1:9/',
      ]) {
        expect([url, endpointProblem(url)]).toEqual([url, expect.stringMatching(/local runtime's own services/)]);
      }
      expect(endpointProblem(`https://hooks.example.com:${port}/`)).toBeUndefined(); // another machine's port
    }),
  );

  it("are refused at delivery, also to an endpoint saved before the port was the runtime's", () =>
    withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', LOCAL_RUNTIME_PORTS: undefined }, async () => {
      const endpoint = `http://localhost:${port}/clear-store`;
      expect(endpointProblem(endpoint)).toBeUndefined(); // saved while the port was a receiver's
      expect(await postWebhook(endpoint, '{}', {})).toMatchObject({ ok: true, status: 200 });
      expect(hits).toBe(1);
      await withVars({ LOCAL_RUNTIME_PORTS: String(port) }, async () => {
        expect(await postWebhook(endpoint, '{}', {})).toEqual({
          ok: false,
          status: null,
          error: expect.stringMatching(/^endpoint refused: .*local runtime's own services/),
        });
        expect(await checkedAddresses('localhost', port)).toEqual({
          refused: expect.stringMatching(/local runtime's own services/),
        });
        expect(await checkedAddresses('127.0.0.1', port + 1)).toEqual({
          addresses: [{ address: '127.0.0.1', family: 4 }],
        });
      });
      expect(hits).toBe(1);
    }));

  it('ALLOW_HTTP_LOOPBACK_WEBHOOKS=true allows loopback, not private or other special addresses', () =>
    withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', LOCAL_RUNTIME_PORTS: undefined }, async () => {
      expect(endpointProblem('https://10.0.0.5/in')).toMatch(/private/);
      expect(endpointProblem('https://[2001::1]/in')).toMatch(/reserved/);
      expect(endpointProblem('https://169.254.169.254/')).toMatch(/link-local/);
      expect(await checkedAddresses('10.0.0.5', 443)).toEqual({ refused: expect.stringMatching(/private/) });
      expect(await checkedAddresses('localhost', 443)).toEqual({
        addresses: expect.arrayContaining([expect.objectContaining({ family: expect.any(Number) })]),
      });
    }));
});

describe('the dispatcher on AWS (no ALLOW_HTTP_LOOPBACK_WEBHOOKS)', () => {
  it('refuses addresses that are not public before connecting', () =>
    withEnv(undefined, async () => {
      expect(await checkedAddress('10.0.0.1')).toEqual({ refused: expect.stringMatching(/private/) });
      expect(await checkedAddress('[::1]')).toEqual({ refused: expect.stringMatching(/loopback/) });
      expect(await checkedAddress('localhost')).toEqual({ refused: expect.stringMatching(/loopback/) }); // resolved, then refused
      expect(await checkedAddress('8.8.8.8')).toEqual({ address: '8.8.8.8', family: 4 });
      expect(await postWebhook('https://169.254.169.254/latest/meta-data', '{}', {})).toEqual({
        ok: false,
        status: null,
        error: expect.stringMatching(/^endpoint refused: .*link-local/),
      });
      expect(await postWebhook('http://127.0.0.1:9/', '{}', {})).toEqual({
        ok: false,
        status: null,
        error: expect.stringMatching(/^endpoint refused: must use https/),
      });
    }));
});

describe('pinnedLookup', () => {
  it("answers the checked address whatever name it is asked, in both of Node's callback forms", async () => {
    const lookup = pinnedLookup([{ address: '93.184.216.34', family: 4 }]);
    const one = await new Promise((resolve) =>
      lookup('rebinding.example', {}, (error, address, family) => resolve({ error, address, family })),
    );
    expect(one).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const all = await new Promise((resolve) =>
      (lookup as typeof dnsLookup)('rebinding.example', { all: true }, (error, addresses) =>
        resolve({ error, addresses }),
      ),
    );
    expect(all).toEqual({ error: null, addresses: [{ address: '93.184.216.34', family: 4 }] });
  });
});

describe('signing', () => {
  it('makes whsec_ secrets of 32 random bytes with a 10-character prefix', () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(secretPrefix(secret)).toBe(secret.slice(0, 10));
    expect(newSigningSecret()).not.toBe(secret);
  });

  it('signs exactly as the standardwebhooks package does, and verifies with either secret during a rotation', () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const body = JSON.stringify({ type: 'email.sent', data: { object: { id: 'x', subject: 'héllo' } } });
    const now = Date.now();
    expect(sign(current, 'evt_1', Math.floor(now / 1000), body)).toBe(
      new StandardWebhook(current).sign('evt_1', new Date(now), body),
    );
    const headers = signatureHeaders([current, previous], 'evt_1', body, now);
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(headers).toMatchObject({
      'svix-id': 'evt_1',
      'svix-timestamp': headers['webhook-timestamp'],
      'svix-signature': headers['webhook-signature'],
    });
    for (const secret of [current, previous])
      expect(new StandardWebhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new StandardWebhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  /** A `whpk_` key as a receiver loads it: its 32 raw bytes as an OKP JWK. */
  const ed25519PublicKey = (whpk: string) =>
    createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(whpk.slice(5), 'base64').toString('base64url') },
      format: 'jwk',
    });

  it('signs v1a with an ed25519 key pair that the whpk_ public key verifies, beside an HMAC secret', () => {
    const { secret, publicKey } = newSigningKey('ed25519');
    expect(secret).toMatch(/^whsk_[A-Za-z0-9+/]{43}=$/);
    expect(publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
    expect(newSigningKey('hmac_sha256')).toEqual({ secret: expect.stringMatching(/^whsec_/), publicKey: null });
    const body = JSON.stringify({ type: 'email.received', data: { subject: 'héllo' } });
    const timestamp = 1_790_000_000;
    const signature = sign(secret, 'evt_1', timestamp, body);
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
    const bytes = Buffer.from(signature.slice(4), 'base64');
    const key = ed25519PublicKey(publicKey as string);
    expect(verify(null, Buffer.from(`evt_1.${timestamp}.${body}`), key, bytes)).toBe(true);
    expect(verify(null, Buffer.from(`evt_1.${timestamp + 1}.${body}`), key, bytes)).toBe(false);
    const other = newSigningKey('ed25519');
    expect(verify(null, Buffer.from(`evt_1.${timestamp}.${body}`), ed25519PublicKey(other.publicKey!), bytes)).toBe(
      false,
    );
    // during a rotation the old and the new key sign side by side
    const headers = signatureHeaders([other.secret, secret], 'evt_1', body, timestamp * 1000);
    expect(headers['webhook-signature'].split(' ')).toEqual([sign(other.secret, 'evt_1', timestamp, body), signature]);
  });
});

describe('deliveryId', () => {
  it("is the same UUID for the same webhook and event, another for another, and sorts by the event's time", () => {
    const [webhook, other] = [newId(), newId()];
    // UUIDv7-shaped event ids at given times (newId() never goes back in time within a process)
    const eventAt = (ms: number, tail: string) => {
      const hex = ms.toString(16).padStart(12, '0');
      return `${hex.slice(0, 8)}-${hex.slice(8)}-7${tail.slice(0, 3)}-8${tail.slice(3, 6)}-${tail.slice(6, 18)}`;
    };
    const early = eventAt(Date.UTC(2026, 0, 1), 'fffffffffffffffff0');
    const late = eventAt(Date.UTC(2026, 0, 1, 0, 0, 1), '000000000000000000');
    const id = deliveryId(webhook, late);
    expect(id).toMatch(UUID_PATTERN);
    expect(id[14]).toBe('8'); // version 8
    expect(['8', '9', 'a', 'b']).toContain(id[19]); // RFC 9562 variant
    expect(deliveryId(webhook, late)).toBe(id);
    expect(deliveryId(other, late)).not.toBe(id);
    expect(id.slice(0, 13)).toBe(late.slice(0, 13)); // the event's 48-bit time
    expect(deliveryId(other, early) < id).toBe(true);
  });
});

describe('retry schedule', () => {
  it('is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h unless WEBHOOK_RETRY_SCHEDULE_SECONDS says otherwise', () => {
    expect(retrySchedule({})).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1, 2,3' })).toEqual([1, 2, 3]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '' })).toEqual([]);
    expect(retrySchedule({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,soon' })).toBe(DEFAULT_RETRY_SCHEDULE_SECONDS);
  });

  it('waits the n-th delay after the n-th failed attempt, and the last one after manual extra attempts', () => {
    const schedule = DEFAULT_RETRY_SCHEDULE_SECONDS;
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelaySeconds(n, schedule))).toEqual(schedule);
    expect(retryDelaySeconds(9, schedule)).toBe(36000);
  });
});

describe('webhook keys', () => {
  it('keeps webhooks under the project, their deliveries in its delivery shards, every delivery again on GSI1', () => {
    expect(keys.webhook('p1', 'w1')).toEqual({ PK: 'PROJECT#p1', SK: 'WEBHOOK#w1' });
    expect(keys.webhooks('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'WEBHOOK#' });
    // deliveries are written per email event: spread over the project's delivery shards, by delivery id (d3: shard 3)
    expect(keys.webhookDelivery('p1', 'w1', 'd3')).toEqual({
      PK: 'PROJECT#p1#DELIVERIES#3',
      SK: 'WEBHOOK_DELIVERY#w1#d3',
    });
    expect(keys.webhookDeliveries('p1', 'w1')).toEqual({
      PKs: Array.from({ length: 16 }, (_, i) => `PROJECT#p1#DELIVERIES#${i}`),
      prefix: 'WEBHOOK_DELIVERY#w1#',
    });
    expect(keys.webhookEventsIndex('p1', 'd3')).toEqual({ GSI1PK: 'WEBHOOK_EVENTS#p1#3', GSI1SK: 'd3' });
    expect(keys.webhookEventsPartitions('p1')).toContain('WEBHOOK_EVENTS#p1#3');
    // a delivery's attempts: together in the attempt partition its id picks, apart from the delivery shards
    expect(keys.webhookAttempt('p1', 'd3', 'a1')).toEqual({ PK: 'PROJECT#p1#ATTEMPTS#3', SK: 'WEBHOOK_ATTEMPT#d3#a1' });
    expect(keys.webhookAttempts('p1', 'd3')).toEqual({ PK: 'PROJECT#p1#ATTEMPTS#3', prefix: 'WEBHOOK_ATTEMPT#d3#' });
  });

  it('never lets a webhook prefix swallow another collection, or the reverse', () => {
    const mine = [
      keys.webhooks('p').prefix,
      keys.webhookDeliveries('p', 'w').prefix,
      keys.webhookAttempts('p', 'd').prefix,
    ];
    const all = [
      ...mine,
      keys.segments('p').prefix,
      keys.apiKeys('p').prefix,
      keys.events('p').prefix,
      keys.domains('p').prefix,
      keys.emails('p').prefix,
    ];
    for (const a of mine)
      for (const b of all) if (a !== b) expect([b.startsWith(a), a.startsWith(b)]).toEqual([false, false]);
  });
});

describe("Resend's event log", () => {
  it("names a delivery status in Resend's words: pending before an attempt, attempting while retrying, success, failed", () => {
    expect(eventLogStatus({ status: 'pending', attempt_count: 0 })).toBe('pending');
    expect(eventLogStatus({ status: 'pending', attempt_count: 2 })).toBe('attempting');
    expect(eventLogStatus({ status: 'delivered', attempt_count: 1 })).toBe('success');
    expect(eventLogStatus({ status: 'failed', attempt_count: 8 })).toBe('failed');
  });

  it('records an attempt with its status code and the start of the answer, or 0 and the reason nothing answered', () => {
    const event = {
      projectId: 'p1',
      id: newId(),
      type: 'email.sent',
      createdAt: '2026-11-25T10:00:00.000Z',
      expiresAt: 1_800_000_000,
    };
    const delivery = newDeliveryItem(event, 'w1', '2026-11-25T10:00:00.500Z');
    expect(delivery.event_created_at).toBe(event.createdAt);
    const sentAt = '2026-11-25T10:00:01.000Z';
    const answered = newAttempt(1, sentAt, { ok: false, status: 500, error: 'endpoint answered 500', body: 'down' });
    expect(answered).toEqual({
      id: expect.stringMatching(UUID_PATTERN),
      number: 1,
      http_status_code: 500,
      response: 'down',
      sent_at: sentAt,
    });
    expect(answered.id.slice(0, 13)).toBe(newId(Date.parse(sentAt)).slice(0, 13)); // its time: attempts sort by when they were sent
    expect(
      newAttempt(2, sentAt, { ok: false, status: null, error: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9' }),
    ).toMatchObject({
      http_status_code: 0,
      response: 'ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:9',
    });
  });

  it(`keeps the first ${RESPONSE_KEPT_BYTES} bytes of an answer's body`, async () => {
    const server = createServer((_req, res) => res.writeHead(503).end('x'.repeat(5000)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const result = await withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', LOCAL_RUNTIME_PORTS: undefined }, () =>
        postWebhook(endpoint, '{}', {}),
      );
      expect(result).toEqual({
        ok: false,
        status: 503,
        error: 'endpoint answered 503',
        body: 'x'.repeat(RESPONSE_KEPT_BYTES),
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it(`gives up on an endpoint that never accepts the connection after ${CONNECT_TIMEOUT_MS / 1000} s, not the whole ${WEBHOOK_TIMEOUT_MS / 1000} s`, async () => {
    const endpoint = await unacceptingEndpoint();
    try {
      const result = await withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', LOCAL_RUNTIME_PORTS: undefined }, () =>
        postWebhook(endpoint.url, '{}', {}),
      );
      expect(result).toEqual({ ok: false, status: null, error: `no connection within ${CONNECT_TIMEOUT_MS / 1000} s` });
    } finally {
      await endpoint.stop();
    }
  }, 10_000);

  it('lets an endpoint that accepted the connection use the whole timeout: the connect timeout is only for connecting', async () => {
    const endpoint = await hangingEndpoint();
    try {
      // a total shorter than the connect timeout would end first; this one is longer
      const result = await withVars({ ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', LOCAL_RUNTIME_PORTS: undefined }, () =>
        postWebhook(endpoint.url, '{}', {}, 2_000, 500),
      );
      expect(result).toEqual({ ok: false, status: null, error: 'no answer within 2 s' });
      expect(endpoint.requests).toBe(1);
    } finally {
      await endpoint.stop();
    }
  });
});
