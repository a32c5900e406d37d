/**
 * Hostile requests for test/api/hostile-input.test.ts, derived from a route's own operation
 * schemas (the zod/mini objects of the route table, read through their JSON Schema): which
 * fields exist, which are required, what a valid value looks like. From a valid "seed" body the
 * generators make wrong types, missing and extra fields, huge strings, invalid JSON, wrong
 * content types, unicode edge cases, path ids that are not ids and injection-looking strings;
 * `expectRejection` then says, with the same schemas and the same routing the gateway uses,
 * whether the service must refuse the request (4xx) or may accept it.
 *
 * Besides the schemas, the oracle holds the contract for what becomes a message header or a
 * DynamoDB number (issue 16), read independently of the schemas (`contractProblem`): the payload
 * classes (`payloadCases`) aim header, recipient and number payloads at exactly those fields.
 */
import fc from 'fast-check';
import { addressParser } from 'postal-mime';
import * as z from 'zod/mini';
import { matchRoute, routes, type Route } from '../../functions/routes';
import { API_VERSION } from '../../shared/platform/http/api-version';
import { documentedResponses } from '../../shared/platform/http/operation';
import { MAX_BODY_BYTES } from '../../shared/platform/http/pipeline';
import { newId } from '../../shared/platform/ids';
import { errorEnvelope } from '../../shared/platform/http/schemas';

export type JsonSchema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  minimum?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
};

type Schema = z.ZodMiniType;

export const jsonSchemaOf = (schema: Schema): JsonSchema =>
  z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** The names of a route template's path parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);

// ---------------------------------------------------------------------------------------------
// Value pools

const KB = 1024;
/** Strings that look like attacks or break naive code: injections, CRLF into headers, unicode edge cases. */
export const HOSTILE_STRINGS: readonly string[] = [
  // injection-looking
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '{"$gt":""}',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  '${jndi:ldap://127.0.0.1:9/a}',
  '{{7*7}}',
  '{{{html}}}',
  '#{7*7}',
  'javascript:alert(1)',
  '../../../../etc/passwd',
  'PROJECT#00000000-0000-0000-0000-000000000000',
  'attribute_not_exists(PK)',
  '=HYPERLINK("http://127.0.0.1:9")',
  // CRLF header injection (subjects, addresses, tags, custom headers and redirects become headers)
  'subject\r\nBcc: victim@evil.test',
  'x\r\nX-Injected: 1',
  'hostile@example.com\r\nBcc: victim@evil.test',
  'Hostile <hostile@example.com>\r\nCc: victim@evil.test',
  '\r\n\r\n<html>smuggled</html>',
  'http://127.0.0.1:9/\r\nSet-Cookie: a=b',
  // unicode edge cases
  '\uD800',
  '\uDFFF',
  'a\uD800b',
  '\uDBFF\uD800',
  '\u0000',
  'nul\u0000inside',
  '\u202Eevil\u202C.txt',
  '\u200F\u05E9\u05DC\u05D5\u05DD\u200E',
  '\uFEFFbom',
  '\u200B\u200C\u200D',
  '\uFFFE\uFFFF',
  '\u{10FFFF}',
  '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}',
  '\u{1F525}'.repeat(300),
  'e\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308\u0309\u030A',
  'Z\u0338\u0322\u031B\u035A\u0316\u0354\u0313\u0314\u0344a\u0336l\u0334g\u0335o\u0337',
  '\u0130\u0131\u00DF\u01C5',
  '\uFF41\uFF44\uFF4D\uFF49\uFF4E@\uFF45\uFF58\uFF41\uFF4D\uFF50\uFF4C\uFF45.com',
  // odd but plain
  '',
  ' ',
  '\t\n\r',
  'null',
  'undefined',
  'NaN',
  '-1',
  '1e309',
  '0x10',
  'true',
  '[object Object]',
  '__proto__',
  'a@b',
  '@',
  'hostile@-example-.com',
  'x'.repeat(300),
];

/** Huge strings are drawn rarely (each one is a big request). */
const HUGE_STRINGS: readonly string[] = ['x'.repeat(100 * KB), '\u00E9'.repeat(60 * KB), '\u{1F525}'.repeat(30 * KB)];

/** Keys no schema has: prototype pollution, our own key names, odd unicode. */
const HOSTILE_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  'PK',
  'SK',
  'project_id',
  'id',
  'object',
  'created_at',
  '$where',
  'a.b',
  '\u0000',
  '\uD800',
  '\u{1F4A5}',
  'k'.repeat(1000),
];

/** Path segments sent as they are (not percent-encoded): traversal, encoded slashes, broken escapes, very long. */
export const RAW_PATH_IDS: readonly string[] = [
  '..',
  '.',
  '%2e%2e',
  '%2F',
  'a%2Fb',
  '..%2F..%2Fapi-keys',
  '%00',
  '%zz',
  '%',
  '%E2%80%AE',
  '%F0%9F%94%A5',
  '%ED%A0%80', // a lone surrogate, UTF-8 encoded (invalid UTF-8)
  '%C0%AF', // overlong slash
  '0',
  '-1',
  'null',
  'undefined',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '{00000000-0000-0000-0000-000000000000}',
  'z'.repeat(2000),
  'a@b.co',
  'HOSTILE@EXAMPLE.COM',
];

