/**
 * Hostile input over every route of the route table (issue 8): for each route, its fixed cases,
 * its payload cases and property-based requests (fast-check) built from the route's own operation
 * schemas send wrong types, missing and extra fields, huge strings, bodies over the size limit,
 * invalid JSON, wrong content types, unicode edge cases, path ids that are not ids and
 * injection-looking strings (test/support/hostile.ts). Every fixed and payload case runs in every
 * tier; of the generated ones `npm test` sends a sample at a fixed seed (the same cases on every
 * machine: SAMPLE below), and `npm run test:deep` FULL a route at a random seed
 * (test/support/depth.ts). Every answer must be:
 * - never a 5xx;
 * - a 4xx in the error envelope (RFC 6749 `{error, error_description}` on the OAuth token and
 *   revocation routes) whenever the request breaks the route's schemas, the key or the limits;
 * - when the request is valid as far as the schemas go (a list with an odd but valid query, a
 *   name that is all emoji), any answer but a 5xx, and a 4xx still in the envelope;
 * - the header, recipient and number payload classes (issue 16: control characters in header
 *   text, mailboxes hidden in one entry, reserved or malformed custom headers, numbers DynamoDB
 *   cannot store) aimed at every field that takes them, each refused with a 4xx: the oracle holds
 *   that contract apart from the schemas;
 * - and a refused request leaves nothing behind: the project's partition holds exactly the
 *   items it held before (the check reads the partition's keys; every route runs in a project of
 *   its own, so nothing else writes there).
 * The run prints how many cases each route got, and the generated cases by kind (whether the
 * sample reaches every kind of hostileCases).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { routes, type Route } from '../../functions/routes';
import { createApiKey } from '../../shared/access/api-keys';
import { documentClient, tableName } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { createProject } from '../../shared/project/projects';
import {
  type Expectation,
  expectation,
  fixedCases,
  hostileCases,
  judge,
  jsonSchemaOf,
  pathParams,
  payloadCases,
  Seed,
  type HostileCase,
  type JsonSchema,
  type RouteContext,
} from '../support/hostile';
import { bySize, seedFrom } from '../support/depth';
import { baseUrl } from '../support/http';
import { useRuntimeTable } from '../support/table';
import { testProjectId } from '../../shared/project/test-mode';

useRuntimeTable();
// The local runtime under test takes http webhook endpoints on loopback (local/runtime.ts); the
// schemas judge requests here, so they must see the same setting.
process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS = 'true';

/** The seed: fixed in `npm test`, so a failure reproduces on every machine; random under test:deep; HOSTILE_SEED=<seed> replays one. */
const SEED = seedFrom('HOSTILE_SEED', 20_260_814);
/**
 * Generated cases a route: SAMPLE in `npm test`, FULL under test:deep; HOSTILE_RUNS=<n> overrides
 * both (HOSTILE_RUNS=200 explores further). 6 is the smallest sample at the fixed seed that still
 * reaches every kind of hostileCases across the routes (the OAuth routes' form bodies come first at
 * 6): 2,560 cases instead of 4,856. Most of the suite's time is not the generated cases but the
 * fixed ones' bodies at and over the 5 MB limit (179 of them, about 0.9 GB), which every tier sends.
 */
const SAMPLE = 6;
const FULL = 20;
const RUNS = process.env.HOSTILE_RUNS ? Number(process.env.HOSTILE_RUNS) : bySize(SAMPLE, FULL);

const table = routes as readonly Route[];
const routeKey = (route: Route) => `${route.method} ${route.path}`;

/**
 * Events the workers write on their own schedule, not in answer to a request (the domain check
 * verifying a fixture domain, the sender, SES feedback, inbound mail, the webhook dispatcher).
 * The partial-write check leaves them out, and webhook deliveries (written by the fan-out) too.
 */
const WORKER_EVENTS = new Set([
  'domain.verified',
  'domain.verification_failed',
  'email.sending',
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.received',
  'email.stored',
  'webhook.endpoint.disabled',
]);

/**
 * A project of the route's own, with a test-mode key: sending then needs a domain of the project
 * but not a verified one, so hostile emails and broadcasts get past the sender check without the
 * suite waiting for the local SES to verify a domain for every route.
 */
async function testModeProject(): Promise<{ projectId: string; key: string }> {
  const project = await createProject('hostile input');
  const { token } = await createApiKey(
    { projectId: project.id, livemode: false, permission: 'full_access' },
    { name: 'hostile input', mode: 'test' },
  );
  return { projectId: testProjectId(project.id), key: token }; // a test key's data is in its project's test-mode sandbox
}

/** The sort keys of a project's partition (Query on its key; the suite's own read, no Scan). */
async function snapshot(projectId: string): Promise<Set<string>> {
  const sortKeys = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': keys.project(projectId).PK },
        ProjectionExpression: 'SK, #type, event_type',
        ExpressionAttributeNames: { '#type': 'type' },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      if (item.type === 'webhook_delivery' || WORKER_EVENTS.has(item.event_type)) continue;
      sortKeys.add(String(item.SK));
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return sortKeys;
}

