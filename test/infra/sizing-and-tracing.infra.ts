/**
 * Issue 32, findings 5, 6 and 9 on the synthesized templates: the table warmed for the send rate,
 * the SES events topic at a fixed name with an alarm when its events stop arriving, X-Ray tracing
 * on the send path when asked, a loud warning when no one receives the alarms, and the webhook
 * fan-out reading each stream shard in parallel batches.
 */
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { functionName, routes } from '../../functions/routes';
import { workerFunctionName, workers } from '../../functions/workers';
import { NO_ALARM_SUBSCRIBER } from '../../lib/constructs/monitoring';
import { WEBHOOK_FANOUT_PARALLELIZATION } from '../../lib/constructs/workers';
import { TRACED_WORKERS, tableWarmThroughput } from '../../lib/email-service-stack';
import { synthesized, synthesizedTuned, type Synthesized } from '../support/synth';

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId(construct.node.defaultChild as CfnElement);
const defaults = synthesized();
// the app with every context value the suites set: 500 emails a second, tracing, an alarm subscriber among them
let tuned: Synthesized;
beforeAll(() => {
  tuned = synthesizedTuned();
});

describe("the table's warm throughput (finding 5)", () => {
  const warmOf = (s: Synthesized) => s.resources[idOf(s.stack.table)].Properties.WarmThroughput;

  it("is left at on-demand's own 4,000 writes / 12,000 reads (no pre-warming, no charge) at the default 14 emails a second", () => {
    expect(warmOf(defaults)).toBeUndefined();
  });

  it('is what the send rate needs at 500 emails a second: 37 write units and 27 read units an email', () => {
    expect(warmOf(tuned)).toEqual({ WriteUnitsPerSecond: 18_500, ReadUnitsPerSecond: 13_500 });
  });

  it('follows tableWarmWriteUnits / tableWarmReadUnits, and sets nothing under the on-demand defaults', () => {
    const at = (context: Record<string, unknown>) => tableWarmThroughput(new App({ context }), 14);
    expect(at({ tableWarmWriteUnits: '20000' })).toEqual({ writeUnitsPerSecond: 20_000 });
    expect(at({ tableWarmWriteUnits: '8000', tableWarmReadUnits: '30000' })).toEqual({
      writeUnitsPerSecond: 8_000,
      readUnitsPerSecond: 30_000,
    });
    expect(at({ tableWarmWriteUnits: '3000' })).toBeUndefined();
    expect(() => at({ tableWarmWriteUnits: 'lots' })).toThrow(/tableWarmWriteUnits must be a whole number/);
  });
});

describe('the SES events topic (finding 6)', () => {
  it("keeps a name derived from the stack's, so a replaced topic comes back at the same ARN, which is an output", () => {
    const topicId = idOf(defaults.stack.sesEventsTopic);
    expect(defaults.resources[topicId].Properties.TopicName).toBe('EmailService-ses-events');
    defaults.template.hasOutput('SesEventsTopicArn', { Value: { Ref: topicId } });
  });

  it('alarms when emails were sent in 15 minutes and fewer SES events than emails arrived on the ses-events queue', () => {
    const alarm = defaults.template.findResources('AWS::CloudWatch::Alarm', {
      Properties: { AlarmDescription: Match.stringLikeRegexp('fewer SES events arrived than emails') },
    });
    const [properties] = Object.values(alarm).map((a) => a.Properties);
    expect(properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    const byId = Object.fromEntries(properties.Metrics.map((m: { Id: string }) => [m.Id, m]));
    expect(byId.sent.MetricStat).toMatchObject({
      Metric: { Namespace: 'EmailService', MetricName: 'Sent' },
      Period: 900,
      Stat: 'Sum',
    });
    expect(byId.events.MetricStat).toMatchObject({
      Metric: {
        Namespace: 'AWS/SQS',
        MetricName: 'NumberOfMessagesSent',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [idOf(defaults.stack.queues.get('ses-events')!.queue), 'QueueName'] },
          },
        ],
      },
      Period: 900,
    });
    const expression = properties.Metrics.find((m: { Expression?: string }) => m.Expression);
    expect(expression).toMatchObject({
      Expression: 'IF(FILL(sent, 0) > 0 AND FILL(events, 0) < 1 * FILL(sent, 0), 1, 0)',
      ReturnData: true,
    });
    expect(properties.AlarmActions).toEqual([{ Ref: idOf(defaults.stack.monitoring.alarmTopic) }]);
  });
});