const INVALID_JSON: readonly (string | Buffer)[] = [
  '{',
  '{"name": ',
  '{"a":1,}',
  "{'a':1}",
  '{a:1}',
  'NaN',
  '\uFEFF{}',
  '{"a":1}garbage',
  '[',
  '{"a":"\\x"}',
  '{"a":"\u0000"}',
  '{"a":1e999999}',
  '{"a":01}',
  'undefined',
  '<xml/>',
  '--boundary',
  '['.repeat(50_000) + ']'.repeat(50_000),
  '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), // invalid UTF-8 in a string
  Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), // UTF-8 BOM then {}
];

const WRONG_CONTENT_TYPES: readonly (string | undefined)[] = [
  undefined,
  'text/plain',
  'text/html',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/jsonx',
  'json',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/json\u00A0',
];

/** Header values fetch can send (latin-1, no CR/LF) that are still wrong. */
const HOSTILE_HEADER_VALUES: readonly string[] = [
  '',
  ' ',
  "' OR 1=1 --",
  '${jndi:ldap://127.0.0.1:9/a}',
  'Bearer',
  'Bearer ',
  'Bearer es_live_',
  `Bearer es_live_${'A'.repeat(32)}`,
  `Bearer es_live_${'A'.repeat(3000)}`,
  `Bearer es_oat_${'A'.repeat(43)}`,
  'Basic dXNlcjpwYXNz',
  'Bearer a b c',
  '2020-01-01',
  '2026-08-14; drop',
  'x'.repeat(4000),
];

// ---------------------------------------------------------------------------------------------
// Seeds: a valid value of a schema, found by trying candidates until the schema accepts them

const FAR_FUTURE = '2099-01-01T00:00:00.000Z';

/** Candidate strings, in the order tried; `ids` are real ids first when the field names a resource. */
function stringCandidates(unique: string, ids: string[]): string[] {
  return [
    ...ids,
    'hostile-seed',
    `hostile-${unique}@example.com`,
    `http://127.0.0.1:9/hostile-${unique}`,
    newId(),
    `hostile-${unique}.example.com`,
    FAR_FUTURE,
    'A'.repeat(43),
    'aGVsbG8=',
    `Hostile <hostile-${unique}@example.com>`,
    'hostile_seed',
    'opt_in',
  ];
}

interface SeedState {
  counters: Map<string, number>;
  include: Set<string>;
}

const key = (path: (string | number)[]) => path.join('.');

function nonNull(schema: JsonSchema): JsonSchema {
  if (schema.anyOf) return nonNull(schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0]);
  if (Array.isArray(schema.type)) return { ...schema, type: schema.type.find((t) => t !== 'null') };
  return schema;
}

function generate(
  schema: JsonSchema,
  path: (string | number)[],
  state: SeedState,
  unique: string,
  idsFor: (field: string) => string[],
): unknown {
  const s = nonNull(schema);
  const count = state.counters.get(key(path)) ?? 0;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[count % s.enum.length];
  switch (s.type) {
    case 'integer':
    case 'number':
      return (s.minimum ?? 1) + count;
    case 'boolean':
      return false; // `send: true` and the like start work we do not want from a seed
    case 'array': {
      const length = (s.minItems ?? 0) + count;
      return Array.from({ length }, (_, i) => generate(s.items ?? {}, [...path, i], state, unique, idsFor));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set(s.required ?? []);
      for (const [name, property] of Object.entries(s.properties ?? {})) {
        if (required.has(name) || state.include.has(key([...path, name])))
          out[name] = generate(property, [...path, name], state, unique, idsFor);
      }
      return out;
    }
    default: {
      const field = String([...path].reverse().find((p) => typeof p === 'string') ?? '');
      const candidates = stringCandidates(unique, idsFor(field));
      return candidates[count % candidates.length];
    }
  }
}

/** A seed under construction: `next(paths)` learns from the paths a validator refused. */
export class Seed {
  private readonly state: SeedState = { counters: new Map(), include: new Set() };
  private readonly unique = Math.random().toString(36).slice(2, 10);
  constructor(
    private readonly schema: Schema,
    private readonly idsFor: (field: string) => string[] = () => [],
  ) {}

  value(): unknown {
    return generate(jsonSchemaOf(this.schema), [], this.state, this.unique, this.idsFor);
  }

  /** Moves on from whatever sits at the refused paths: the next candidate, one more item, or an optional field included. */
  learn(value: unknown, refused: string[]): void {
    for (const path of refused) {
      if (path === '') {
        // a refinement of the whole object ("at least one field"): include the next optional field
        const root = nonNull(jsonSchemaOf(this.schema));
        const next = Object.keys(root.properties ?? {}).find(
          (name) => !this.state.include.has(name) && !(root.required ?? []).includes(name),
        );
        if (next) this.state.include.add(next);
        continue;
      }
      const at = path.split('.').reduce<unknown>((v, p) => (v as Record<string, unknown> | undefined)?.[p], value);
      if (at === undefined) this.state.include.add(path);
      else this.state.counters.set(path, (this.state.counters.get(path) ?? 0) + 1);
    }
  }

