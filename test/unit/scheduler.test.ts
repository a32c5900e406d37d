/**
 * The two hand-signed EventBridge Scheduler calls (shared/platform/aws/scheduler.ts) against what
 * the real `@aws-sdk/client-scheduler` puts on the wire for the same input (method, host, path,
 * query, content type, JSON body, the signing scope), what each answer becomes, and the local
 * runtime's check of Scheduler calls (local/lambda/needs.ts): only what `needs.scheduler` declares,
 * only in the service's group, and `iam:PassRole` on the schedule role as part of CreateSchedule.
 * The stand-in itself is test/integration/local-scheduler.test.ts's.
 */
import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import type { HttpRequest } from '@smithy/types';
import { grantedActions, type Needs } from '../../functions/needs';
import type { Invocation } from '../../local/lambda/invocation';
import { checkCall, requirementsOf } from '../../local/lambda/needs';
import { type AwsCall, installAwsCallChecker } from '../../shared/platform/aws/call-guard';
import {
  deleteSchedule,
  MAX_SCHEDULE_NAME_LENGTH,
  SCHEDULE_NAME_PATTERN,
  SchedulerError,
  scheduleMessage,
} from '../../shared/platform/aws/scheduler';
import { captureFetch } from '../support/capture-fetch';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const ROLE = 'arn:aws:iam::000000000000:role/EmailService-SchedulesRole';
const settings = {
  AWS_REGION: 'ap-southeast-2',
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  SCHEDULE_GROUP_NAME: 'EmailService-steps',
  SCHEDULE_TARGET_ARN: 'arn:aws:sqs:ap-southeast-2:000000000000:automation-steps',
  SCHEDULE_ROLE_ARN: ROLE,
  SCHEDULE_DLQ_ARN: 'arn:aws:sqs:ap-southeast-2:000000000000:automation-steps-dlq',
};
const saved = { ...process.env };
beforeAll(() => {
  Object.assign(process.env, settings);
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_ENDPOINT_URL_SCHEDULER;
});
afterAll(() => {
  process.env = saved;
});

/** What the SDK would put on the wire, captured instead of sent. */
async function sdkRequest(command: CreateScheduleCommand | DeleteScheduleCommand): Promise<HttpRequest> {
  let captured: HttpRequest | undefined;
  const requestHandler = {
    handle: async (request: HttpRequest) => ((captured = request), Promise.reject(new Error('captured'))),
  };
  const client = new SchedulerClient({
    region: 'ap-southeast-2',
    credentials,
    requestHandler: requestHandler as never,
  });
  await client.send(command as never).catch(() => undefined);
  client.destroy();
  return captured!;
}

const bodyText = (body: unknown) =>
  body instanceof Uint8Array
    ? Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
    : String(body);
const scope = (authorization: unknown) => /Credential=([^,]+)/.exec(String(authorization))?.[1];
const answer = (status: number, body: unknown, errorType?: string) => () =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) },
  });