function difference(before: Set<string>, after: Set<string>): string[] {
  return [
    ...[...after].filter((k) => !before.has(k)).map((k) => `+${k}`),
    ...[...before].filter((k) => !after.has(k)).map((k) => `-${k}`),
  ];
}

interface Answer {
  status: number;
  body: unknown;
  text: string;
}

async function send(c: HostileCase): Promise<Answer> {
  const response = await fetch(baseUrl() + c.path, {
    method: c.method,
    headers: c.headers,
    body: c.body,
    redirect: 'manual',
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: judged as such
  }
  return { status: response.status, body, text };
}

// ---------------------------------------------------------------------------------------------
// Fixtures: real ids for path parameters, made through the API from each collection's own schema

/** `segment_id` -> `/segments`: a parameter whose route's collection has a create route. */
function collectionOf(param: string): string | undefined {
  for (const route of table) {
    const segments = route.path.split('/');
    if (segments[segments.length - 1] !== `{${param}}`) continue;
    const collection = segments.slice(0, -1).join('/');
    if (table.some((r) => r.method === 'POST' && r.path === collection && r.operation.body)) return collection;
  }
  return undefined;
}

/** Every property name in a schema, nested ones included. */
function fieldNames(schema: JsonSchema, out = new Set<string>()): Set<string> {
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    out.add(name);
    fieldNames(property, out);
  }
  if (schema.items) fieldNames(schema.items, out);
  for (const branch of schema.anyOf ?? []) fieldNames(branch, out);
  return out;
}

type Resource = { id?: string; name?: string };

class Fixtures {
  private readonly made = new Map<string, Promise<Resource | undefined>>();
  constructor(private readonly key: string) {}

  /** One resource of the collection (memoised per project), or undefined when a valid one cannot be made. */
  of(collection: string): Promise<Resource | undefined> {
    let made = this.made.get(collection);
    if (!made) {
      made = this.create(collection);
      this.made.set(collection, made);
    }
    return made;
  }

  /**
   * Values that exist, for the fields of a schema that refer to something: a `*_id` field gets
   * the id of a resource of its collection, and a `from` field an address at a domain of the
   * project (test-mode keys send from a domain that is not verified yet).
   */
  async hintsFor(schema: JsonSchema): Promise<(field: string) => string[]> {
    const hints: Record<string, string> = {};
    for (const field of fieldNames(schema)) {
      const collection = field.endsWith('_id')
        ? collectionOf(field)
        : field === 'from'
          ? collectionOf('domain_id')
          : undefined;
      const resource = collection ? await this.of(collection) : undefined;
      if (field === 'from' && resource?.name) hints[field] = `Hostile <hostile@${resource.name}>`;
      else if (resource?.id) hints[field] = resource.id;
    }
    return (field) => (hints[field] ? [hints[field]] : []);
  }

  private async create(collection: string): Promise<Resource | undefined> {
    const route = table.find((r) => r.method === 'POST' && r.path === collection)!;
    const seed = new Seed(route.operation.body!, await this.hintsFor(jsonSchemaOf(route.operation.body!)));
    for (let attempt = 0; attempt < 12; attempt++) {
      const value = seed.valid();
      if (value === undefined) return undefined;
      const answer = await send({
        kind: 'fixture',
        method: 'POST',
        path: collection,
        headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(value),
      });
      if (answer.status < 300) return answer.body as Resource;
      const errors = (answer.body as { errors?: { path: string }[] }).errors;
      if (!Array.isArray(errors) || errors.length === 0) return undefined;
      seed.learn(
        value,
        errors.map((e) => e.path),
      );
    }
    return undefined;
  }
}

