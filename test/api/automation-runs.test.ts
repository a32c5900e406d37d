/**
 * Automations run, end to end, on a runtime of their own with a manual clock (the official SDK for
 * every call it has: `events.send`, `automations.*`, `automations.runs.*`):
 * - a run's full life: a custom event starts it, a 1-day delay waits for the clock (an EventBridge
 *   Scheduler schedule locally), a template goes out with `{var}` values rendered, a wait with a
 *   filter ignores an event that does not match and takes one that does (or times out), a
 *   condition goes both ways, and contact_update / add_to_segment show on the contact;
 * - an unsubscribed contact's send step is `skipped`; `stop` lets a run in flight finish, an edit
 *   does not change a running run's graph, a delete cancels it;
 * - a system trigger (`resend:email.delivered`) starts a run on a real delivery;
 * - an event or a step delivered again starts no second run and sends nothing twice;
 * - the metrics count what happened.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetQueueUrlCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type AutomationConnection, type AutomationStep, Resend } from 'resend';
import { runtimeCredentials } from '../support/stand-ins';
import { TEST_API_KEY } from '../support/constants';
import { baseUrl } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';

const runtime = useOwnRuntime(
  {
    LOCAL_CLOCK: 'manual',
    LOCAL_SES_VERIFY_DELAY_MS: '0',
    LOCAL_SCHEDULE_INTERVAL_SECONDS: '1',
    API_RATE_LIMIT_PER_SECOND: '1000',
  },
  { forFile: true },
);
const { call } = runtime;

let resend: Resend;
let domain: string;
let templateId: string;
let segmentId: string;
let counter = 0;
const unique = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`;

const ok = <T>(answer: { data: T | null; error: unknown }): T => {
  expect(answer.error).toBeNull();
  return answer.data as T;
};

beforeAll(async () => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
  domain = `runs-${Date.now().toString(36)}.example.com`;
  const created = await call('POST', '/domains', { name: domain });
  expect(created.status).toBe(201);
  expect(await call('POST', `/domains/${created.body.id}/verify`)).toMatchObject({ body: { status: 'verified' } });
  templateId = ok(
    await resend.templates.create({
      name: 'Run welcome',
      html: '<p>Hi {{{FIRST_NAME|there}}}, your plan is {{{PLAN|free}}}</p>',
      from: `hello@${domain}`,
      subject: 'Welcome',
    }),
  ).id;
  ok(await resend.templates.publish(templateId));
  segmentId = ok(await resend.segments.create({ name: 'Nurture' })).id;
}, 60_000);

/** trigger -> 1-day delay -> welcome -> wait (2 days, source=web) -> condition (seats >= 5) -> rename | nurture; timeout -> nurture */
function onboarding(
  signup: string,
  activated: string,
): { steps: AutomationStep[]; connections: AutomationConnection[] } {
  return {
    steps: [
      { key: 'start', type: 'trigger', config: { eventName: signup } },
      { key: 'pause', type: 'delay', config: { duration: '1 day' } },
      {
        key: 'welcome',
        type: 'send_email',
        config: {
          template: {
            id: templateId,
            variables: { PLAN: { var: 'event.plan' }, FIRST_NAME: { var: 'contact.first_name' } },
          },
        },
      },
      {
        key: 'wait',
        type: 'wait_for_event',
        config: {
          eventName: activated,
          timeout: '2 days',
          filterRule: { type: 'rule', field: 'event.source', operator: 'eq', value: 'web' },
        },
      },
      { key: 'big', type: 'condition', config: { type: 'rule', field: 'event.seats', operator: 'gte', value: 5 } },
      { key: 'rename', type: 'contact_update', config: { firstName: { var: 'event.name' } } as never },
      { key: 'nurture', type: 'add_to_segment', config: { segmentId } },
    ],
    connections: [
      { from: 'start', to: 'pause' },
      { from: 'pause', to: 'welcome' },
      { from: 'welcome', to: 'wait' },
      { from: 'wait', to: 'big', type: 'event_received' },
      { from: 'wait', to: 'nurture', type: 'timeout' },
      { from: 'big', to: 'rename', type: 'condition_met' },
      { from: 'big', to: 'nurture', type: 'condition_not_met' },
    ],
  };
}