describe('the hand-signed Scheduler calls', () => {
  const at = Date.UTC(2026, 11, 3, 9, 30, 15, 1); // 09:30:15.001: rounded up to 09:30:16

  it('CreateSchedule sends what the SDK sends: regional host, path, content type, the JSON body, signed for scheduler', async () => {
    const ours = await captureFetch(
      () => scheduleMessage({ name: 'run-01J-step-3', at, body: '{"run":"r1","step":3}' }),
      answer(200, { ScheduleArn: 'arn' }),
    );
    const sent = JSON.parse(ours.body);
    const theirs = await sdkRequest(
      new CreateScheduleCommand({
        Name: 'run-01J-step-3',
        GroupName: settings.SCHEDULE_GROUP_NAME,
        ScheduleExpression: 'at(2026-12-03T09:30:16)',
        ScheduleExpressionTimezone: 'UTC',
        FlexibleTimeWindow: { Mode: 'OFF' },
        ActionAfterCompletion: 'DELETE',
        ClientToken: sent.ClientToken,
        Target: {
          Arn: settings.SCHEDULE_TARGET_ARN,
          RoleArn: ROLE,
          Input: '{"run":"r1","step":3}',
          DeadLetterConfig: { Arn: settings.SCHEDULE_DLQ_ARN },
          RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
        },
      }),
    );
    expect(ours.method).toBe(theirs.method);
    expect(ours.url.hostname).toBe(theirs.hostname);
    expect(ours.url.hostname).toBe('scheduler.ap-southeast-2.amazonaws.com');
    expect(ours.url.pathname).toBe(theirs.path);
    expect(Object.fromEntries(ours.url.searchParams)).toEqual(theirs.query);
    expect(ours.headers['content-type']).toBe(theirs.headers['content-type']);
    expect(ours.headers['x-amz-content-sha256']).toBe(theirs.headers['x-amz-content-sha256']);
    expect(sent).toEqual(JSON.parse(bodyText(theirs.body)));
    expect(sent.ClientToken).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(scope(ours.headers.authorization)).toBe(scope(theirs.headers.authorization));
    expect(scope(ours.headers.authorization)).toMatch(/^AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/scheduler\/aws4_request$/);
  });

  it('DeleteSchedule sends what the SDK sends: the name in the path, group and client token in the query, no body', async () => {
    const ours = await captureFetch(() => deleteSchedule('run-01J-step-3'), answer(200, {}));
    const query = Object.fromEntries(ours.url.searchParams);
    const theirs = await sdkRequest(
      new DeleteScheduleCommand({
        Name: 'run-01J-step-3',
        GroupName: settings.SCHEDULE_GROUP_NAME,
        ClientToken: query.clientToken,
      }),
    );
    expect(ours.method).toBe('DELETE');
    expect(ours.method).toBe(theirs.method);
    expect(ours.url.hostname).toBe(theirs.hostname);
    expect(ours.url.pathname).toBe(theirs.path);
    expect(query).toEqual(theirs.query);
    expect(query.clientToken).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    expect(ours.body).toBe('');
    expect(ours.headers['content-type']).toBeUndefined();
    expect(theirs.headers['content-type']).toBeUndefined();
    expect(ours.headers['x-amz-content-sha256']).toBe(theirs.headers['x-amz-content-sha256']);
    expect(scope(ours.headers.authorization)).toBe(scope(theirs.headers.authorization));
  });

  it('rounds the time up to the whole second, and keeps a whole second as it is', async () => {
    const expression = async (time: number) =>
      JSON.parse((await captureFetch(() => scheduleMessage({ name: 'n', at: time, body: 'x' }), answer(200, {}))).body)
        .ScheduleExpression;
    expect(await expression(Date.UTC(2026, 0, 31, 23, 59, 59, 1))).toBe('at(2026-02-01T00:00:00)');
    expect(await expression(Date.UTC(2026, 0, 31, 23, 59, 59, 0))).toBe('at(2026-01-31T23:59:59)');
  });

  it('uses AWS_ENDPOINT_URL_SCHEDULER when it is set', async () => {
    process.env.AWS_ENDPOINT_URL_SCHEDULER = 'http://127.0.0.1:4599';
    try {
      const ours = await captureFetch(() => deleteSchedule('n'), answer(200, {}));
      expect(ours.url.origin).toBe('http://127.0.0.1:4599');
      expect(ours.url.pathname).toBe('/schedules/n');
    } finally {
      delete process.env.AWS_ENDPOINT_URL_SCHEDULER;
    }
  });

  it("answers 'created' and 'deleted', 'exists' for Scheduler's ConflictException, 'absent' for its ResourceNotFoundException", async () => {
    const schedule = () => scheduleMessage({ name: 'n', at, body: 'x' });
    const outcome = async <T>(call: () => Promise<T>, respond: () => Response) => {
      let result: T | undefined;
      await captureFetch(async () => (result = await call()), respond);
      return result;
    };
    expect(await outcome(schedule, answer(200, { ScheduleArn: 'a' }))).toBe('created');
    expect(
      await outcome(
        schedule,
        answer(409, { Message: 'Schedule n already exists.' }, 'ConflictException:http://internal.amazon.com/'),
      ),
    ).toBe('exists');
    expect(await outcome(() => deleteSchedule('n'), answer(200, {}))).toBe('deleted');
    expect(
      await outcome(
        () => deleteSchedule('n'),
        answer(404, { Message: 'Schedule n does not exist.' }, 'ResourceNotFoundException'),
      ),
    ).toBe('absent');
  });

  it('throws any other answer as a SchedulerError with its status and code', async () => {
    const thrown = async (call: () => Promise<unknown>, respond: () => Response) => {
      let error: unknown;
      await captureFetch(() => call().catch((e: unknown) => void (error = e)), respond);
      return error;
    };
    const throttled = await thrown(
      () => scheduleMessage({ name: 'n', at, body: 'x' }),
      answer(429, { Message: 'Rate exceeded' }, 'ThrottlingException'),
    );
    expect(throttled).toBeInstanceOf(SchedulerError);
    expect(throttled).toMatchObject({ status: 429, code: 'ThrottlingException' });
    // a group that does not exist is ResourceNotFoundException on create: not 'exists', an error
    expect(
      await thrown(
        () => scheduleMessage({ name: 'n', at, body: 'x' }),
        answer(404, { Message: 'Schedule group g does not exist.' }, 'ResourceNotFoundException'),
      ),
    ).toMatchObject({ status: 404, code: 'ResourceNotFoundException' });
    expect(
      await thrown(() => deleteSchedule('n'), answer(400, { Message: 'bad' }, 'ValidationException')),
    ).toMatchObject({ status: 400, code: 'ValidationException' });
  });

  it('refuses a name Scheduler would refuse before any request', async () => {
    expect(SCHEDULE_NAME_PATTERN.test('run_01J.step-3')).toBe(true);
    for (const name of ['', 'a/b', 'a b', 'a[b', 'x'.repeat(MAX_SCHEDULE_NAME_LENGTH + 1)]) {
      let sent = false;
      await expect(
        captureFetch(
          () => scheduleMessage({ name, at, body: 'x' }),
          () => ((sent = true), new Response('{}')),
        ),
      ).rejects.toThrow(/schedule name/);
      expect(sent).toBe(false);
    }
    await expect(deleteSchedule('a b')).rejects.toThrow(/schedule name/);
  });
});