  /** A value the schema accepts, or undefined if 40 tries found none. */
  valid(): unknown {
    for (let i = 0; i < 40; i++) {
      const value = this.value();
      const result = this.schema.safeParse(value);
      if (result.success) return value;
      this.learn(
        value,
        result.error.issues.map((issue) => issue.path.map(String).join('.')),
      );
    }
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Requests

export interface HostileCase {
  kind: string;
  /** path after the base URL, query string included */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** the one right status, where there is one */
  status?: number;
}

/** A body variant: what it is, the bytes, and the Content-Type it goes with. */
type Body = { kind: string; body?: string | Buffer; contentType?: string };
/** A header variant (none, mostly). */
type Header = { kind?: string; headers: Record<string, string> };

export interface RouteContext {
  route: Route;
  /** real ids for the path parameters, where the collection could make one */
  fixtures: Record<string, string | undefined>;
  /** a body the schema accepts (absent for routes without a body) */
  seedBody?: unknown;
  /** the route's key for the project the cases run in */
  apiKey: string;
}

const wrongType: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, -0, 2 ** 53 + 2, [], {}, [[]], { $gt: '' }, { $ne: null }, [null], ['\uD800']),
  fc.jsonValue({ maxDepth: 2 }),
  fc.array(fc.string(), { maxLength: 3 }),
);

const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE_STRINGS) },
);

/**
 * Hostile strings that go into a URL: short enough that the request line stays under the 16 KB
 * of headers Node (and API Gateway, at 10 KB) accept at all; longer ones never reach a handler.
 */
const urlString: fc.Arbitrary<string> = hostileString.filter((s) => encodeURIComponent(wellFormed(s)).length <= 1500);

const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_KEYS),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

/** A map with hostile keys, `__proto__` as an own key included. */
const hostileMap: fc.Arbitrary<Record<string, unknown>> = fc
  .array(fc.tuple(hostileKey, fc.oneof(hostileString, wrongType)), { minLength: 1, maxLength: 3 })
  .map((entries) => objectOf(entries));

/** A value for one field: a wrong type, a hostile string, or hostile things nested where the field nests. */
function fieldValue(schema: JsonSchema | undefined): fc.Arbitrary<unknown> {
  const s = schema ? nonNull(schema) : {};
  const nested: fc.Arbitrary<unknown>[] = [];
  if (s.type === 'array')
    nested.push(
      fc.array(fc.oneof(hostileString, wrongType), { minLength: 1, maxLength: 3 }),
      fc.constant(Array.from({ length: 1000 }, () => 'x')),
    );
  if (s.type === 'object' || s.items?.type === 'object') nested.push(hostileMap);
  return fc.oneof(
    { weight: 3, arbitrary: hostileString },
    { weight: 2, arbitrary: wrongType },
    ...nested.map((arbitrary) => ({ weight: 1, arbitrary })),
  );
}

function objectSchema(schema: JsonSchema): JsonSchema | undefined {
  const s = nonNull(schema);
  if (s.type === 'object') return s;
  if (s.type === 'array' && s.items && nonNull(s.items).type === 'object') return nonNull(s.items);
  return undefined;
}

/** Body variants of a route with a body schema. */
function bodies(route: Route, seed: unknown): fc.Arbitrary<Body> {
  const schema = jsonSchemaOf(route.operation.body!);
  const object = objectSchema(schema);
  const isArray = nonNull(schema).type === 'array';
  const base = (isArray ? (Array.isArray(seed) ? seed[0] : {}) : seed) as Record<string, unknown> | undefined;
  const wrap = (value: unknown) =>
    JSON.stringify(isArray && value !== null && typeof value === 'object' && !Array.isArray(value) ? [value] : value);
  const json = (kind: string) => (value: unknown) => ({ kind, body: wrap(value), contentType: 'application/json' });
  const fields = Object.keys(object?.properties ?? {});
  const required = object?.required ?? [];
  const variants: fc.Arbitrary<Body>[] = [];

  if (fields.length > 0) {
    // one to three fields replaced by hostile values, the rest valid (drawn twice as often as the other variants)
    const replaced = fc
      .uniqueArray(fc.constantFrom(...fields), { minLength: 1, maxLength: Math.min(3, fields.length) })
      .chain((names) =>
        fc.tuple(...names.map((name) => fieldValue(object!.properties![name]).map((value) => [name, value] as const))),
      );
    const wrongValue = replaced.map((pairs) => json('wrong value')({ ...base, ...Object.fromEntries(pairs) }));
    variants.push(wrongValue, wrongValue);
  }
  if (required.length > 0) {
    variants.push(
      fc.constantFrom(...required).map((name) => {
        const { [name]: _dropped, ...rest } = base ?? {};
        return json('missing field')(rest);
      }),
    );
  }
  variants.push(
    hostileMap.map((extra) => json('extra field')(objectOf([...Object.entries(base ?? {}), ...Object.entries(extra)]))),
  );
  variants.push(
    fc
      .oneof(wrongType, hostileString)
      .map((value) => ({ kind: 'not an object', body: JSON.stringify(value), contentType: 'application/json' })),
  );
  variants.push(
    fc.constantFrom(...INVALID_JSON).map((body) => ({ kind: 'invalid JSON', body, contentType: 'application/json' })),
  );
  variants.push(
    fc
      .constantFrom(...WRONG_CONTENT_TYPES)
      .map((contentType) => ({ kind: 'content type', body: wrap(base ?? {}), contentType })),
  );
  variants.push(fc.constant({ kind: 'no body' }));
  if (route.operation.bodyFormats?.includes('form') && fields.length > 0) {
    // the same fields form-encoded, hostile values and names given twice included
    const form = fc
      .array(
        fc.tuple(
          fc.oneof(fc.constantFrom(...fields), hostileKey),
          fc.oneof(hostileString, fc.constantFrom('', ...Object.values(base ?? {}).map(String))),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((pairs) => {
        const params = new URLSearchParams(
          Object.entries(base ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
        );
        for (const [k, v] of pairs) params.append(wellFormed(k), wellFormed(v));
        return { kind: 'form', body: params.toString(), contentType: 'application/x-www-form-urlencoded' };
      });
    variants.push(form, form); // twice as often: it is how OAuth clients send
  }
  return fc.oneof(...variants);
}

/** Query strings: the schema's fields with hostile values, extra and repeated parameters, broken escapes. */
function queries(route: Route, fixtures: Record<string, string | undefined>): fc.Arbitrary<string> {
  const schema = route.operation.query ? objectSchema(jsonSchemaOf(route.operation.query)) : undefined;
  const names = Object.keys(schema?.properties ?? {});
  const known = Object.values(fixtures).filter((v): v is string => !!v);
  const value = fc.oneof(
    { weight: 3, arbitrary: urlString },
    { weight: 2, arbitrary: fc.constantFrom('1', '100', '101', '0', '-5', '1.5', '1e2', ' 7', '', newId(), ...known) },
    { weight: 1, arbitrary: wrongType.map((v) => JSON.stringify(v) ?? '') },
  );
  const pair = fc.tuple(names.length ? fc.oneof(fc.constantFrom(...names), hostileKey) : hostileKey, value);
  const encode = (s: string) => encodeURIComponent(wellFormed(s));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant('') },
    {
      weight: 4,
      arbitrary: fc
        .array(pair, { minLength: 1, maxLength: 3 })
        .map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'limit=1&limit=2',
        'limit=',
        'limit',
        '%zz=1',
        'a[b]=1&a[c]=2',
        '=x',
        '&&&',
        'limit=%00',
        'after=..%2F..',
        `after=${newId()}&before=${newId()}`,
        '__proto__[x]=1',
        'x='.repeat(500),
      ),
    },
  );
}

