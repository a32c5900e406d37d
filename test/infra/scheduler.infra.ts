/**
 * The service's one-time schedules as deployed (lib/constructs/schedules.ts): the schedule group,
 * the role EventBridge Scheduler delivers as (trusted by Scheduler for this account only, allowed
 * one thing: sqs:SendMessage on the automation-steps queue and its DLQ), and what a function whose
 * `needs.scheduler` is declared gets: exactly those actions on the group's schedules, iam:PassRole on
 * that role alone (to Scheduler alone) with CreateSchedule, and the variables the calls read. Until a
 * worker declares `needs.scheduler`, functions of this file's own are made through the stack's own
 * `makeFunction` (its `grantNeeds`, the path every function takes), one in the stack and one in a
 * nested route stack, and cdk-nag runs over the whole app with them.
 */
import { type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { grantedActions, type Needs, workerMemoryMb } from '../../functions/needs';
import { AUTOMATION_STEPS_QUEUE } from '../../functions/workers';
import type { ApiFunction } from '../../lib/api-function';
import { buildApp } from '../../lib/email-service-stack';
import { declaredFunctions } from '../support/grants-check';
import { cdkJsonContext, type Resource } from '../support/synth';

const { app, stack } = buildApp({ bundle: false, context: cdkJsonContext });
const probe = (scope: Stack, id: string, scheduler: Needs['scheduler']) =>
  stack.makeFunction(scope, id, {
    handler: 'workers/suppression-writer', // any handler module: the grants are the point
    needs: { scheduler },
    memoryMb: workerMemoryMb({}),
  });
const nested = stack.node.findAll().find((c): c is NestedStack => NestedStack.isNestedStack(c))!;
const both = probe(stack, 'SchedulerProbe', ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']);
const deleteOnly = probe(stack, 'SchedulerDeleteProbe', ['scheduler:DeleteSchedule']);
const inNested = probe(nested, 'SchedulerNestedProbe', ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule']);
const probes = new Set(['SchedulerProbe', 'SchedulerDeleteProbe', 'SchedulerNestedProbe']);

const templates = new Map<Stack, Record<string, Resource>>();
const resourcesOf = (owner: Stack) => {
  if (!templates.has(owner)) templates.set(owner, Template.fromStack(owner).toJSON().Resources);
  return templates.get(owner)!;
};
const resources = resourcesOf(stack);
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId(construct.node.defaultChild as CfnElement);
const groupId = stack.getLogicalId(stack.schedules.group);
const roleId = idOf(stack.schedules.role);
const { queue, dlq } = stack.queues.get(AUTOMATION_STEPS_QUEUE)!;
const arnOf = (construct: { node: { defaultChild?: unknown } }) => ({ 'Fn::GetAtt': [idOf(construct), 'Arn'] });

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };
/** Every statement of the policies attached to a role in `owner`'s template. */
const roleStatements = (owner: Stack, role: string): Statement[] =>
  Object.values(resourcesOf(owner))
    .filter((r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: any) => ref.Ref === role))
    .flatMap((r) => r.Properties.PolicyDocument.Statement);
/** A function's statements that are about schedules: scheduler:* and iam:PassRole. */
const scheduleStatements = (fn: ApiFunction): Statement[] => {
  const owner = Stack.of(fn);
  const fnRole = resourcesOf(owner)[idOf(fn)].Properties.Role['Fn::GetAtt'][0];
  return roleStatements(owner, fnRole).filter((s) =>
    [s.Action].flat().some((a) => a.startsWith('scheduler:') || a === 'iam:PassRole'),
  );
};
const schedulesArn = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':scheduler:ap-southeast-2:',
      { Ref: 'AWS::AccountId' },
      ':schedule/',
      { Ref: groupId },
      '/*',
    ],
  ],
};
const passRole = {
  Action: 'iam:PassRole',
  Effect: 'Allow',
  Resource: { 'Fn::GetAtt': [roleId, 'Arn'] },
  Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
};

