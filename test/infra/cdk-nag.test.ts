/**
 * cdk-nag's AwsSolutions checks on the synthesized stack (and its nested route stacks): zero
 * findings that are not acknowledged, each acknowledgement with its one-line reason in
 * lib/email-service-stack.ts. Plus what the checks do not cover: an alarm on every DLQ and on
 * the SES feedback queues' backlog.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { queues, sesEventSubscriptions } from '../../functions/workers';
import { buildApp } from '../../lib/email-service-stack';

const context = JSON.parse(fs.readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8')).context;

interface Violation {
  ruleName: string;
  description: string;
  violatingConstructs: { constructPath: string }[];
}

it('passes the AwsSolutions checks with every finding acknowledged', () => {
  const { app } = buildApp({ bundle: false, context });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let violations: Violation[] = [];
  try {
    app.synth();
  } catch (error) {
    const report = /found in: (\S+)/.exec(String(error))?.[1];
    if (!report) throw error;
    violations = JSON.parse(fs.readFileSync(report, 'utf8')).pluginReports.flatMap((r: { violations: Violation[] }) => r.violations);
  }
  // on failure, the list says which rule and where
  expect(violations.map((v) => `${v.ruleName}: ${v.description} (${v.violatingConstructs.map((c) => c.constructPath).join(', ')})`)).toEqual([]);
});

describe('alarms', () => {
  const { stack } = buildApp({ bundle: false, context });
  const alarms = Object.values(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm')) as { Properties: Record<string, any> }[];
  const queueOf = (alarm: { Properties: Record<string, any> }) => alarm.Properties.Dimensions?.[0]?.Value?.['Fn::GetAtt']?.[0];
  const idOf = (name: string, which: 'queue' | 'dlq') => stack.getLogicalId(stack.queues.get(name)![which].node.defaultChild as never);

  it('alarm as soon as a message lands in any DLQ', () => {
    for (const { name } of queues) {
      const alarm = alarms.find((a) => queueOf(a) === idOf(name, 'dlq'));
      expect(alarm?.Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it('alarm when SES feedback waits in its queues', () => {
    for (const { queue } of sesEventSubscriptions) {
      const alarm = alarms.find((a) => queueOf(a) === idOf(queue, 'queue'));
      expect(alarm?.Properties).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 300 });
    }
  });
});