/** fetch cannot put a lone surrogate in a URL; it would send U+FFFD, so do that visibly. */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

/** A path id: the real one changed a little, another resource's id, a random UUID, or not an id at all. */
function pathValue(fixture: string | undefined, others: string[]): fc.Arbitrary<string> {
  const near = fixture
    ? [
        encodeURIComponent(fixture.toUpperCase()),
        `${encodeURIComponent(fixture)}%20`,
        `%20${encodeURIComponent(fixture)}`,
        `${encodeURIComponent(fixture)}.json`,
      ]
    : [];
  const real = [...near, ...others.filter((id) => id !== fixture).map(encodeURIComponent)];
  return fc.oneof(
    ...(real.length ? [{ weight: 3, arbitrary: fc.constantFrom(...real) }] : []),
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: fc.constantFrom(...RAW_PATH_IDS) },
    { weight: 2, arbitrary: urlString.map((s) => encodeURIComponent(wellFormed(s))) },
  );
}

/** An Authorization, Api-Version or Idempotency-Key header with a wrong value. */
const hostileHeader: fc.Arbitrary<Header> = fc.oneof(
  fc.constantFrom(...HOSTILE_HEADER_VALUES).map((v) => ({ kind: 'authorization', headers: { authorization: v } })),
  fc.constantFrom(...HOSTILE_HEADER_VALUES).map((v) => ({ kind: 'api version', headers: { 'api-version': v } })),
  fc
    .constantFrom(...HOSTILE_HEADER_VALUES)
    .map((v) => ({ kind: 'idempotency key', headers: { 'idempotency-key': v } })),
);

/**
 * The generator of hostile requests for one route. Most cases make one part of the request
 * hostile (the body, a path id, the query or a header) and keep the others valid (real ids, the
 * seed body, the right key), so the hostile part reaches as far into the handler as it can; a
 * few make everything hostile at once.
 */
export function hostileCases(ctx: RouteContext): fc.Arbitrary<HostileCase> {
  const { route } = ctx;
  const names = pathParams(route.path);
  const validIds = names.map((name) => encodeURIComponent(ctx.fixtures[name] ?? newId()));
  const hostileIds = names.length
    ? fc.integer({ min: 0, max: names.length - 1 }).chain((n) =>
        pathValue(
          ctx.fixtures[names[n]],
          Object.values(ctx.fixtures).filter((v): v is string => !!v),
        ).map((v) => validIds.map((id, i) => (i === n ? v : id))),
      )
    : fc.constant([] as string[]);
  const hasBody = !!route.operation.body && route.method !== 'GET';
  const seedBody: Body =
    hasBody && ctx.seedBody !== undefined
      ? { kind: '', body: JSON.stringify(ctx.seedBody), contentType: 'application/json' }
      : { kind: '' };
  const hostileBody: fc.Arbitrary<Body> = hasBody
    ? bodies(route, ctx.seedBody)
    : route.method === 'GET'
      ? fc.constant({ kind: '' }) // fetch sends no body with a GET
      : fc
          .constantFrom(...INVALID_JSON)
          .map((b) => ({ kind: 'ignored body', body: b, contentType: 'application/json' }));
  const hostileQuery = queries(route, ctx.fixtures);
  const noHeader: Header = { headers: {} };

  const build = (ids: string[], query: string, b: Body, header: Header, kind: string): HostileCase => {
    let i = 0;
    const path = route.path.replace(/\{[A-Za-z0-9_]+\}/g, () => ids[i++]);
    return {
      kind: [kind, b.kind, header.kind].filter(Boolean).join(': '),
      method: route.method,
      path: query ? `${path}?${query}` : path,
      headers: {
        authorization: `Bearer ${ctx.apiKey}`,
        ...(b.contentType ? { 'content-type': b.contentType } : {}),
        ...header.headers,
      },
      body: b.body,
    };
  };
  const one = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
  return fc.oneof(
    ...(route.method !== 'GET'
      ? [
          one(
            6,
            hostileBody.map((b) => build(validIds, '', b, noHeader, 'body')),
          ),
        ]
      : []),
    ...(names.length
      ? [
          one(
            3,
            hostileIds.map((ids) => build(ids, '', seedBody, noHeader, 'path id')),
          ),
        ]
      : []),
    one(
      2,
      hostileQuery.map((q) => build(validIds, q, seedBody, noHeader, 'query')),
    ),
    one(
      1,
      hostileHeader.map((h) => build(validIds, '', seedBody, h, 'header')),
    ),
    one(
      1,
      fc
        .tuple(hostileIds, hostileQuery, hostileBody, fc.option(hostileHeader, { nil: noHeader }))
        .map(([ids, q, b, h]) => build(ids, q, b, h, 'everything')),
    ),
  );
}

