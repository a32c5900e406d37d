/**
 * Every AWS operation the functions' code makes is listed in local/lambda/aws-operations.ts with
 * what AWS requires for it besides its own action, and the local grants check requires those too:
 * the SDK commands (`new XCommand(` anywhere in functions/ and shared/; lib-dynamodb's commands by
 * the DynamoDB operation they send) and the hand-signed S3, KMS and Scheduler calls
 * (shared/platform/aws/s3.ts, kms.ts, scheduler.ts). A new operation fails here until it is listed, so nobody adds a call without deciding
 * what its role needs.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AWS_OPERATIONS, DOCUMENT_COMMANDS } from '../../local/lambda/aws-operations';
import { checkCall, requirementsOf } from '../../local/lambda/needs';
import { routeFunction } from '../../local/lambda/invocation';
import { routes } from '../../functions/routes';
import type { FunctionIdentity } from '../../local/lambda/invocation';

const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === 'dashboard' ? [] : sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** The SDK packages the functions' clients come from, with the service each speaks for. */
const PACKAGES: [keyof typeof AWS_OPERATIONS, Record<string, unknown>, boolean][] = [
  ['dynamodb', require('@aws-sdk/lib-dynamodb'), true],
  ['sqs', require('@aws-sdk/client-sqs'), false],
  ['ses', require('@aws-sdk/client-sesv2'), false],
];

/** `service:Operation` of every SDK command constructed in the functions' code (directly or through a platform module's re-export). */
function sdkOperations(): Set<string> {
  const found = new Set<string>();
  for (const file of [...sources('functions'), ...sources('shared')]) {
    for (const [, command] of readFileSync(join(root, file), 'utf8').matchAll(/new (\w+)Command\(/g)) {
      const owner = PACKAGES.find(([, exports]) => `${command}Command` in exports);
      if (!owner) throw new Error(`${file}: no SDK package of the functions exports ${command}Command`);
      const [service, , documentClient] = owner;
      found.add(`${service}:${documentClient ? DOCUMENT_COMMANDS[command] : command}`);
    }
  }
  return found;
}

/** `service:Operation` of every hand-signed call: the operation names s3.ts sends and presigns, and the ones kms.ts and scheduler.ts call. */
function signedOperations(): Set<string> {
  const s3 = readFileSync(join(root, 'shared/platform/aws/s3.ts'), 'utf8');
  const kms = readFileSync(join(root, 'shared/platform/aws/kms.ts'), 'utf8');
  const scheduler = readFileSync(join(root, 'shared/platform/aws/scheduler.ts'), 'utf8');
  return new Set([
    ...[...s3.matchAll(/send\('(\w+)'/g)].map((m) => `s3:${m[1]}`),
    ...[...s3.matchAll(/const operation = [^;]*\? '(\w+)' : '(\w+)'/g)].flatMap((m) => [`s3:${m[1]}`, `s3:${m[2]}`]),
    ...[...kms.matchAll(/call<[^>]*>\('(\w+)'/g)].map((m) => `kms:${m[1]}`),
    ...[...scheduler.matchAll(/\bcall\('(\w+)'/g)].map((m) => `scheduler:${m[1]}`),
  ]);
}

const listed = () =>
  new Set(
    Object.entries(AWS_OPERATIONS).flatMap(([service, operations]) =>
      Object.keys(operations).map((op) => `${service}:${op}`),
    ),
  );

it('lists every operation the code makes, and only those', () => {
  const made = new Set([...sdkOperations(), ...signedOperations()]);
  expect(made.size).toBeGreaterThan(20);
  expect([...made].filter((op) => !listed().has(op)).sort()).toEqual([]);
  expect([...listed()].filter((op) => !made.has(op)).sort()).toEqual([]);
});

const fn = (ses: string[]): FunctionIdentity => ({
  name: 'PostDomains',
  needs: { ses: ses as `ses:${string}`[] },
  timeoutMs: 1000,
});
const grantsOf = (operation: string, input: Record<string, unknown>) =>
  requirementsOf(fn([]), { service: 'ses', operation, input }).map((r) => r.grant);

it('requires TagResource of a create call that carries tags, and not of one without', () => {
  expect(grantsOf('CreateTenantCommand', { TenantName: 'es-p', Tags: [{ Key: 'project_id', Value: 'p' }] })).toEqual([
    'ses:CreateTenant',
    'ses:TagResource',
  ]);
  expect(grantsOf('CreateTenantCommand', { TenantName: 'es-p' })).toEqual(['ses:CreateTenant']);
  expect(
    grantsOf('CreateConfigurationSetCommand', { ConfigurationSetName: 'es-d', Tags: [{ Key: 'a', Value: 'b' }] }),
  ).toEqual(['ses:CreateConfigurationSet', 'ses:TagResource']);
  expect(grantsOf('CreateEmailIdentityCommand', { EmailIdentity: 'example.com' })).toEqual(['ses:CreateEmailIdentity']);
});

describe('the request pipeline of a read-only route', () => {
  // the calls below are the guard's, not a function's: kept out of the test run's record of calls (test/support/grants-check.ts)
  const callsLog = process.env.AWS_CALLS_LOG;
  beforeAll(() => delete process.env.AWS_CALLS_LOG);
  afterAll(() => {
    if (callsLog !== undefined) process.env.AWS_CALLS_LOG = callsLog;
  });
  const getSegments = {
    fn: routeFunction(routes.find((r) => r.method === 'GET' && r.path === '/segments')!),
    timedOut: false,
  };
  const put = (PK: string) => ({
    service: 'dynamodb' as const,
    operation: 'PutItemCommand',
    input: { TableName: 't', Item: { PK, SK: 'X' } },
  });
  const update = (PK: string) => ({
    service: 'dynamodb' as const,
    operation: 'UpdateItemCommand',
    input: { TableName: 't', Key: { PK, SK: 'X' } },
  });

  it("may count its rate window, log its request and record its key's use", () => {
    expect(() => checkCall(getSegments, update('RATE_LIMIT#p1#1764100000'))).not.toThrow();
    expect(() => checkCall(getSegments, put('PROJECT#p1#LOGS#3'))).not.toThrow();
    expect(() => checkCall(getSegments, update('API_KEY_HASH#0a1b'))).not.toThrow(); // the key's last use
  });

  it('may put or update nothing else, in a transaction neither (AccessDeniedException, as IAM answers)', () => {
    expect(() => checkCall(getSegments, put('PROJECT#p1'))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    expect(() => checkCall(getSegments, update('PROJECT#p1#LOGS#3'))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    const transaction = {
      service: 'dynamodb' as const,
      operation: 'TransactWriteItemsCommand',
      input: {
        TransactItems: [
          { Put: { TableName: 't', Item: { PK: 'PROJECT#p1#LOGS#1' } } },
          { Put: { TableName: 't', Item: { PK: 'PROJECT#p1' } } },
        ],
      },
    };
    expect(() => checkCall(getSegments, transaction)).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
  });
});