describe("the local runtime's check of Scheduler calls", () => {
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined)); // the runtime logs each refusal
  afterEach(() => jest.restoreAllMocks());
  // the calls below are this test's, not a function's: kept out of the run's record of calls (test/support/grants-check.ts)
  const callsLog = process.env.AWS_CALLS_LOG;
  beforeAll(() => delete process.env.AWS_CALLS_LOG);
  afterAll(() => {
    if (callsLog !== undefined) process.env.AWS_CALLS_LOG = callsLog;
  });

  const invocation = (scheduler?: Needs['scheduler']): Invocation => ({
    fn: { name: 'AutomationStepsWorker', needs: { scheduler }, timeoutMs: 1000 },
    timedOut: false,
  });
  const create = (group = settings.SCHEDULE_GROUP_NAME, role = ROLE): AwsCall => ({
    service: 'scheduler',
    operation: 'CreateSchedule',
    input: { Name: 'n', GroupName: group, Target: { Arn: settings.SCHEDULE_TARGET_ARN, RoleArn: role, Input: 'x' } },
  });
  const remove = (group = settings.SCHEDULE_GROUP_NAME): AwsCall => ({
    service: 'scheduler',
    operation: 'DeleteSchedule',
    input: { Name: 'n', GroupName: group },
  });
  const denied = expect.objectContaining({ name: 'AccessDeniedException' });

  it('names the grants of a declaration: each action on the group, and PassRole with CreateSchedule only', () => {
    expect(grantedActions({ scheduler: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'] })).toEqual([
      'iam:PassRole:scheduler-role',
      'scheduler:CreateSchedule:group',
      'scheduler:DeleteSchedule:group',
    ]);
    expect(grantedActions({ scheduler: ['scheduler:DeleteSchedule'] })).toEqual(['scheduler:DeleteSchedule:group']);
  });

  it('requires iam:PassRole on the role a CreateSchedule passes, as IAM does', () => {
    const fn = invocation().fn;
    expect(requirementsOf(fn, create())).toEqual([
      {
        grant: 'scheduler:CreateSchedule:group',
        action: 'scheduler:CreateSchedule',
        resource: `arn:aws:scheduler:ap-southeast-2:000000000000:schedule/${settings.SCHEDULE_GROUP_NAME}/n`,
      },
      { grant: 'iam:PassRole:scheduler-role', action: 'iam:PassRole', resource: ROLE },
    ]);
    expect(requirementsOf(fn, remove()).map((r) => r.grant)).toEqual(['scheduler:DeleteSchedule:group']);
  });

  it('allows what the need declares (CreateSchedule with its PassRole) and refuses the rest with AccessDeniedException', () => {
    const both = invocation(['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']);
    expect(() => checkCall(both, create())).not.toThrow();
    expect(() => checkCall(both, remove())).not.toThrow();
    expect(() => checkCall(invocation(['scheduler:DeleteSchedule']), create())).toThrow(denied);
    expect(() => checkCall(invocation(['scheduler:CreateSchedule']), remove())).toThrow(denied);
    expect(() => checkCall(invocation(), create())).toThrow(denied);
    expect(() => checkCall(invocation(), remove())).toThrow(denied);
  });

  it('refuses another group, and a schedule that passes another role', () => {
    const both = invocation(['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']);
    expect(() => checkCall(both, create('default'))).toThrow(denied);
    expect(() => checkCall(both, remove('other'))).toThrow(denied);
    const otherRole = 'arn:aws:iam::000000000000:role/Admin';
    expect(() => checkCall(both, create(undefined, otherRole))).toThrow(
      expect.objectContaining({
        name: 'AccessDeniedException',
        message: expect.stringContaining(`not authorized to perform: iam:PassRole on resource: ${otherRole}`),
      }),
    );
  });

  it("the hand-signed calls pass the guard with the SDK's member names", async () => {
    const calls: AwsCall[] = [];
    installAwsCallChecker((call) => void calls.push(call));
    try {
      await captureFetch(() => scheduleMessage({ name: 'n', at: Date.now(), body: 'x' }), answer(200, {}));
      await captureFetch(() => deleteSchedule('n'), answer(200, {}));
    } finally {
      installAwsCallChecker(undefined);
    }
    const [created, deleted] = calls;
    expect(created).toMatchObject({ service: 'scheduler', operation: 'CreateSchedule' });
    expect(requirementsOf(invocation().fn, created).map((r) => r.grant)).toEqual([
      'scheduler:CreateSchedule:group',
      'iam:PassRole:scheduler-role',
    ]);
    expect(requirementsOf(invocation().fn, deleted).map((r) => r.grant)).toEqual(['scheduler:DeleteSchedule:group']);
  });
});
