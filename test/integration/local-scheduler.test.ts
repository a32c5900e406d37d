/**
 * The local EventBridge Scheduler (local/aws/scheduler.ts) through the real
 * `@aws-sdk/client-scheduler`, and what it delivers read with the real `@aws-sdk/client-sqs`:
 * - in a runtime of this file's own on the manual clock: create, get, list and delete in the
 *   runtime's group; what Scheduler refuses (a name taken, a schedule or group that does not exist,
 *   a bad `at()`, a target that is not a local queue, a request not signed with the runtime's
 *   credentials); schedules that fire at their time as the control API moves the clock, in order,
 *   each exactly once, then are deleted; a delivery SQS refuses goes to the dead-letter queue; drain
 *   waits for a schedule already due;
 * - on disk: a schedule survives a restart of the stand-in (and fires after it on the clock), and a
 *   SIGKILL of the process right after the answer that confirmed it (and fires once started again,
 *   its time having passed while it was down).
 * No sleeps: time moves through the runtime's clock and drain, or a long poll waits for the message.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ConflictException,
  CreateScheduleCommand,
  type CreateScheduleCommandInput,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  ValidationException,
} from '@aws-sdk/client-scheduler';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  type Message,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { LocalClock } from '../../local/clock';
import { type LocalScheduler, startLocalScheduler } from '../../local/aws/scheduler';
import { type LocalSqs, startLocalSqs } from '../../local/aws/sqs';
import { useOwnRuntime } from '../support/own-runtime';
import { OWN_STAND_IN_CREDENTIALS, runtimeCredentials } from '../support/stand-ins';
import { waitFor } from '../support/wait';

const region = 'ap-southeast-2';
const ACCOUNT = '000000000000';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/email-service-scheduler`;
const DAY = 24 * 60 * 60 * 1000;
const queueArn = (name: string) => `arn:aws:sqs:${region}:${ACCOUNT}:${name}`;
/** `at(yyyy-mm-ddThh:mm:ss)` of a time (whole seconds). */
const at = (time: number) => `at(${new Date(time).toISOString().slice(0, 19)})`;
/** The next whole second at or after `time`. */
const wholeSecond = (time: number) => Math.ceil(time / 1000) * 1000;

/** A one-time schedule's input, as the service makes them: to `queue` at `time`, deleted after it fired. */
const oneTime = (
  name: string,
  group: string,
  time: number,
  queue: string,
  more: Partial<CreateScheduleCommandInput> = {},
): CreateScheduleCommandInput => ({
  Name: name,
  GroupName: group,
  ScheduleExpression: at(time),
  ScheduleExpressionTimezone: 'UTC',
  FlexibleTimeWindow: { Mode: 'OFF' },
  ActionAfterCompletion: 'DELETE',
  Target: { Arn: queueArn(queue), RoleArn: ROLE, Input: JSON.stringify({ schedule: name }) },
  ...more,
});

/** Every message on a queue now (received, then deleted), with its SentTimestamp. */
async function takeAll(sqs: SQSClient, url: string, WaitTimeSeconds = 0): Promise<Message[]> {
  const taken: Message[] = [];
  for (;;) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: taken.length === 0 ? WaitTimeSeconds : 0,
        MessageSystemAttributeNames: ['SentTimestamp'],
        MessageAttributeNames: ['All'],
      }),
    );
    if (Messages.length === 0) return taken;
    for (const message of Messages)
      await sqs.send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: message.ReceiptHandle }));
    taken.push(...Messages);
  }
}