/** An object with exactly these own keys, `__proto__` included (a plain assignment would set the prototype instead). */
export function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/** A plain valid-looking value of a (simple) schema: what a map's values should look like. */
function plainValue(schema: JsonSchema, length = 12): unknown {
  const s = nonNull(schema);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.type === 'number' || s.type === 'integer') return 1;
  if (s.type === 'boolean') return true;
  return 'h'.repeat(Math.min(length, s.maxLength ?? length));
}

/** Keys that are properties of every object: the ones that break code treating a map as a plain object. */
const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'];

/** The fields of an object schema that take a map (`z.record`): name and the schema of its values. */
function mapFields(object: JsonSchema | undefined): [string, JsonSchema][] {
  return Object.entries(object?.properties ?? {}).flatMap(([name, schema]): [string, JsonSchema][] => {
    const s = nonNull(schema);
    return s.type === 'object' && typeof s.additionalProperties === 'object' && !s.properties
      ? [[name, s.additionalProperties]]
      : [];
  });
}

/**
 * Fixed cases every route gets besides the generated ones: a method no route has on its path
 * (405), a body just over the 5 MB limit
 * (413) on every route that takes a body at all, and, where the body schema has them, a value
 * that fills the body to just under the limit in each field without a length limit (strings,
 * lists of strings, maps), and each of the prototype's keys as a key of each map field.
 */