async function newContact(firstName = 'Ada', extra: Record<string, unknown> = {}): Promise<string> {
  const email = `${unique('person')}@example.net`;
  expect((await call('POST', '/contacts', { email, first_name: firstName, ...extra })).status).toBe(201);
  return email;
}

async function enabled(name: string, graph: ReturnType<typeof onboarding>): Promise<string> {
  return ok(await resend.automations.create({ name, status: 'enabled', ...graph })).id;
}

/** The automation's only run, whole. */
async function onlyRun(automationId: string): Promise<Record<string, any>> {
  const runs = ok(await resend.automations.runs.list({ automationId }));
  expect(runs.data).toHaveLength(1);
  return ok(await resend.automations.runs.get({ automationId, runId: runs.data[0].id })) as Record<string, any>;
}

const stepsOf = (run: Record<string, any>) =>
  Object.fromEntries((run.steps as { key: string; status: string }[]).map((s) => [s.key, s.status]));

async function send(event: string, email: string, payload: Record<string, unknown>) {
  ok(await resend.events.send({ event, email, payload } as never));
  await runtime.drain();
}

describe('a run', () => {
  it('goes trigger -> 1-day delay -> templated send -> filtered wait -> condition met -> contact_update', async () => {
    const signup = unique('signup');
    const activated = unique('activated');
    const automationId = await enabled('Onboarding', onboarding(signup, activated));
    const email = await newContact('Ada');

    await send(signup, email, { plan: 'pro' });
    let run = await onlyRun(automationId);
    expect(run).toMatchObject({ object: 'automation_run', status: 'running', version: 1, email });
    expect(stepsOf(run)).toEqual({ start: 'completed', pause: 'waiting' });

    await runtime.move({ advance: '23 hours' });
    expect(stepsOf(await onlyRun(automationId))).toEqual({ start: 'completed', pause: 'waiting' });
    await runtime.move({ advance: '1 hour 1 minute' });
    run = await onlyRun(automationId);
    expect(stepsOf(run)).toEqual({ start: 'completed', pause: 'completed', welcome: 'completed', wait: 'waiting' });
    const emailId = run.steps.find((s: { key: string }) => s.key === 'welcome').output.email_id;
    const sent = await call('GET', `/emails/${emailId}`);
    expect(sent.body).toMatchObject({ to: [email], subject: 'Welcome', from: `hello@${domain}` });
    expect(sent.body.html).toContain('Hi Ada, your plan is pro');

    await send(activated, email, { source: 'app', seats: 9, name: 'Not me' }); // the filter says web
    expect(stepsOf(await onlyRun(automationId)).wait).toBe('waiting');
    await send(activated, email, { source: 'web', seats: 9, name: 'Ada Lovelace' });
    run = await onlyRun(automationId);
    expect(run.status).toBe('completed');
    expect(stepsOf(run)).toEqual({
      start: 'completed',
      pause: 'completed',
      welcome: 'completed',
      wait: 'completed',
      big: 'completed',
      rename: 'completed',
    });
    expect(run.steps.find((s: { key: string }) => s.key === 'big').output).toEqual({ met: true });
    expect((await call('GET', `/contacts/${email}`)).body.first_name).toBe('Ada Lovelace');

    // the 2-day timeout passing changes nothing: the event won
    await runtime.move({ advance: '3 days' });
    expect((await onlyRun(automationId)).status).toBe('completed');
    const metrics = await call('GET', `/automations/${automationId}/metrics`);
    expect(metrics.body).toMatchObject({
      runs: { started: 1, running: 0, completed: 1, failed: 0, cancelled: 0 },
      emails_sent: 1,
    });
    expect(metrics.body.steps).toEqual(
      expect.arrayContaining([{ key: 'pause', waiting: 1, completed: 1, skipped: 0, failed: 0 }]),
    );
  }, 120_000);

  it('takes the timeout branch when no matching event comes, and the not-met branch when the event says so', async () => {
    const signup = unique('signup');
    const activated = unique('activated');
    const automationId = await enabled('Onboarding', onboarding(signup, activated));
    const quiet = await newContact('Quinn');
    const small = await newContact('Sam');
    await send(signup, quiet, { plan: 'free' });
    await send(signup, small, { plan: 'free' });
    await runtime.move({ advance: '1 day 1 minute' });
    await send(activated, small, { source: 'web', seats: 1 });
    await runtime.move({ advance: '2 days 1 minute' });

    const runs = ok(await resend.automations.runs.list({ automationId })).data;
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    for (const email of [quiet, small]) {
      const contact = await call('GET', `/contacts/${email}`);
      expect(contact.body.segment_ids).toEqual([segmentId]);
    }
    const byContact = await Promise.all(
      runs.map((r) => resend.automations.runs.get({ automationId, runId: r.id }).then((a) => a.data as any)),
    );
    const quietRun = byContact.find((r) => r.email === quiet);
    const smallRun = byContact.find((r) => r.email === small);
    expect(stepsOf(quietRun)).toMatchObject({ wait: 'completed', nurture: 'completed' });
    expect(quietRun.steps.find((s: { key: string }) => s.key === 'wait').output).toEqual({ timed_out: true });
    expect(stepsOf(smallRun)).toMatchObject({ wait: 'completed', big: 'completed', nurture: 'completed' });
    expect(smallRun.steps.find((s: { key: string }) => s.key === 'big').output).toEqual({ met: false });
    expect(ok(await resend.automations.runs.list({ automationId, status: ['running', 'failed'] })).data).toEqual([]);
  }, 120_000);

  it("skips an unsubscribed contact's send, and the run goes on", async () => {
    const signup = unique('signup');
    const activated = unique('activated');
    const automationId = await enabled('Onboarding', onboarding(signup, activated));
    const email = await newContact('Una', { unsubscribed: true });
    await send(signup, email, { plan: 'pro' });
    await runtime.move({ advance: '1 day 1 minute' });
    const run = await onlyRun(automationId);
    expect(stepsOf(run)).toMatchObject({ welcome: 'skipped', wait: 'waiting' });
    expect(run.steps.find((s: { key: string }) => s.key === 'welcome').output).toEqual({ reason: 'unsubscribed' });
    expect((await call('GET', `/automations/${automationId}/metrics`)).body.emails_sent).toBe(0);
  }, 120_000);
});

