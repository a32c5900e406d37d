/**
 * Automations through the official SDK (`automations.create/get/list/update/remove/duplicate/stop`):
 * the graph as stored (snake_case configs, typed connections, versions), status changes, and every
 * rule of a graph and of what its steps name, each refusal a 422 naming the place. (Runs are the
 * run engine's; this suite covers the definitions.)
 */
import { type AutomationConnection, type AutomationStep, Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl } from '../support/http';

let resend: Resend;
let templateId: string;
let draftTemplateId: string;
let bareTemplateId: string;
let segmentId: string;

const ok = <T>(answer: { data: T | null; error: unknown }): T => {
  expect(answer.error).toBeNull();
  return answer.data as T;
};

beforeAll(async () => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
  const template = ok(
    await resend.templates.create({
      name: 'Automation welcome',
      html: '<p>Hi {{{FIRST_NAME|there}}}, your plan is {{{PLAN|free}}}</p>',
      from: 'hello@example.com',
      subject: 'Welcome',
    }),
  );
  templateId = template.id;
  ok(await resend.templates.publish(templateId));
  draftTemplateId = ok(await resend.templates.create({ name: 'Never published', html: '<p>x</p>', subject: 'x' })).id;
  bareTemplateId = ok(await resend.templates.create({ name: 'No from or subject', html: '<p>x</p>' })).id;
  ok(await resend.templates.publish(bareTemplateId));
  segmentId = ok(await resend.segments.create({ name: 'Automated' })).id;
});

/** A graph with every step type: trigger -> delay -> send -> wait (event or timeout) -> condition -> update / segment. */
const fullGraph = (): { steps: AutomationStep[]; connections: AutomationConnection[] } => ({
  steps: [
    { key: 'start', type: 'trigger', config: { eventName: 'user.signed_up' } },
    { key: 'pause', type: 'delay', config: { duration: '1 day' } },
    {
      key: 'welcome',
      type: 'send_email',
      config: { template: { id: templateId, variables: { PLAN: { var: 'event.plan' } } } },
    },
    {
      key: 'wait',
      type: 'wait_for_event',
      config: {
        eventName: 'user.activated',
        timeout: '3 days',
        filterRule: { type: 'rule', field: 'event.source', operator: 'eq', value: 'web' },
      },
    },
    {
      key: 'paid',
      type: 'condition',
      config: {
        type: 'or',
        rules: [
          { type: 'rule', field: 'contact.plan', operator: 'eq', value: 'pro' },
          { type: 'rule', field: 'event.seats', operator: 'gte', value: 5 },
        ],
      },
    },
    { key: 'mark', type: 'contact_update', config: { properties: { plan: { var: 'event.plan' } } } },
    { key: 'nurture', type: 'add_to_segment', config: { segmentId } },
    { key: 'forget', type: 'contact_delete', config: {} },
  ],
  connections: [
    { from: 'start', to: 'pause' },
    { from: 'pause', to: 'welcome' },
    { from: 'welcome', to: 'wait' },
    { from: 'wait', to: 'paid', type: 'event_received' },
    { from: 'wait', to: 'forget', type: 'timeout' },
    { from: 'paid', to: 'mark', type: 'condition_met' },
    { from: 'paid', to: 'nurture', type: 'condition_not_met' },
  ],
});