export function fixedCases(ctx: RouteContext): HostileCase[] {
  const { route } = ctx;
  const headers = { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
  const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
    encodeURIComponent(ctx.fixtures[name] ?? newId()),
  );
  // PUT, unless the path has it (a thread's labels): then the first method it does not have
  const absent = (['PUT', 'PATCH', 'DELETE', 'POST'] as const).find(
    (method) => !routes.some((r) => r.path === route.path && r.method === method),
  )!;
  const cases: HostileCase[] = [
    { kind: 'a method the route table does not have', method: absent, path, headers, body: '{}', status: 405 },
  ];
  if (route.method === 'GET') return cases;
  cases.push({
    kind: 'body over 5 MB',
    method: route.method,
    path,
    headers,
    body: JSON.stringify({ padding: 'x'.repeat(MAX_BODY_BYTES) }),
    status: route.operation.errorFormat === 'oauth' ? 400 : 413,
  }); // RFC 6749 has no 413
  if (!route.operation.body) return cases;

  const schema = jsonSchemaOf(route.operation.body);
  const object = objectSchema(schema);
  const isArray = nonNull(schema).type === 'array';
  const base = (isArray ? (ctx.seedBody as unknown[] | undefined)?.[0] : ctx.seedBody) as
    | Record<string, unknown>
    | undefined;
  const withField = (name: string, value: unknown) => {
    const body = { ...base, [name]: value };
    return JSON.stringify(isArray ? [body] : body);
  };
  const budget = MAX_BODY_BYTES - 64 * KB;
  for (const [name, property] of Object.entries(object?.properties ?? {})) {
    const s = nonNull(property);
    let value: unknown;
    if (s.type === 'string' && s.maxLength === undefined && !s.enum && s.const === undefined)
      value = 'x'.repeat(budget);
    else if (
      s.type === 'array' &&
      s.items &&
      nonNull(s.items).type === 'string' &&
      nonNull(s.items).maxLength === undefined
    )
      value = ['x'.repeat(budget)];
    else continue;
    cases.push({ kind: `${name} just under 5 MB`, method: route.method, path, headers, body: withField(name, value) });
  }
  for (const [name, values] of mapFields(object)) {
    const one = plainValue(values, 1000);
    const each = JSON.stringify(one).length + 12;
    const big = objectOf(Array.from({ length: Math.floor(budget / each) }, (_, i) => [`k${i}`, one]));
    cases.push({
      kind: `${name} with entries up to 5 MB`,
      method: route.method,
      path,
      headers,
      body: withField(name, big),
    });
    for (const key of PROTOTYPE_KEYS) {
      cases.push({
        kind: `${name} with the key ${key}`,
        method: route.method,
        path,
        headers,
        body: withField(name, objectOf([[key, plainValue(values)]])),
      });
    }
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Payload classes (issue 16): what must never reach SES or DynamoDB as it is given

/** Fields whose text becomes (part of) a header line: the subject, names rendered into subjects, an attachment's name and type. */
const HEADER_TEXT_FIELDS = ['subject', 'first_name', 'last_name', 'filename', 'content_type'];
/** Fields of mailboxes: each entry goes to SES as it is, so it must be exactly one mailbox. */
const RECIPIENT_FIELDS = ['from', 'to', 'cc', 'bcc', 'reply_to'];
/** Fields whose numbers are stored (contact properties, template fallbacks) or sent beside them (template variables). */
const NUMBER_FIELDS = ['properties', 'variables', 'fallback_value'];
/** Fields the service trims before anything else (so surrounding whitespace, line breaks included, is gone). */
const TRIMMED_FIELDS = ['first_name', 'last_name', ...RECIPIENT_FIELDS];

/** Header class: what ends a header line somewhere (CR, LF, NUL, U+2028/2029 and the other controls) with a header after it. */
export const HEADER_PAYLOADS: readonly string[] = [
  'Hostile\r\nBcc: victim@evil.test',
  'Hostile\nBcc: victim@evil.test',
  'Hostile\rBcc: victim@evil.test',
  'Hostile\r\n\r\n<html>smuggled body</html>',
  'Hostile\u0000Bcc: victim@evil.test',
  'Hostile\u2028Bcc: victim@evil.test',
  'Hostile\u2029X-Injected: 1',
  'Hostile\u0085X-Injected: 1',
  'Hostile\u000bX',
  'Hostile\u001bX',
  'Hostile\u007fX',
];

/** Header names that are no RFC 5322 field name within SES's limits (printable ASCII but `:`, 1-126), or that the service sets itself. */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  'From',
  'To',
  'Cc',
  'Bcc',
  'Sender',
  'Reply-To',
  'Subject',
  'Message-ID',
  'Return-Path',
  'Date',
  'DKIM-Signature',
  'Content-Type',
  'Content-Transfer-Encoding',
  'MIME-Version',
];
const HEADER_NAME_PAYLOADS: readonly string[] = [
  ...RESERVED_HEADER_NAMES,
  'bcc',
  'BCC',
  'X Space',
  'X:Colon',
  'X-\u00e9',
  'X'.repeat(127),
  'X-Hostile\r\nBcc',
  'X-Hostile\u0000',
];
const HEADER_NAME = /^[!-9;-~]{1,126}$/;
const HEADER_VALUE = /^[ -~]{1,870}$/;

/** Recipient class: more mailboxes than the entry seems to hold, around a real address (`addr`). */
export const recipientPayloads = (addr: string): string[] => [
  `x@evil.test, y@evil.test <${addr}>`,
  `"x@evil.test, y@evil.test" <${addr}>`,
  `x@evil.test <${addr}>`,
  `"x@evil.test" <${addr}>`,
  `=?utf-8?Q?x=40evil.test?= <${addr}>`,
  `Team: x@evil.test, ${addr};`,
  'undisclosed-recipients:;',
  `${addr}, x@evil.test`,
  `${addr};x@evil.test`,
  `${addr} (x@evil.test)`,
  `<${addr}> x@evil.test`,
  `Hostile <${addr}>, x@evil.test`,
  ...HEADER_PAYLOADS.map((name) => `${name} <${addr}>`),
];
/** 50 entries carrying 11 mailboxes each: 550 recipients under a 50-entry limit. */
const manyMailboxes = (addr: string): string[] =>
  Array.from(
    { length: 50 },
    (_, i) => `${Array.from({ length: 10 }, (_, j) => `r${i}-${j}@evil.test`).join(', ')}, R${i} <${addr}>`,
  );

/** Number class: numbers DynamoDB cannot store as given (out of its range, or integers past 2^53 the document client refuses). */
export const NUMBER_PAYLOADS: readonly number[] = [
  1e300,
  -1e300,
  1e-200,
  -1e-200,
  2 ** 64,
  2 ** 53,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
];
const storableNumber = (n: number) =>
  Number.isFinite(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER && (n === 0 || Math.abs(n) >= 1e-130);

/** Whether a schema takes a number, also as one branch of a union (`string | number | null`). */
/** Whether a schema takes a number, also as a branch of a (nested) union such as `string | number | null`. */
const acceptsNumber = (schema: JsonSchema): boolean =>
  [schema.type].flat().some((t) => t === 'number' || t === 'integer') || (schema.anyOf ?? []).some(acceptsNumber);
/** A plain member value; an enum offers `number` where it has it (a variable's `type`), so a number beside it is in place. */
const plainMember = (schema: JsonSchema): unknown =>
  nonNull(schema).enum?.includes('number') ? 'number' : plainValue(schema);
/** An object with its required members plain, and `member` set to `value`. */
function plainObject(schema: JsonSchema, member: string, value: unknown): Record<string, unknown> {
  const s = nonNull(schema);
  const out: Record<string, unknown> = {};
  for (const name of s.required ?? []) out[name] = plainMember(s.properties?.[name] ?? {});
  out[member] = value;
  return out;
}
/** The bare address of a seed's mailbox field, to hide others around. */
function seedAddress(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  const match = typeof first === 'string' ? /<([^<>]+)>\s*$/.exec(first) : null;
  return match ? match[1] : typeof first === 'string' && first.includes('@') ? first : 'hostile@example.com';
}

/**
 * The header, recipient and number payload classes, aimed at every field of the route's body
 * that takes them (top level, an array's objects, a map's values), each in an otherwise valid
 * body. The oracle (`contractProblem`) says every one must be refused.
 */
export function payloadCases(ctx: RouteContext): HostileCase[] {
  const { route } = ctx;
  if (!route.operation.body || route.method === 'GET') return [];
  const schema = jsonSchemaOf(route.operation.body);
  const object = objectSchema(schema);
  const isArray = nonNull(schema).type === 'array';
  const base = (isArray ? (ctx.seedBody as unknown[] | undefined)?.[0] : ctx.seedBody) as
    | Record<string, unknown>
    | undefined;
  const headers = { authorization: `Bearer ${ctx.apiKey}`, 'content-type': 'application/json' };
  const path = route.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name: string) =>
    encodeURIComponent(ctx.fixtures[name] ?? newId()),
  );
  const cases: HostileCase[] = [];
  const add = (kind: string, name: string, value: unknown) => {
    const body = { ...base, [name]: value };
    cases.push({
      kind: `payload ${kind}: ${name}`,
      method: route.method,
      path,
      headers,
      body: JSON.stringify(isArray ? [body] : body),
    });
  };
  for (const [name, property] of Object.entries(object?.properties ?? {})) {
    const s = nonNull(property);
    if (HEADER_TEXT_FIELDS.includes(name)) for (const p of HEADER_PAYLOADS) add('header', name, p);
    if (RECIPIENT_FIELDS.includes(name)) {
      const addr = seedAddress(base?.[name]);
      for (const p of recipientPayloads(addr)) add('recipient', name, p);
      if (['to', 'cc', 'bcc'].includes(name)) add('recipient (550 mailboxes in 50 entries)', name, manyMailboxes(addr));
    }
    if (name === 'headers' && typeof s.additionalProperties === 'object') {
      for (const p of HEADER_PAYLOADS) add('header value', name, { 'X-Hostile': p });
      for (const n of HEADER_NAME_PAYLOADS) add('header name', name, { [n]: 'hostile' });
    }
    const item = s.type === 'array' && s.items ? nonNull(s.items) : undefined;
    for (const [member, memberSchema] of Object.entries(item?.properties ?? {})) {
      if (HEADER_TEXT_FIELDS.includes(member))
        for (const p of HEADER_PAYLOADS) add(`header (${member})`, name, [plainObject(item!, member, p)]);
      if (NUMBER_FIELDS.includes(member) && acceptsNumber(memberSchema))
        for (const n of NUMBER_PAYLOADS) add(`number (${member})`, name, [plainObject(item!, member, n)]);
    }
    // a map of numbers (properties), or an object holding one (template.variables)
    if (
      NUMBER_FIELDS.includes(name) &&
      typeof s.additionalProperties === 'object' &&
      acceptsNumber(s.additionalProperties)
    ) {
      for (const n of NUMBER_PAYLOADS) add('number', name, { hostile_number: n });
    }
    for (const [member, memberSchema] of Object.entries(s.type === 'object' ? (s.properties ?? {}) : {})) {
      const m = nonNull(memberSchema);
      if (
        NUMBER_FIELDS.includes(member) &&
        typeof m.additionalProperties === 'object' &&
        acceptsNumber(m.additionalProperties)
      ) {
        for (const n of NUMBER_PAYLOADS) add(`number (${member})`, name, plainObject(s, member, { HOSTILE_NUMBER: n }));
      }
    }
  }
  return cases;
}