/** Real ids for a route's path parameters: each from the collection the path names before it. */
async function pathFixtures(route: Route, fixtures: Fixtures): Promise<Record<string, string | undefined>> {
  const out: Record<string, string | undefined> = {};
  const segments = route.path.split('/');
  for (const [index, segment] of segments.entries()) {
    const param = /^\{(\w+)\}$/.exec(segment)?.[1];
    if (!param) continue;
    const collection = segments.slice(0, index).join('/');
    const fixed = collection.replace(/\{(\w+)\}/g, (_, name: string) => out[name] ?? '');
    out[param] =
      table.some((r) => r.method === 'POST' && r.path === collection && r.operation.body) && !/\{/.test(collection)
        ? (await fixtures.of(fixed))?.id
        : undefined;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

interface Tally {
  route: string;
  cases: number;
  refused: number;
  accepted: number;
  realIds: string;
}
const tallies: Tally[] = [];
/** Generated cases over every route by kind: the first two parts of a case's kind (`body: missing field`, `query`). */
const generatedKinds = new Map<string, number>();

/** A stable per-route seed, so adding a route does not change the cases of the others. */
function routeSeed(route: Route): number {
  let hash = SEED;
  for (const ch of routeKey(route)) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
  return hash;
}

function describeCase(c: HostileCase): string {
  const body =
    c.body === undefined ? '' : ` body(${Buffer.byteLength(c.body)} B)=${JSON.stringify(String(c.body).slice(0, 160))}`;
  const headers = Object.entries(c.headers)
    .filter(([name, value]) => name !== 'authorization' || !/^Bearer es_(live|test)_[A-Za-z0-9]{32}$/.test(value))
    .map(([name, value]) => `${name}: ${JSON.stringify(value.slice(0, 60))}`)
    .join(', ');
  return `[${c.kind}] ${c.method} ${c.path.slice(0, 200)}${headers ? ` {${headers}}` : ''}${body}`;
}

describe('hostile input on every route', () => {
  afterAll(() => {
    const lines = tallies.map((t) => `| ${t.route} | ${t.cases} | ${t.refused} | ${t.accepted} | ${t.realIds} |`);
    const total = tallies.reduce((n, t) => n + t.cases, 0);
    console.log(
      [
        `Hostile input: ${total} cases over ${tallies.length} routes (seed ${SEED}; the fixed and payload cases, and ${RUNS} generated a route${RUNS < FULL ? `, a sample (test:deep sends ${FULL} a route)` : ''})`,
        `Generated cases by kind: ${[...generatedKinds]
          .sort()
          .map(([kind, n]) => `${kind} ${n}`)
          .join(', ')}`,
        '| route | cases | 4xx | accepted (valid as far as the schemas go) | real ids for |',
        '|---|---|---|---|---|',
        ...lines,
      ].join('\n'),
    );
  });

  it.each(table.map((route) => [routeKey(route), route] as const))(
    '%s',
    async (name, route) => {
      const project = await testModeProject();
      const fixtures = new Fixtures(project.key);
      const ids = await pathFixtures(route, fixtures);
      const seedBody = route.operation.body
        ? new Seed(route.operation.body, await fixtures.hintsFor(jsonSchemaOf(route.operation.body))).valid()
        : undefined;
      const ctx: RouteContext = { route, fixtures: ids, seedBody, apiKey: project.key };
      const generated = fc.sample(hostileCases(ctx), { seed: routeSeed(route), numRuns: RUNS });
      for (const { kind } of generated) {
        const family = kind.split(': ').slice(0, 2).join(': ');
        generatedKinds.set(family, (generatedKinds.get(family) ?? 0) + 1);
      }
      const cases = [...fixedCases(ctx), ...payloadCases(ctx), ...generated];

      const violations: string[] = [];
      let refused = 0;
      const check = async (c: HostileCase, expected: Expectation): Promise<Answer | undefined> => {
        let answer: Answer;
        try {
          answer = await send(c);
        } catch (error) {
          violations.push(`${describeCase(c)}\n    -> no answer: ${String((error as Error).cause ?? error)}`);
          return undefined;
        }
        if (answer.status >= 400) refused++;
        const problems = judge(answer.status, answer.body, answer.text, expected, c.status);
        if (problems.length > 0) violations.push(`${describeCase(c)}\n    -> ${problems.join('\n    -> ')}`);
        return answer;
      };
      const judged = cases.map((c) => ({ c, expected: expectation(baseUrl(), c, project.key) }));
      // The cases the schemas must refuse, two at a time (four starved the suites beside it on the
      // shared runtime), between two reads of the partition: none may leave anything behind, so the
      // partition after them is the one before (one read a case would say which case wrote, at twice
      // the suite's time; the seed gives the cases again).
      const mustReject = judged.filter((j) => j.expected.mustReject);
      let before = await snapshot(project.projectId);
      for (let first = 0; first < mustReject.length; first += 2)
        await Promise.all(mustReject.slice(first, first + 2).map((j) => check(j.c, j.expected)));
      let after = await snapshot(project.projectId);
      const leftBehind = difference(before, after);
      if (leftBehind.length > 0)
        violations.push(
          `the ${mustReject.length} requests the schemas refuse changed the project: ${leftBehind.join(', ')}`,
        );
      // the rest one at a time, each refused one between two reads of the partition
      before = after;
      for (const { c, expected } of judged.filter((j) => !j.expected.mustReject)) {
        const answer = await check(c, expected);
        after = await snapshot(project.projectId);
        if (answer && answer.status >= 400) {
          const changed = difference(before, after);
          if (changed.length > 0)
            violations.push(`${describeCase(c)}\n    -> a refused request changed the project: ${changed.join(', ')}`);
        }
        before = after;
      }
      const realIds = pathParams(route.path).filter((p) => ids[p]);
      tallies.push({
        route: name,
        cases: cases.length,
        refused,
        accepted: cases.length - refused,
        realIds: realIds.join(', ') || '-',
      });
      expect(violations).toEqual([]);
    },
    240_000,
  );
});
