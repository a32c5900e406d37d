/**
 * Inbound mail on AWS: SES classic email receiving (a receipt rule set), which SES offers in some
 * regions only (https://docs.aws.amazon.com/general/latest/gr/ses.html, "Email receiving
 * endpoints"): lib/region.ts keeps the list and refuses to deploy the stack elsewhere. Mail Manager
 * is not needed.
 *
 *   MX inbound-smtp.<region>.amazonaws.com -> SES -> receipt rule (spam and virus scan)
 *     -> S3 action: the raw message into the inbound bucket (`raw/<SES message id>`), then a
 *        `Received` notification -> inbound topic (KMS) -> inbound queue (DLQ, alarm) -> inbound worker
 *
 * The rule has no recipient list, so it matches every verified domain of the account; the worker
 * decides which mail a project receives (a domain of that project with receiving enabled) and
 * drops the rest. The bucket is encrypted (SSE-S3), private, TLS-only, and expires every object
 * after `inboundRetentionDays` (CDK context, default 30); records expire with them.
 *
 * SES has one active receipt rule set per account and region, and CloudFormation cannot activate
 * one, so activating this one replaces whatever set is active (another team's, maybe: `npm run
 * preflight` says). It is therefore opt-in: `cdk deploy -c activateReceiptRuleSet=true` activates it
 * (a custom resource calling SetActiveReceiptRuleSet, which deactivates it again when the stack is
 * deleted, as an active set cannot be); without the flag it is a step after the deploy (docs/deploying.md):
 * `aws ses set-active-receipt-rule-set --rule-set-name <ReceiptRuleSetName>`.
 */
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cr from 'aws-cdk-lib/custom-resources';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sesActions from 'aws-cdk-lib/aws-ses-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOUND_RAW_PREFIX } from '../functions/workers';
import { BUCKET_ACTIONS, mayListBucket } from '../functions/needs';
import type { ApiFunction } from './api-function';
import { daysFromContext, flagFromContext } from './context';
export const DEFAULT_RETENTION_DAYS = 30;

/** `inboundRetentionDays` from the CDK context (`cdk deploy -c inboundRetentionDays=90`), default 30. */
export const inboundRetentionDays = (scope: Construct): number =>
  daysFromContext(scope, 'inboundRetentionDays', DEFAULT_RETENTION_DAYS);

export interface InboundMailProps {
  /** the queue the worker reads (functions/workers.ts INBOUND_QUEUE) */
  queue: sqs.IQueue;
  retentionDays: number;
}

export class InboundMail extends Construct {
  readonly bucket: s3.Bucket;
  readonly topic: sns.Topic;
  readonly ruleSet: ses.ReceiptRuleSet;
  readonly rule: ses.ReceiptRule;
  readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: InboundMailProps) {
    super(scope, id);
    this.retentionDays = props.retentionDays;
    const account = Stack.of(this).account;

    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'expire-inbound-mail',
          expiration: Duration.days(props.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // customers' mail: deleting the stack leaves it (the lifecycle rule still empties it)
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Only SES of this account, acting for this stack's receipt rule set, may use the key, publish
    // to the topic and write the bucket (the confused-deputy conditions AWS recommends for SES). The
    // rule's own name would make a cycle (the rule waits for the bucket policy), so any rule of the set.
    this.ruleSet = new ses.ReceiptRuleSet(this, 'RuleSet');
    const fromOurRules = {
      StringEquals: { 'aws:SourceAccount': account },
      ArnLike: {
        'aws:SourceArn': Stack.of(this).formatArn({
          service: 'ses',
          resource: 'receipt-rule-set',
          resourceName: `${this.ruleSet.receiptRuleSetName}:receipt-rule/*`,
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
        }),
      },
    };
    const key = new kms.Key(this, 'TopicKey', {
      enableKeyRotation: true,
      description: 'Inbound mail notifications topic',
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: fromOurRules,
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const { policyDependable } = this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurRules,
      }),
    );
    this.topic.addSubscription(new SqsSubscription(props.queue));
    // The S3 action's own grant to SES checks only the account (aws:Referer): nothing but our rules may write
    const denySes = (conditions: Record<string, unknown>) =>
      this.bucket.addToResourcePolicy(
        new iam.PolicyStatement({
          effect: iam.Effect.DENY,
          principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
          actions: ['s3:PutObject'],
          resources: [this.bucket.arnForObjects('*')],
          conditions,
        }),
      );
    denySes({ StringNotEquals: fromOurRules.StringEquals });
    denySes({ ArnNotLike: fromOurRules.ArnLike });

    this.rule = this.ruleSet.addRule('StoreAndNotify', {
      enabled: true,
      scanEnabled: true, // spam and virus verdicts in every notification
      tlsPolicy: ses.TlsPolicy.OPTIONAL,
      // S3 action: SES writes the message, then publishes the notification (the bucket policy is added by the action)
      actions: [new sesActions.S3({ bucket: this.bucket, objectKeyPrefix: INBOUND_RAW_PREFIX, topic: this.topic })],
    });
    if (policyDependable) this.rule.node.addDependency(policyDependable);
    if (flagFromContext(this, 'activateReceiptRuleSet')) this.activate();
  }

  /** Makes this stack's rule set the active one (see the module comment), once its rule exists. */
  private activate(): void {
    const call = (parameters: Record<string, string>) => ({
      service: 'SES',
      action: 'setActiveReceiptRuleSet',
      parameters,
      physicalResourceId: cr.PhysicalResourceId.of('active-receipt-rule-set'),
    });
    const activation = new cr.AwsCustomResource(this, 'ActivateRuleSet', {
      onCreate: call({ RuleSetName: this.ruleSet.receiptRuleSetName }),
      onUpdate: call({ RuleSetName: this.ruleSet.receiptRuleSetName }),
      onDelete: call({}), // no name: no set active, so the stack can delete its own
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({ actions: ['ses:SetActiveReceiptRuleSet'], resources: ['*'] }),
      ]),
      installLatestAwsSdk: false,
      // a log group of ours, as every function has (lib/api-function.ts): a retention, deleted with the stack
      logGroup: new logs.LogGroup(this, 'ActivateRuleSetLogs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
    });
    activation.node.addDependency(this.rule);
    // Its provider, a function CDK makes once per stack, is x86_64 unless told: arm64 like every
    // function of ours (its code is plain JavaScript; test/infra/stack.infra.ts checks them all).
    const provider = activation.node.findChild('Provider') as lambda.SingletonFunction;
    const providerFunction = Stack.of(this).node.findChild(provider.constructName).node.defaultChild;
    (providerFunction as lambda.CfnFunction).architectures = [lambda.Architecture.ARM_64.name];
    Validations.of(activation).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'ses:SetActiveReceiptRuleSet has no resource-level permission',
    });
  }

  /**
   * Tells `fn` the bucket (INBOUND_BUCKET, INBOUND_RETENTION_DAYS) and allows it `read` (GetObject:
   * its presigned download URLs act with its permissions) or `read-write` (also PutObject,
   * DeleteObject); a reader also gets ListBucket, so a missing object is a 404, not a 403 (`mayListBucket`).
   */
  grant(fn: ApiFunction, access: keyof typeof BUCKET_ACTIONS): void {
    fn.addEnvironment('INBOUND_BUCKET', this.bucket.bucketName);
    fn.addEnvironment('INBOUND_RETENTION_DAYS', String(this.retentionDays));
    const objectActions = [...BUCKET_ACTIONS[access]];
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: objectActions, resources: [this.bucket.arnForObjects('*')] }),
    );
    if (mayListBucket(access))
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
  }
}
