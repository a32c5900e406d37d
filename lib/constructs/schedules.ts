/**
 * The service's one-time schedules on EventBridge Scheduler (shared/platform/aws/scheduler.ts: the
 * automations' waits past SQS's 15-minute delay):
 *
 * - one schedule group (`AWS::Scheduler::ScheduleGroup`, named by CloudFormation): every schedule of
 *   the service lives there, and the functions may create and delete schedules there only;
 * - the role Scheduler assumes to deliver them (trusted by scheduler.amazonaws.com for this account
 *   only, `aws:SourceAccount`): `sqs:SendMessage` on the target queue (`automation-steps`) and its
 *   dead-letter queue, nothing else. Scheduler sends a delivery that failed every retry (24 hours:
 *   the schedules' RetryPolicy) to the schedule's DLQ as this same execution role (the Scheduler
 *   guide's "Configuring a schedule's dead-letter queue"), so the DLQ is in the role's one statement;
 *   the queues are SSE-SQS (lib/constructs/queues.ts), so no KMS key is granted, unless one is set.
 *   The DLQ is the queue's own (`automation-steps-dlq`) with its alarm at the first message.
 * - for each function whose `needs.scheduler` is declared (`grant`, from the stack's `grantNeeds`):
 *   those actions on `schedule/<group>/*`, `iam:PassRole` on the role (passed to Scheduler only:
 *   `iam:PassedToService`) with `scheduler:CreateSchedule`, and the variables of
 *   shared/platform/aws/schedule-target.ts.
 *
 * Deleting the stack deletes the group and every schedule still pending in it, as it deletes the
 * queue they would deliver to.
 */
import { ArnFormat, type CfnElement, Names, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import type { SchedulerAction } from '../../functions/needs';
import { SCHEDULE_VARIABLES } from '../../shared/platform/aws/schedule-target';
import type { ApiFunction } from '../api-function';
import type { QueuePair } from './queues';

export const SCHEDULER_SERVICE = 'scheduler.amazonaws.com';

export interface SchedulesProps {
  /** the queue every schedule delivers to, and its DLQ, where failed deliveries go */
  target: QueuePair;
}

export class Schedules extends Construct {
  readonly group: scheduler.CfnScheduleGroup;
  /** the role Scheduler delivers as */
  readonly role: iam.Role;
  private readonly target: QueuePair;

  constructor(scope: Construct, id: string, props: SchedulesProps) {
    super(scope, id);
    this.target = props.target;
    this.group = new scheduler.CfnScheduleGroup(this, 'Group');
    this.role = new iam.Role(this, 'Role', {
      description:
        "EventBridge Scheduler delivers the service's one-time schedules to the automation-steps queue as this role",
      assumedBy: new iam.ServicePrincipal(SCHEDULER_SERVICE, {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    });
    const { queue, dlq } = props.target;
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn, dlq.queueArn] }),
    );
    for (const key of [queue.encryptionMasterKey, dlq.encryptionMasterKey])
      key?.grant(this.role, 'kms:GenerateDataKey', 'kms:Decrypt'); // a customer managed queue key, if one is ever set
  }

  /** `schedule/<group>/*`: every schedule of the group, named at run time. */
  get schedulesArn(): string {
    return Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.group.ref}/*`,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  }

  /** Allows `fn` exactly `actions` on the group's schedules (and passing the role, to create), and tells it where they go. */
  grant(fn: ApiFunction, actions: readonly SchedulerAction[]): void {
    if (actions.length === 0) return;
    fn.addEnvironment(SCHEDULE_VARIABLES.group, this.group.ref);
    fn.addEnvironment(SCHEDULE_VARIABLES.targetArn, this.target.queue.queueArn);
    fn.addEnvironment(SCHEDULE_VARIABLES.roleArn, this.role.roleArn);
    fn.addEnvironment(SCHEDULE_VARIABLES.dlqArn, this.target.dlq.queueArn);
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...actions].sort(), resources: [this.schedulesArn] }));
    if (actions.includes('scheduler:CreateSchedule'))
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [this.role.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': SCHEDULER_SERVICE } },
        }),
      );
    // cdk-nag names the group by its logical id in its own stack, by the parameter in a nested route stack
    const group = this.group as CfnElement;
    for (const name of [`<${Stack.of(group).getLogicalId(group)}>`, `<referenceto${Names.uniqueId(group)}Ref>`])
      Validations.of(fn).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:scheduler:${Stack.of(this).region}:<AWS::AccountId>:schedule/${name}/*]`,
        reason: "the service's schedules are named at run time (one per automation run's wait), all in its own group",
      });
  }
}