describe('in a runtime on the manual clock', () => {
  const runtime = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { share: true });
  let scheduler: SchedulerClient;
  let sqs: SQSClient;
  let group: string;
  let endpoint: string;
  const queues: Record<string, string> = {};

  beforeAll(async () => {
    const file = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8'));
    const credentials = runtimeCredentials(runtime.dataDir);
    endpoint = file.schedulerEndpoint;
    group = file.scheduleGroup;
    scheduler = new SchedulerClient({ endpoint, region, credentials });
    sqs = new SQSClient({ endpoint: file.sqsEndpoint, region, credentials });
    // queues of this test's own: the runtime's automation-steps queue has a consumer
    for (const name of ['scheduler-target', 'scheduler-dlq'])
      queues[name] = (await sqs.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl!;
  });
  afterAll(() => {
    scheduler?.destroy();
    sqs?.destroy();
  });

  it("creates, gets, lists and deletes a one-time schedule in the runtime's group", async () => {
    const time = wholeSecond((await runtime.now()) + 10 * DAY);
    const created = await scheduler.send(
      new CreateScheduleCommand(
        oneTime('crud-1', group, time, 'scheduler-target', { Description: 'a wait', State: 'DISABLED' }),
      ),
    );
    expect(created.ScheduleArn).toBe(`arn:aws:scheduler:${region}:${ACCOUNT}:schedule/${group}/crud-1`);
    await scheduler.send(new CreateScheduleCommand(oneTime('crud-2', group, time, 'scheduler-target')));
    const got = await scheduler.send(new GetScheduleCommand({ Name: 'crud-1', GroupName: group }));
    expect(got).toMatchObject({
      Arn: created.ScheduleArn,
      Name: 'crud-1',
      GroupName: group,
      ScheduleExpression: at(time),
      ScheduleExpressionTimezone: 'UTC',
      State: 'DISABLED',
      Description: 'a wait',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: { Arn: queueArn('scheduler-target'), RoleArn: ROLE, Input: '{"schedule":"crud-1"}' },
    });
    expect(got.CreationDate).toBeInstanceOf(Date);
    const listed = await scheduler.send(new ListSchedulesCommand({ GroupName: group, NamePrefix: 'crud-' }));
    expect(listed.Schedules?.map((s) => [s.Name, s.State, s.Target?.Arn])).toEqual([
      ['crud-1', 'DISABLED', queueArn('scheduler-target')],
      ['crud-2', 'ENABLED', queueArn('scheduler-target')],
    ]);
    const first = await scheduler.send(
      new ListSchedulesCommand({ GroupName: group, NamePrefix: 'crud-', MaxResults: 1 }),
    );
    expect(first.Schedules?.map((s) => s.Name)).toEqual(['crud-1']);
    const second = await scheduler.send(
      new ListSchedulesCommand({ GroupName: group, NamePrefix: 'crud-', MaxResults: 1, NextToken: first.NextToken }),
    );
    expect([second.Schedules?.map((s) => s.Name), second.NextToken]).toEqual([['crud-2'], undefined]);
    expect((await scheduler.send(new ListSchedulesCommand({ GroupName: 'default' }))).Schedules).toEqual([]);
    for (const name of ['crud-1', 'crud-2'])
      await scheduler.send(new DeleteScheduleCommand({ Name: name, GroupName: group }));
    expect(
      (await scheduler.send(new ListSchedulesCommand({ GroupName: group, NamePrefix: 'crud-' }))).Schedules,
    ).toEqual([]);
  });

  it('answers ConflictException for a name taken in the group, and the same ARN to a retry with the same ClientToken', async () => {
    const time = wholeSecond((await runtime.now()) + 10 * DAY);
    const input = oneTime('taken', group, time, 'scheduler-target', { ClientToken: 'retry-token-1' });
    const created = await scheduler.send(new CreateScheduleCommand(input));
    expect(await scheduler.send(new CreateScheduleCommand(input))).toMatchObject({ ScheduleArn: created.ScheduleArn });
    await expect(
      scheduler.send(new CreateScheduleCommand({ ...input, ClientToken: 'another-token' })),
    ).rejects.toBeInstanceOf(ConflictException);
    await expect(scheduler.send(new CreateScheduleCommand({ ...input, ClientToken: undefined }))).rejects.toMatchObject(
      {
        name: 'ConflictException',
        $metadata: { httpStatusCode: 409 },
      },
    );
    await scheduler.send(new DeleteScheduleCommand({ Name: 'taken', GroupName: group }));
  });

  it('answers ResourceNotFoundException for a schedule or a group that does not exist', async () => {
    const time = wholeSecond((await runtime.now()) + DAY);
    await expect(scheduler.send(new GetScheduleCommand({ Name: 'nobody', GroupName: group }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(scheduler.send(new DeleteScheduleCommand({ Name: 'nobody', GroupName: group }))).rejects.toMatchObject(
      { name: 'ResourceNotFoundException', $metadata: { httpStatusCode: 404 } },
    );
    await expect(
      scheduler.send(new CreateScheduleCommand(oneTime('lost', 'no-such-group', time, 'scheduler-target'))),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: 'Schedule group no-such-group does not exist.',
    });
    await expect(scheduler.send(new ListSchedulesCommand({ GroupName: 'no-such-group' }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
  });

  it('refuses what Scheduler refuses with ValidationException: a bad at(), a bad name, a target that is not a local queue', async () => {
    const time = wholeSecond((await runtime.now()) + DAY);
    const refused = async (input: CreateScheduleCommandInput, message: RegExp) => {
      const error = await scheduler.send(new CreateScheduleCommand(input)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationException);
      expect(error).toMatchObject({ $metadata: { httpStatusCode: 400 }, message: expect.stringMatching(message) });
    };
    const base = oneTime('refused', group, time, 'scheduler-target');
    for (const expression of [
      'at(2026-02-30T10:00:00)',
      'at(2026-12-01 10:00:00)',
      'at(2026-12-01T10:00)',
      'at(2026-12-01T24:00:00)',
      'at(2026-12-01T10:00:00Z)',
    ])
      await refused({ ...base, ScheduleExpression: expression }, /Invalid Schedule Expression/);
    await refused({ ...base, ScheduleExpression: 'rate(5 minutes)' }, /one-time schedules only/);
    await refused({ ...base, Name: 'a name' }, /regular expression pattern/);
    await refused({ ...base, Name: 'x'.repeat(65) }, /length less than or equal to 64/);
    await refused(
      { ...base, Target: { ...base.Target!, Arn: `arn:aws:lambda:${region}:${ACCOUNT}:function:f` } },
      /local SQS/,
    );
    await refused(
      { ...base, Target: { ...base.Target!, Arn: `arn:aws:sqs:us-east-1:${ACCOUNT}:scheduler-target` } },
      /local SQS/,
    );
    await refused({ ...base, Target: { ...base.Target!, RoleArn: 'not-a-role' } }, /target.roleArn/);
    await refused(
      { ...base, Target: { ...base.Target!, RetryPolicy: { MaximumRetryAttempts: 186 } } },
      /less than or equal to 185/,
    );
    await refused({ ...base, FlexibleTimeWindow: { Mode: 'FLEXIBLE' } }, /MaximumWindowInMinutes/);
    expect(
      (await scheduler.send(new ListSchedulesCommand({ GroupName: group, NamePrefix: 'refused' }))).Schedules,
    ).toEqual([]);
  });

  it("refuses a request not signed with the runtime's credentials", async () => {
    const { accessKeyId, secretAccessKey } = runtimeCredentials(runtime.dataDir);
    const forged = new SchedulerClient({
      endpoint,
      region,
      // its last character changed (to another one: the generated secret ends in 'x' one time in 64)
      credentials: {
        accessKeyId,
        secretAccessKey: `${secretAccessKey.slice(0, -1)}${secretAccessKey.endsWith('x') ? 'y' : 'x'}`,
      },
    });
    const stranger = new SchedulerClient({ endpoint, region, credentials: OWN_STAND_IN_CREDENTIALS });
    try {
      await expect(forged.send(new ListSchedulesCommand({ GroupName: group }))).rejects.toMatchObject({
        name: 'InvalidSignatureException',
        $metadata: { httpStatusCode: 403 },
      });
      await expect(stranger.send(new GetScheduleCommand({ Name: 'x', GroupName: group }))).rejects.toMatchObject({
        name: 'UnrecognizedClientException',
        $metadata: { httpStatusCode: 403 },
      });
      const unsigned = await fetch(`${endpoint}/schedules?ScheduleGroup=${group}`);
      expect([unsigned.status, unsigned.headers.get('x-amzn-errortype')]).toEqual([
        403,
        'MissingAuthenticationTokenException',
      ]);
    } finally {
      forged.destroy();
      stranger.destroy();
    }
  });

  it('fires each schedule at its time as the clock moves past it, in order, exactly once, then deletes it', async () => {
    const now = await runtime.now();
    const inOneDay = wholeSecond(now + DAY);
    const inThreeDays = wholeSecond(now + 3 * DAY);
    await scheduler.send(new CreateScheduleCommand(oneTime('wait-3-days', group, inThreeDays, 'scheduler-target')));
    await scheduler.send(new CreateScheduleCommand(oneTime('wait-1-day', group, inOneDay, 'scheduler-target')));
    // kept after it fired (NONE): completed, never delivered again
    await scheduler.send(
      new CreateScheduleCommand(
        oneTime('wait-1-day-kept', group, inOneDay + 1000, 'scheduler-target', { ActionAfterCompletion: 'NONE' }),
      ),
    );
    const url = queues['scheduler-target'];

    await runtime.move({ advance: '2 days' });
    const early = await takeAll(sqs, url);
    expect(early.map((m) => [m.Body, Number(m.Attributes!.SentTimestamp)])).toEqual([
      ['{"schedule":"wait-1-day"}', inOneDay],
      ['{"schedule":"wait-1-day-kept"}', inOneDay + 1000],
    ]);
    await expect(
      scheduler.send(new GetScheduleCommand({ Name: 'wait-1-day', GroupName: group })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
    expect(await scheduler.send(new GetScheduleCommand({ Name: 'wait-1-day-kept', GroupName: group }))).toMatchObject({
      State: 'ENABLED',
    });
    expect(await scheduler.send(new GetScheduleCommand({ Name: 'wait-3-days', GroupName: group }))).toMatchObject({
      ScheduleExpression: at(inThreeDays),
    });

    await runtime.move({ set: new Date(inThreeDays).toISOString() }); // to the second it is due, not past it
    const late = await takeAll(sqs, url);
    expect(late.map((m) => [m.Body, Number(m.Attributes!.SentTimestamp)])).toEqual([
      ['{"schedule":"wait-3-days"}', inThreeDays],
    ]);
    await expect(
      scheduler.send(new GetScheduleCommand({ Name: 'wait-3-days', GroupName: group })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);

    await runtime.move({ advance: '2 days' });
    expect(await takeAll(sqs, url)).toEqual([]);
    await scheduler.send(new DeleteScheduleCommand({ Name: 'wait-1-day-kept', GroupName: group }));
  });

  it('delivers a schedule already due before drain settles', async () => {
    const now = await runtime.now();
    await scheduler.send(
      new CreateScheduleCommand(oneTime('already-due', group, Math.floor(now / 1000) * 1000, 'scheduler-target')),
    );
    await runtime.drain();
    expect((await takeAll(sqs, queues['scheduler-target'])).map((m) => m.Body)).toEqual(['{"schedule":"already-due"}']);
  });

  it('sends a delivery SQS refuses to the dead-letter queue, with the error and the schedule', async () => {
    const time = wholeSecond((await runtime.now()) + 60_000);
    const input = oneTime('to-nowhere', group, time, 'no-such-queue');
    await scheduler.send(
      new CreateScheduleCommand({
        ...input,
        Target: { ...input.Target!, DeadLetterConfig: { Arn: queueArn('scheduler-dlq') } },
      }),
    );
    await runtime.move({ set: new Date(time).toISOString() });
    const [dead, ...more] = await takeAll(sqs, queues['scheduler-dlq']);
    expect(more).toEqual([]);
    expect(dead.Body).toBe('{"schedule":"to-nowhere"}');
    expect(dead.MessageAttributes).toMatchObject({
      ERROR_CODE: { StringValue: expect.stringContaining('QueueDoesNotExist') },
      SCHEDULE_ARN: { StringValue: `arn:aws:scheduler:${region}:${ACCOUNT}:schedule/${group}/to-nowhere` },
      TARGET_ARN: { StringValue: queueArn('no-such-queue') },
    });
    await expect(
      scheduler.send(new GetScheduleCommand({ Name: 'to-nowhere', GroupName: group })),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });
});

describe('on disk', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'local-scheduler-'));
    dirs.push(dir);
    return dir;
  };
  const credentials = OWN_STAND_IN_CREDENTIALS;

  it('keeps a schedule across a restart of the stand-in, and fires it after, on the clock', async () => {
    const dir = scratch();
    const clockFile = join(dir, 'clock.json');
    let clock = new LocalClock('manual', clockFile);
    // the SQS stand-in reads the same clock, as in the runtime (its SentTimestamp is the delivery's time)
    const sqsStandIn: LocalSqs = await startLocalSqs({
      region,
      credentials,
      clock: { now: () => clock.now(), manual: true },
    });
    const sqs = new SQSClient({ endpoint: sqsStandIn.endpoint, region, credentials });
    const url = (await sqs.send(new CreateQueueCommand({ QueueName: 'target' }))).QueueUrl!;
    const start = (clock: LocalClock) =>
      startLocalScheduler({
        dir: join(dir, 'scheduler'),
        region,
        credentials,
        clock,
        sqsEndpoint: sqsStandIn.endpoint,
      });
    let local: LocalScheduler = await start(clock);
    local.ensureGroup('steps');
    local.start();
    let client = new SchedulerClient({ endpoint: local.endpoint, region, credentials });
    const time = wholeSecond(clock.now() + 2 * 60 * 60 * 1000);
    await client.send(new CreateScheduleCommand(oneTime('across-restart', 'steps', time, 'target')));
    client.destroy();
    await local.close();

    clock = new LocalClock('manual', clockFile); // the runtime's clock starts again where it was
    local = await start(clock);
    local.ensureGroup('steps');
    local.start();
    client = new SchedulerClient({ endpoint: local.endpoint, region, credentials });
    try {
      expect(await client.send(new GetScheduleCommand({ Name: 'across-restart', GroupName: 'steps' }))).toMatchObject({
        ScheduleExpression: at(time),
      });
      expect(local.busy(clock.now())).toBe(0);
      expect(local.later(clock.now())).toBe(1);
      // the move stops at the schedule's time and settles once it was delivered
      const settle = async () => {
        await waitFor(
          async () => local.busy(clock.now()),
          (busy) => busy === 0,
          10_000,
          5,
        );
        return { settled: true } as const;
      };
      const { stops } = await clock.moveTo(time + 60 * 60 * 1000, settle);
      expect(stops).toBe(2);
      expect((await takeAll(sqs, url)).map((m) => [m.Body, Number(m.Attributes!.SentTimestamp)])).toEqual([
        ['{"schedule":"across-restart"}', time],
      ]);
      await expect(
        client.send(new GetScheduleCommand({ Name: 'across-restart', GroupName: 'steps' })),
      ).rejects.toBeInstanceOf(ResourceNotFoundException);
      expect(local.delivered()).toBe(1);
    } finally {
      client.destroy();
      await local.close();
      sqs.destroy();
      await sqsStandIn.close();
    }
  });

  /** The stand-in and a local SQS (in memory, with a `target` queue) in a process of its own on the real clock, on `dir`. */
  async function startChild(
    dir: string,
  ): Promise<{ child: ChildProcess; scheduler: SchedulerClient; sqs: SQSClient; targetUrl: string }> {
    const path = (file: string) => JSON.stringify(join(__dirname, '..', '..', 'local', file));
    const script = `
      const { startLocalSqs } = require(${path('aws/sqs.ts')});
      const { startLocalScheduler } = require(${path('aws/scheduler.ts')});
      const { LocalClock } = require(${path('clock.ts')});
      const { SQSClient, CreateQueueCommand } = require('@aws-sdk/client-sqs');
      (async () => {
        const credentials = ${JSON.stringify(credentials)};
        const sqs = await startLocalSqs({ region: '${region}', credentials });
        await new SQSClient({ endpoint: sqs.endpoint, region: '${region}', credentials }).send(new CreateQueueCommand({ QueueName: 'target' }));
        const scheduler = await startLocalScheduler({ dir: process.env.SCHEDULER_DIR, region: '${region}', credentials, clock: new LocalClock('real'), sqsEndpoint: sqs.endpoint });
        scheduler.ensureGroup('steps');
        scheduler.start();
        console.log('READY ' + scheduler.endpoint + ' ' + sqs.endpoint);
      })();`;
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, SCHEDULER_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    const started = async () =>
      /^READY (\S+) (\S+)$/m.exec(output)?.slice(1) ?? (child.exitCode === null ? undefined : null);
    const endpoints = await waitFor(started, (found) => found !== undefined, 20_000, 20).catch(() => null);
    if (!endpoints) throw new Error(`the stand-in did not start:\n${output}`);
    return {
      child,
      scheduler: new SchedulerClient({ endpoint: endpoints[0], region, credentials }),
      sqs: new SQSClient({ endpoint: endpoints[1], region, credentials }),
      targetUrl: `${endpoints[1]}/${ACCOUNT}/target`,
    };
  }
  const kill = async (child: ChildProcess) => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  it('loses no schedule it confirmed to a SIGKILL, and fires one whose time passed while it was down', async () => {
    const dir = scratch();
    const first = await startChild(dir);
    // due in about 3 s: not before the kill, past by the time a new process has started and delivered
    const soon = wholeSecond(Date.now()) + 3000;
    const later = wholeSecond(Date.now() + DAY);
    await first.scheduler.send(new CreateScheduleCommand(oneTime('due-soon', 'steps', soon, 'target')));
    await first.scheduler.send(new CreateScheduleCommand(oneTime('due-tomorrow', 'steps', later, 'target')));
    await kill(first.child); // right after the answers: nothing they confirmed may be lost
    first.scheduler.destroy();
    first.sqs.destroy();

    const second = await startChild(dir);
    try {
      const delivered = await waitFor(
        () => takeAll(second.sqs, second.targetUrl, 5),
        (messages) => messages.length > 0,
        20_000,
        0,
      );
      expect(delivered.map((m) => m.Body)).toEqual(['{"schedule":"due-soon"}']);
      expect(Number(delivered[0].Attributes!.SentTimestamp)).toBeGreaterThanOrEqual(soon);
      const left = await second.scheduler.send(new ListSchedulesCommand({ GroupName: 'steps' }));
      expect(left.Schedules?.map((s) => s.Name)).toEqual(['due-tomorrow']);
    } finally {
      await kill(second.child);
      second.scheduler.destroy();
      second.sqs.destroy();
    }
  }, 60_000);
});