describe('automations', () => {
  it('are created disabled, read back with their graph as stored, listed, and filtered by status', async () => {
    const { id } = ok(await resend.automations.create({ name: 'Onboarding', ...fullGraph() }));
    const automation = ok(await resend.automations.get(id)) as unknown as Record<string, any>;
    expect(automation).toMatchObject({
      object: 'automation',
      id,
      name: 'Onboarding',
      status: 'disabled',
      version: 1,
      created_at: expect.any(String),
      updated_at: null,
    });
    expect(automation.steps[0]).toEqual({ key: 'start', type: 'trigger', config: { event_name: 'user.signed_up' } });
    expect(automation.steps[3].config).toEqual({
      event_name: 'user.activated',
      timeout: '3 days',
      filter_rule: { type: 'rule', field: 'event.source', operator: 'eq', value: 'web' },
    });
    expect(automation.steps[6].config).toEqual({ segment_id: segmentId });
    expect(automation.connections[0]).toEqual({ from: 'start', to: 'pause', type: 'default' });
    expect(automation.connections[4]).toEqual({ from: 'wait', to: 'forget', type: 'timeout' });

    const listed = ok(await resend.automations.list({ limit: 100 }));
    expect(listed.data.find((a) => a.id === id)).toEqual({
      object: 'automation',
      id,
      name: 'Onboarding',
      status: 'disabled',
      created_at: automation.created_at,
      updated_at: null,
    });
    const enabled = ok(await resend.automations.list({ status: 'enabled', limit: 100 }));
    expect(enabled.data.map((a) => a.id)).not.toContain(id);
  });

  it('change by name, status and graph (a new version), stop, duplicate and delete', async () => {
    const { id } = ok(await resend.automations.create({ name: 'Lifecycle', status: 'enabled', ...fullGraph() }));
    expect(ok(await resend.automations.get(id)).status).toBe('enabled');

    expect(ok(await resend.automations.update(id, { name: 'Lifecycle v2' }))).toEqual({ object: 'automation', id });
    const renamed = ok(await resend.automations.get(id)) as unknown as Record<string, any>;
    expect(renamed).toMatchObject({ name: 'Lifecycle v2', version: 1, updated_at: expect.any(String) });

    const shorter: { steps: AutomationStep[]; connections: AutomationConnection[] } = {
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'resend:contact.created' } },
        { key: 'welcome', type: 'send_email', config: { template: { id: templateId }, subject: 'Hello' } },
      ],
      connections: [{ from: 'start', to: 'welcome' }],
    };
    ok(await resend.automations.update(id, shorter));
    const changed = ok(await resend.automations.get(id)) as unknown as Record<string, any>;
    expect(changed.version).toBe(2);
    expect(changed.steps.map((s: { key: string }) => s.key)).toEqual(['start', 'welcome']);
    expect(changed.steps[1].config).toMatchObject({ template: { id: templateId }, subject: 'Hello' });

    expect(ok(await resend.automations.stop(id))).toEqual({ object: 'automation', id, status: 'disabled' });
    expect(ok(await resend.automations.get(id)).status).toBe('disabled');
    expect(ok(await resend.automations.stop(id))).toEqual({ object: 'automation', id, status: 'disabled' });
    ok(await resend.automations.update(id, { status: 'enabled' }));
    expect(ok(await resend.automations.get(id)).status).toBe('enabled');

    const copy = ok(await resend.automations.duplicate(id));
    expect(copy.id).not.toBe(id);
    const duplicate = ok(await resend.automations.get(copy.id)) as unknown as Record<string, any>;
    expect(duplicate).toMatchObject({ name: 'Lifecycle v2 (copy)', status: 'disabled', version: 1 });
    expect(duplicate.steps).toEqual(changed.steps);
    expect(duplicate.connections).toEqual(changed.connections);

    expect(ok(await resend.automations.remove(id))).toEqual({ object: 'automation', id, deleted: true });
    expect((await resend.automations.get(id)).error).toMatchObject({ statusCode: 404 });
    expect((await resend.automations.remove(id)).error).toMatchObject({ statusCode: 404 });
    expect((await resend.automations.stop(id)).error).toMatchObject({ statusCode: 404 });
  });

  it('refuse an update that is empty, or that gives steps without connections', async () => {
    const { id } = ok(await resend.automations.create({ name: 'Partial', ...fullGraph() }));
    expect(await api.patch(`/automations/${id}`, {})).toMatchObject({ status: 422 });
    expect(await api.patch(`/automations/${id}`, { steps: [] })).toMatchObject({ status: 422 });
    const { steps } = fullGraph();
    expect((await resend.automations.update(id, { steps } as never)).error).toMatchObject({ statusCode: 422 });
    expect(ok(await resend.automations.get(id)).name).toBe('Partial');
  });
});

