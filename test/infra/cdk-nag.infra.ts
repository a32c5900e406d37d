/**
 * cdk-nag's AwsSolutions checks on the synthesized stack (and its nested route stacks): zero
 * findings that are not acknowledged, each acknowledgement with its one-line reason in
 * lib/email-service-stack.ts. Plus what the checks do not cover: an alarm on every DLQ and on
 * the SES feedback queues' backlog.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { queues, sesEventSubscriptions } from '../../functions/workers';
import { synthesized } from '../support/synth';

// One synth for both: the checks walk the synthesized construct tree, exactly what they do as a
// validation plugin of `cdk synth` (cdk-nag's validateScope), and report the same findings.
const { app, stack, template } = synthesized();

it('passes the AwsSolutions checks with every finding acknowledged', () => {
  const violations = new AwsSolutionsChecks(app).validateScope(app).violations.map((v) => ({
    ruleName: v.ruleName,
    description: v.description,
    violatingConstructs: v.violatingResources,
  }));
  // on failure, the list says which rule and where
  expect(
    violations.map(
      (v) => `${v.ruleName}: ${v.description} (${v.violatingConstructs.map((c) => c.constructPath).join(', ')})`,
    ),
  ).toEqual([]);
});

describe('alarms', () => {
  const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as {
    Properties: Record<string, any>;
  }[];
  const queueOf = (alarm: { Properties: Record<string, any> }) =>
    alarm.Properties.Dimensions?.[0]?.Value?.['Fn::GetAtt']?.[0];
  const idOf = (name: string, which: 'queue' | 'dlq') =>
    stack.getLogicalId(stack.queues.get(name)![which].node.defaultChild as never);

  it('alarm as soon as a message lands in any DLQ', () => {
    for (const { name } of queues) {
      const alarm = alarms.find((a) => queueOf(a) === idOf(name, 'dlq'));
      expect(alarm?.Properties).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    }
  });

  it('alarm when SES feedback waits in its queues', () => {
    for (const { queue } of sesEventSubscriptions) {
      const alarm = alarms.find((a) => queueOf(a) === idOf(queue, 'queue'));
      expect(alarm?.Properties).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 300 });
    }
  });
});