describe('tracing, alarm subscribers and the webhook fan-out (finding 9)', () => {
  const tracingOf = (s: Synthesized, id: string) =>
    s.resources[idOf(s.stack.functions.get(id)!)].Properties.TracingConfig;
  const sendRoutes = ['POST /emails', 'POST /emails/batch', 'POST /emails/{email_id}/retry'];

  it('traces nothing by default', () => {
    for (const id of defaults.stack.functions.keys())
      expect({ id, tracing: tracingOf(defaults, id) }).toEqual({ id, tracing: undefined });
  });

  it('traces exactly the send path with tracing=true: the routes that enqueue sends, the senders, the due dispatcher, the status worker, the fan-out and its dispatcher', () => {
    const traced = [...tuned.stack.functions.keys()].filter((id) => tracingOf(tuned, id)?.Mode === 'Active').sort();
    const sendRouteIds = routes.filter((r) => sendRoutes.includes(`${r.method} ${r.path}`)).map((r) => functionName(r));
    expect(sendRouteIds).toHaveLength(sendRoutes.length);
    expect(traced).toEqual(
      expect.arrayContaining([...sendRouteIds, ...TRACED_WORKERS.map((name) => workerFunctionName(name))]),
    );
    // anything else traced enqueues to a send queue (a worker, or a route that sends as POST /emails: an inbox's reply)
    for (const id of traced.filter(
      (id) => !sendRouteIds.includes(id) && !TRACED_WORKERS.map((n) => workerFunctionName(n)).includes(id),
    )) {
      const needs =
        workers.find((w) => workerFunctionName(w.name) === id)?.needs ??
        routes.find((r) => functionName(r) === id)?.needs;
      expect({ id, queues: needs?.queues }).toEqual({
        id,
        queues: expect.arrayContaining([expect.stringMatching(/^send/)]),
      });
    }
    expect(traced.length).toBeLessThan(tuned.stack.functions.size / 3);
    const senderRole =
      tuned.resources[idOf(tuned.stack.functions.get(workerFunctionName('sender'))!)].Properties.Role['Fn::GetAtt'][0];
    const statements = Object.values(tuned.resources)
      .filter(
        (r) =>
          r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((role: { Ref: string }) => role.Ref === senderRole),
      )
      .flatMap((r) => r.Properties.PolicyDocument.Statement);
    // on `*` (X-Ray has no resource types), merged by CDK with the sender's other `*` action
    expect(statements).toContainEqual(
      expect.objectContaining({
        Action: expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']),
        Resource: '*',
      }),
    );
  });

  it('stays clean under cdk-nag with every option on, tracing among them', () => {
    const violations = new AwsSolutionsChecks(tuned.app).validateScope(tuned.app).violations;
    expect(
      violations.map((v) => `${v.ruleName}: ${v.violatingResources.map((c) => c.constructPath).join(', ')}`),
    ).toEqual([]);
  });

  it('warns at synth and deploy, loudly, when no one receives the alarms, and not when alarmEmail is given', () => {
    Annotations.fromStack(defaults.stack).hasWarning('*', Match.stringLikeRegexp(NO_ALARM_SUBSCRIBER.slice(0, 30)));
    Annotations.fromStack(tuned.stack).hasNoWarning('*', Match.stringLikeRegexp(NO_ALARM_SUBSCRIBER.slice(0, 30)));
  });

  it(`reads each stream shard in ${WEBHOOK_FANOUT_PARALLELIZATION} parallel batches for the webhook fan-out`, () => {
    const fanoutRole = idOf(defaults.stack.functions.get(workerFunctionName('webhook-fanout'))!);
    const [mapping] = Object.values(defaults.resources).filter(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.FunctionName.Ref === fanoutRole,
    );
    expect(mapping.Properties).toMatchObject({
      StartingPosition: 'TRIM_HORIZON',
      ParallelizationFactor: WEBHOOK_FANOUT_PARALLELIZATION,
    });
    expect(WEBHOOK_FANOUT_PARALLELIZATION).toBeGreaterThanOrEqual(2);
  });
});