describe('a graph that breaks a rule is a 422 naming the place', () => {
  type Graph = ReturnType<typeof fullGraph>;
  const cases: [string, (g: Graph) => void, string, string][] = [
    ['no trigger', (g) => g.steps.splice(0, 1), 'steps', 'none'],
    [
      'a second trigger',
      (g) => g.steps.push({ key: 'again', type: 'trigger', config: { eventName: 'x' } } as never),
      'steps.8',
      'second',
    ],
    ['a step key twice', (g) => (g.steps[2].key = 'pause'), 'steps.2.key', 'twice'],
    ['a connection to no step', (g) => (g.connections[1].to = 'nowhere'), 'connections.1.to', 'nowhere'],
    [
      'a connection into the trigger',
      (g) => g.connections.push({ from: 'mark', to: 'start' }),
      'connections.7.to',
      'trigger',
    ],
    [
      'a type the step does not give',
      (g) => ((g.connections[0] as { type?: string }).type = 'timeout'),
      'connections.0.type',
      'default',
    ],
    ['a condition without its not-met branch', (g) => g.connections.splice(6, 1), 'steps.4', 'condition_not_met'],
    ['a wait with a timeout but no timeout branch', (g) => g.connections.splice(4, 1), 'steps.3', 'timeout'],
    ['a step nothing reaches', (g) => g.connections.splice(0, 1), 'steps.1', 'reached'],
    [
      'a cycle',
      (g) => {
        g.connections.push({ from: 'mark', to: 'pause' });
      },
      'connections.7',
      'cycle',
    ],
    [
      'a duration that is not one',
      (g) => ((g.steps[1].config as { duration: string }).duration = 'a while'),
      'steps.1.config.duration',
      'duration',
    ],
    [
      'a delay past 30 days',
      (g) => ((g.steps[1].config as { duration: string }).duration = '31 days'),
      'steps.1.config.duration',
      '30 days',
    ],
    [
      'an unknown system event',
      (g) => ((g.steps[0].config as { eventName: string }).eventName = 'resend:email.sent'),
      'steps.0.config.event_name',
      'system event',
    ],
    [
      'a rule with an operator the SDK does not have',
      (g) => ((g.steps[4].config as { rules: { operator: string }[] }).rules[0].operator = 'like'),
      'steps.4.config.rules.0.operator',
      'must be one of',
    ],
    [
      'a number comparison with a string',
      (g) => ((g.steps[4].config as { rules: { value: unknown }[] }).rules[1].value = 'five'),
      'steps.4.config.rules.1.value',
      'number',
    ],
    [
      'a field outside event.* and contact.*',
      (g) => ((g.steps[3].config as { filterRule: { field: string } }).filterRule.field = 'payload.x'),
      'steps.3.config.filter_rule.field',
      'event.',
    ],
  ];

  it.each(cases)('%s', async (_, breakIt, path, words) => {
    const graph = fullGraph();
    breakIt(graph);
    const answer = await api.post('/automations', {
      name: 'Broken',
      steps: graph.steps.map((s) => ({ key: s.key, type: s.type, config: snake(s.config) })),
      connections: graph.connections,
    });
    expect(answer.status).toBe(422);
    expect(answer.body.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ path, message: expect.stringContaining(words) })]),
    );
  });

  it.each([
    ['an unpublished template', () => ({ template: { id: draftTemplateId } }), 'template_not_published', 'template.id'],
    [
      'a template that does not exist',
      () => ({ template: { id: 'no-such-alias' } }),
      'unknown_template',
      'template.id',
    ],
    ['no from anywhere', () => ({ template: { id: bareTemplateId }, subject: 'Set here' }), 'missing_from', 'from'],
    [
      'no subject anywhere',
      () => ({ template: { id: bareTemplateId }, from: 'a@example.com' }),
      'missing_subject',
      'subject',
    ],
    [
      'a topic that does not exist',
      () => ({ template: { id: templateId }, topicId: '01a20280-902e-70b0-b281-d9d957510688' }),
      'unknown_topic',
      'topic_id',
    ],
  ])('a send_email step with %s', async (_, config, code, field) => {
    const answer = await resend.automations.create({
      name: 'Bad send',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'x.y' } },
        { key: 'send', type: 'send_email', config: config() as never },
      ],
      connections: [{ from: 'start', to: 'send' }],
    });
    expect(answer.error).toMatchObject({ statusCode: 422 });
    expect((answer.error as unknown as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ code, path: `steps.1.config.${field}` }),
    ]);
  });

  it('an add_to_segment step with a segment that does not exist', async () => {
    const answer = await resend.automations.create({
      name: 'Bad segment',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'x.y' } },
        { key: 'join', type: 'add_to_segment', config: { segmentId: '01a20280-902e-70b0-b281-d9d957510688' } },
      ],
      connections: [{ from: 'start', to: 'join' }],
    });
    expect((answer.error as unknown as { errors: unknown[] }).errors).toEqual([
      expect.objectContaining({ code: 'unknown_segment', path: 'steps.1.config.segment_id' }),
    ]);
  });
});

/** The wire form of an SDK config (what the SDK's own mapping sends): camelCase keys of the first level to snake_case. */
function snake(config: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );
}