/** Why a mailbox entry is not exactly one plain mailbox as RFC 5322 (postal-mime's parser) reads it, or undefined. */
function mailboxProblem(entry: string): string | undefined {
  if (CONTROL.test(entry)) return 'a control character in a mailbox';
  const parsed = addressParser(entry);
  if (parsed.length !== 1 || parsed[0].group) return `${parsed.length} mailboxes or a group in one entry`;
  if (/[@<>]/.test(parsed[0].name ?? '') || CONTROL.test(parsed[0].name ?? ''))
    return 'an address or a control character in a display name';
  return undefined;
}
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point (they end header lines)
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;
/** How many mailboxes an entry holds as RFC 5322 reads it (a group's members counted). */
const mailboxCount = (entry: string): number =>
  addressParser(entry).reduce((n, m) => n + (m.group ? m.group.length : 1), 0);

/**
 * The contract for what becomes a message header or a DynamoDB number, whatever the schemas say:
 * no control character in header text (after the trimming the service documents), every mailbox
 * entry exactly one mailbox with no address in its name, at most 50 mailboxes in to+cc+bcc,
 * custom headers within SES's limits and never the ones the service sets, and numbers DynamoDB
 * stores as given. The reason the body breaks it, or undefined.
 */
export function contractProblem(value: unknown, numbers = false): string | undefined {
  if (typeof value === 'number')
    return numbers && !storableNumber(value) ? `the number ${value} cannot be stored by DynamoDB as given` : undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = contractProblem(item, numbers);
      if (problem) return problem;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const text = (name: string, v: unknown) =>
    typeof v === 'string' ? (TRIMMED_FIELDS.includes(name) ? v.trim() : v) : undefined;
  for (const [name, v] of Object.entries(record)) {
    if (HEADER_TEXT_FIELDS.includes(name) && CONTROL.test(text(name, v) ?? '')) return `a control character in ${name}`;
    if (RECIPIENT_FIELDS.includes(name)) {
      for (const entry of [v].flat()) {
        const problem = typeof entry === 'string' ? mailboxProblem(text(name, entry)!) : undefined;
        if (problem) return `${name}: ${problem}`;
      }
    }
    if (name === 'headers' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [header, headerValue] of Object.entries(v)) {
        if (!HEADER_NAME.test(header))
          return `the header name ${JSON.stringify(header)} is no RFC 5322 field name within SES's limits`;
        if (RESERVED_HEADER_NAMES.some((reserved) => reserved.toLowerCase() === header.toLowerCase()))
          return `the ${header} header is the service's`;
        if (typeof headerValue === 'string' && !HEADER_VALUE.test(headerValue))
          return `the ${header} header's value is not 1-870 printable ASCII characters`;
      }
    }
    const problem = contractProblem(v, numbers || NUMBER_FIELDS.includes(name));
    if (problem) return problem;
  }
  const mailboxes = ['to', 'cc', 'bcc']
    .flatMap((name) => [record[name]].flat())
    .filter((e): e is string => typeof e === 'string');
  if (mailboxes.length && mailboxes.reduce((n, e) => n + mailboxCount(e), 0) > 50)
    return 'more than 50 mailboxes in to, cc and bcc';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The oracle