describe('changing an automation', () => {
  it('stop lets a run in flight finish and starts no new one; an edit leaves a running run on its version', async () => {
    const signup = unique('signup');
    const automationId = await enabled('Short', {
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: signup } },
        { key: 'pause', type: 'delay', config: { duration: '2 hours' } },
        { key: 'nurture', type: 'add_to_segment', config: { segmentId } },
      ],
      connections: [
        { from: 'start', to: 'pause' },
        { from: 'pause', to: 'nurture' },
      ],
    });
    const first = await newContact('Fay');
    await send(signup, first, {});
    // a new version whose delay leads nowhere: the running run keeps version 1
    ok(
      await resend.automations.update(automationId, {
        steps: [
          { key: 'start', type: 'trigger', config: { eventName: signup } },
          { key: 'pause', type: 'delay', config: { duration: '2 hours' } },
        ],
        connections: [{ from: 'start', to: 'pause' }],
      }),
    );
    ok(await resend.automations.stop(automationId));
    await send(signup, await newContact('Gil'), {}); // stopped: no run
    await runtime.move({ advance: '2 hours 1 minute' });

    const run = await onlyRun(automationId);
    expect(run).toMatchObject({ status: 'completed', version: 1, email: first });
    expect(stepsOf(run)).toEqual({ start: 'completed', pause: 'completed', nurture: 'completed' });
    expect((await call('GET', `/contacts/${first}`)).body.segment_ids).toContain(segmentId);
    expect(ok(await resend.automations.runs.list({ automationId, status: 'completed' })).data).toHaveLength(1);
    expect(await call('GET', `/automations/${automationId}/runs?status=completed,bogus`)).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'status' }] },
    });
    const missingRun = await resend.automations.runs.get({ automationId, runId: run.event.id });
    expect(missingRun.error).toMatchObject({ statusCode: 404 });
  }, 120_000);

  it('a delete cancels a run in flight at its next step', async () => {
    const signup = unique('signup');
    const automationId = await enabled('Doomed', {
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: signup } },
        { key: 'pause', type: 'delay', config: { duration: '10 minutes' } },
        { key: 'nurture', type: 'add_to_segment', config: { segmentId } },
      ],
      connections: [
        { from: 'start', to: 'pause' },
        { from: 'pause', to: 'nurture' },
      ],
    });
    const email = await newContact('Dee');
    await send(signup, email, {});
    const runId = ok(await resend.automations.runs.list({ automationId })).data[0].id;
    ok(await resend.automations.remove(automationId));
    await runtime.move({ advance: '11 minutes' }); // an SQS delay (at most 15 minutes), not a schedule
    expect((await call('GET', `/contacts/${email}`)).body.segment_ids).toEqual([]);
    // the automation is gone, and its runs with it from the API
    expect((await call('GET', `/automations/${automationId}/runs/${runId}`)).status).toBe(404);
  }, 120_000);
});