describe('the schedules of the stack', () => {
  it('has one schedule group', () => {
    expect(Object.values(resources).filter((r) => r.Type === 'AWS::Scheduler::ScheduleGroup')).toHaveLength(1);
    expect(resources[groupId].Type).toBe('AWS::Scheduler::ScheduleGroup');
  });

  it('has a role only EventBridge Scheduler of this account may assume', () => {
    const role = resources[roleId];
    expect(role.Type).toBe('AWS::IAM::Role');
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      },
    ]);
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect(role.Properties.Policies).toBeUndefined();
  });

  it('allows the role one thing: sqs:SendMessage on the automation-steps queue, and its DLQ for the deliveries that failed', () => {
    const statements = roleStatements(stack, roleId);
    expect(statements).toEqual([{ Action: 'sqs:SendMessage', Effect: 'Allow', Resource: expect.any(Array) }]);
    expect(statements[0].Resource).toHaveLength(2);
    expect(statements[0].Resource).toEqual(expect.arrayContaining([arnOf(queue), arnOf(dlq)]));
    // the DLQ is the queue's own, with the alarm every DLQ has
    expect(resources[idOf(queue)].Properties.RedrivePolicy.deadLetterTargetArn).toEqual(arnOf(dlq));
    // SSE-SQS: no customer key the role would need
    for (const q of [queue, dlq]) expect(resources[idOf(q)].Properties).toMatchObject({ SqsManagedSseEnabled: true });
  });

  it('grants a function with scheduler needs exactly its actions on the group’s schedules, and PassRole on that role only', () => {
    expect(scheduleStatements(both)).toEqual([
      {
        Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
        Effect: 'Allow',
        Resource: schedulesArn,
      },
      passRole,
    ]);
    expect(scheduleStatements(deleteOnly)).toEqual([
      { Action: 'scheduler:DeleteSchedule', Effect: 'Allow', Resource: schedulesArn },
    ]);
    // in a nested route stack the same, through its parameters
    expect(scheduleStatements(inNested).map((s) => [[s.Action].flat(), s.Condition ?? null])).toEqual([
      [['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'], null],
      [['iam:PassRole'], passRole.Condition],
    ]);
  });

  it('tells such a function the group, the target queue, the role and the DLQ', () => {
    expect(resources[idOf(both)].Properties.Environment.Variables).toMatchObject({
      SCHEDULE_GROUP_NAME: { Ref: groupId },
      SCHEDULE_TARGET_ARN: arnOf(queue),
      SCHEDULE_ROLE_ARN: { 'Fn::GetAtt': [roleId, 'Arn'] },
      SCHEDULE_DLQ_ARN: arnOf(dlq),
    });
    expect(resources[idOf(both)].Properties.Environment.Variables.AWS_ENDPOINT_URL_SCHEDULER).toBeUndefined();
  });

  it('grants schedules and PassRole to no function whose needs do not declare them', () => {
    const declared = declaredFunctions();
    for (const [id, fn] of stack.functions) {
      if (probes.has(id)) continue;
      const granted = grantedActions(declared.get(id)?.needs ?? {});
      const actions = scheduleStatements(fn).flatMap((s) => [s.Action].flat());
      const expected = [
        ...(granted.includes('scheduler:CreateSchedule:group') ? ['scheduler:CreateSchedule', 'iam:PassRole'] : []),
        ...(granted.includes('scheduler:DeleteSchedule:group') ? ['scheduler:DeleteSchedule'] : []),
      ];
      expect([id, actions.sort()]).toEqual([id, expected.sort()]);
    }
  });

  it('passes the AwsSolutions checks with these functions in the stack and in a nested stack', () => {
    const violations = new AwsSolutionsChecks(app).validateScope(app).violations;
    expect(
      violations.map(
        (v) => `${v.ruleName}: ${v.description} (${v.violatingResources.map((c) => c.constructPath).join(', ')})`,
      ),
    ).toEqual([]);
  });
});