// The body reading of shared/platform/http/pipeline.ts, as a client can predict it.
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\s*(?:;|$)/i;

type Readable = { ok: true; value: unknown } | { ok: false };

function readBody(c: HostileCase, route: Route): Readable {
  if (c.body === undefined || c.body.length === 0) return { ok: true, value: {} };
  const contentType = c.headers['content-type'] ?? '';
  // the pipeline reads the body as UTF-8 (invalid bytes become U+FFFD), whether the gateway passed it as text or base64
  const text = Buffer.isBuffer(c.body) ? c.body.toString('utf8') : c.body;
  const formats = route.operation.bodyFormats ?? ['json'];
  if (formats.includes('form') && FORM_TYPE.test(contentType)) {
    const fields = new Map<string, string | string[]>();
    for (const [name, value] of new URLSearchParams(text)) {
      const seen = fields.get(name);
      fields.set(name, seen === undefined ? value : [seen, value].flat());
    }
    return { ok: true, value: Object.fromEntries(fields) };
  }
  if (!JSON_TYPE.test(contentType)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

export interface Expectation {
  /** the route the gateway will pick (undefined: the fallback, 404/405) */
  route?: Route;
  /** true when the request breaks the route's contract, so only a 4xx is right */
  mustReject: boolean;
  /** why, for messages */
  reason: string;
}

/** What the service must answer `c` with; the route is the gateway's choice (`matchRoute`). */
export function expectation(base: string, c: HostileCase, apiKey: string): Expectation {
  const url = new URL(base + c.path);
  const resolved = matchRoute(c.method, url.pathname);
  if (!resolved) return { mustReject: true, reason: `no route for ${c.method} ${url.pathname}` };
  const { route, params } = resolved;
  const op = route.operation;
  const size = c.body === undefined ? 0 : Buffer.byteLength(c.body);
  if (size > MAX_BODY_BYTES) return { route, mustReject: true, reason: 'body over the limit' };
  const version = c.headers['api-version'];
  if (version !== undefined && version !== API_VERSION)
    return { route, mustReject: true, reason: 'unknown Api-Version' };
  if (op.auth === 'api_key' && c.headers.authorization !== `Bearer ${apiKey}`)
    return { route, mustReject: true, reason: 'no valid key' };
  if (op.params && !op.params.safeParse(params).success)
    return { route, mustReject: true, reason: 'path parameters break the schema' };
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  if (op.query && !op.query.safeParse(query).success)
    return { route, mustReject: true, reason: 'query breaks the schema' };
  if (op.body) {
    const body = readBody(c, route);
    if (!body.ok) return { route, mustReject: true, reason: 'body cannot be read' };
    if (!op.body.safeParse(body.value).success) return { route, mustReject: true, reason: 'body breaks the schema' };
    const contract = contractProblem(body.value);
    if (contract)
      return { route, mustReject: true, reason: `the body breaks the header and number contract: ${contract}` };
  }
  return { route, mustReject: false, reason: 'valid as far as the schemas go' };
}

const oauthError = z.object({ error: z.string(), error_description: z.optional(z.string()) });

/**
 * The reasons an answer is wrong, or an empty list. A 4xx is in the error envelope, or in the
 * schema the operation declares for that status (POST /emails/{id}/retry carries `errors` as an
 * object, as the contract says), or RFC 6749's form on the OAuth token and revocation routes.
 */
export function judge(status: number, body: unknown, text: string, expected: Expectation, exact?: number): string[] {
  const problems: string[] = [];
  if (exact !== undefined && status !== exact) problems.push(`answered ${status}, not ${exact}`);
  if (status >= 500) problems.push(`answered ${status}: ${text.slice(0, 300)}`);
  if (status < 400 && expected.mustReject) problems.push(`answered ${status} although ${expected.reason}`);
  if (status >= 400 && status < 500) {
    const operation = expected.route?.operation;
    if (operation?.errorFormat === 'oauth') {
      if (!oauthError.safeParse(body).success)
        problems.push(`${status} is not an RFC 6749 error: ${text.slice(0, 300)}`);
    } else if (operation && documentedResponses(operation)[status]?.contentType === 'text/html') {
      // a page the operation documents for this status (GET /share/{token}'s 404), not the envelope
      if (!/^<!doctype html>/i.test(text))
        problems.push(`${status} is not the HTML page its operation documents: ${text.slice(0, 300)}`);
    } else {
      const declared = operation ? documentedResponses(operation)[status]?.schema : undefined;
      const envelope = errorEnvelope.safeParse(body);
      if (!envelope.success && !(declared && declared.safeParse(body).success))
        problems.push(`${status} is not in the error envelope: ${text.slice(0, 300)}`);
      else if ((body as { statusCode?: number }).statusCode !== status)
        problems.push(`${status} with statusCode ${(body as { statusCode?: number }).statusCode} in the envelope`);
    }
  }
  return problems;
}