describe('system triggers', () => {
  it('resend:email.delivered starts a run for the contact the email was delivered to', async () => {
    const automationId = await enabled('On delivery', {
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'resend:email.delivered' } },
        { key: 'nurture', type: 'add_to_segment', config: { segmentId } },
      ],
      connections: [{ from: 'start', to: 'nurture' }],
    });
    const email = await newContact('Del');
    const sent = await call('POST', '/emails', { from: `hello@${domain}`, to: email, subject: 'Hi', text: 'hello' });
    expect(sent.status).toBe(200);
    await runtime.drain();
    await runtime.move({ advance: '1 minute' }); // past the local SES's delivery event
    const run = await onlyRun(automationId);
    expect(run).toMatchObject({ status: 'completed', email, event: { name: 'resend:email.delivered' } });
    expect((await call('GET', `/contacts/${email}`)).body.segment_ids).toContain(segmentId);
    ok(await resend.automations.stop(automationId));
  }, 120_000);
});

describe('test mode', () => {
  it("runs a test key's automation in its sandbox: the send is simulated there, contact_delete deletes the sandbox's contact", async () => {
    const created = await call('POST', '/api-keys', { name: 'automations', mode: 'test' });
    expect(created.status).toBe(201);
    const key = created.body.token as string;
    const sandbox = new Resend(key, { baseUrl: baseUrl() });
    const sandboxDomain = `sandbox-${Date.now().toString(36)}.example.com`;
    expect((await call('POST', '/domains', { name: sandboxDomain }, key)).status).toBe(201);
    const template = ok(
      await sandbox.templates.create({
        name: 'Sandboxed',
        html: '<p>Test {{{PLAN}}}</p>',
        from: `t@${sandboxDomain}`,
        subject: 'T',
      }),
    ).id;
    ok(await sandbox.templates.publish(template));
    const signup = unique('signup');
    const automationId = ok(
      await sandbox.automations.create({
        name: 'Sandboxed',
        status: 'enabled',
        steps: [
          { key: 'start', type: 'trigger', config: { eventName: signup } },
          { key: 'pause', type: 'delay', config: { duration: '10 minutes' } },
          {
            key: 'hello',
            type: 'send_email',
            config: { template: { id: template, variables: { PLAN: { var: 'event.plan' } } } },
          },
          { key: 'forget', type: 'contact_delete', config: {} },
        ],
        connections: [
          { from: 'start', to: 'pause' },
          { from: 'pause', to: 'hello' },
          { from: 'hello', to: 'forget' },
        ],
      }),
    ).id;
    const email = `${unique('tester')}@example.net`;
    ok(await sandbox.events.send({ event: signup, email, payload: { plan: 'team' } } as never));
    await runtime.drain();
    await runtime.move({ advance: '11 minutes' });

    const runs = ok(await sandbox.automations.runs.list({ automationId })).data;
    expect(runs.map((r) => r.status)).toEqual(['completed']);
    const run = ok(await sandbox.automations.runs.get({ automationId, runId: runs[0].id })) as Record<string, any>;
    expect(stepsOf(run)).toEqual({ start: 'completed', pause: 'completed', hello: 'completed', forget: 'completed' });
    const emailId = run.steps.find((s: { key: string }) => s.key === 'hello').output.email_id;
    const sent = await call('GET', `/emails/${emailId}`, undefined, key);
    expect(sent.body).toMatchObject({ to: [email], subject: 'T' });
    expect(sent.body.html).toContain('Test team');
    expect((await call('GET', `/emails/${emailId}`)).status).toBe(404); // not the live project's
    expect((await call('GET', `/automations/${automationId}`)).status).toBe(404);
    expect((await call('GET', `/contacts/${email}`, undefined, key)).status).toBe(404); // deleted by the run
  }, 120_000);
});

describe('redelivery', () => {
  /** Sends `body` to one of the runtime's queues, as SQS delivering a message again would. */
  async function deliverAgain(queue: string, body: unknown): Promise<void> {
    const { sqsEndpoint } = JSON.parse(readFileSync(join(runtime.dataDir, 'runtime.json'), 'utf8'));
    const sqs = new SQSClient({
      endpoint: sqsEndpoint,
      region: 'ap-southeast-2',
      credentials: runtimeCredentials(runtime.dataDir),
    });
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queue }));
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify(body) }));
    sqs.destroy();
  }

  it('an event delivered again starts no second run, and a send step delivered again sends nothing twice', async () => {
    const signup = unique('signup');
    const automationId = await enabled('Once', {
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: signup } },
        { key: 'hello', type: 'send_email', config: { template: { id: templateId } } },
      ],
      connections: [{ from: 'start', to: 'hello' }],
    });
    const email = await newContact('Ona');
    const sent = await resend.events.send({ event: signup, email, payload: { plan: 'pro' } } as never);
    await runtime.drain();
    const run = await onlyRun(automationId);
    expect(stepsOf(run)).toEqual({ start: 'completed', hello: 'completed' });

    // the matcher's message and the send step's message, each delivered twice more
    // as the outbox forwarded it: the platform event `custom_event.sent` of this send
    const sentId = (sent.data as unknown as { id: string }).id;
    const logged = ((await call('GET', '/events')).body.data as Record<string, any>[]).find(
      (e) => e.type === 'custom_event.sent' && e.data.object.id === sentId,
    )!;
    const event = {
      project_id: (await call('GET', '/project')).body.id,
      livemode: true,
      id: logged.id,
      name: signup,
      created_at: logged.created_at,
      contact_id: run.contact_id,
      payload: { plan: 'pro' },
    };
    expect(run.event.id).toBe(event.id);
    const step = { project_id: event.project_id, automation_id: automationId, run_id: run.id, step: 'hello' };
    for (let i = 0; i < 2; i++) {
      await deliverAgain('automation-events', event);
      await deliverAgain('automation-steps', step);
    }
    await runtime.drain();

    expect(await onlyRun(automationId)).toEqual(run);
    const emails = (await call('GET', '/emails?limit=100')).body.data as { to: string[] }[];
    expect(emails.filter((e) => e.to.includes(email))).toHaveLength(1);
    expect((await call('GET', `/automations/${automationId}/metrics`)).body).toMatchObject({
      runs: { started: 1, completed: 1 },
      emails_sent: 1,
    });
  }, 120_000);
});
