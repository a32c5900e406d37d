/**
 * Inbound mail on AWS: SES classic email receiving (a receipt rule set), which ap-southeast-2
 * supports: the AWS General Reference lists `inbound-smtp.ap-southeast-2.amazonaws.com` among
 * SES's email receiving endpoints (https://docs.aws.amazon.com/general/latest/gr/ses.html, "Email
 * receiving endpoints"; README, "Receiving"). Mail Manager is not needed.
 *
 *   MX inbound-smtp.ap-southeast-2.amazonaws.com -> SES -> receipt rule (spam and virus scan)
 *     -> S3 action: the raw message into the inbound bucket (`raw/<SES message id>`), then a
 *        `Received` notification -> inbound topic (KMS) -> inbound queue (DLQ, alarm) -> inbound worker
 *
 * The rule has no recipient list, so it matches every verified domain of the account; the worker
 * decides which mail a project receives (a domain of that project with receiving enabled) and
 * drops the rest. The bucket is encrypted (SSE-S3), private, TLS-only, and expires every object
 * after `inboundRetentionDays` (CDK context, default 30); records expire with them.
 *
 * SES has one active receipt rule set per account and region, and CloudFormation cannot activate
 * one, so activating this one is a deliberate step after the first deploy (README, "Deploying"):
 * `aws ses set-active-receipt-rule-set --rule-set-name <ReceiptRuleSetName> --region ap-southeast-2`.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sesActions from 'aws-cdk-lib/aws-ses-actions';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { INBOUND_RAW_PREFIX } from '../functions/workers';
import type { ApiFunction } from './api-function';
import { daysFromContext } from './context';
export const DEFAULT_RETENTION_DAYS = 30;

/** `inboundRetentionDays` from the CDK context (`cdk deploy -c inboundRetentionDays=90`), default 30. */
export const inboundRetentionDays = (scope: Construct): number => daysFromContext(scope, 'inboundRetentionDays', DEFAULT_RETENTION_DAYS);

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
      lifecycleRules: [{ id: 'expire-inbound-mail', expiration: Duration.days(props.retentionDays), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // customers' mail: deleting the stack leaves it (the lifecycle rule still empties it)
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const key = new kms.Key(this, 'TopicKey', { enableKeyRotation: true, description: 'Inbound mail notifications topic' });
    key.grant(new iam.ServicePrincipal('ses.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    this.topic = new sns.Topic(this, 'Topic', { masterKey: key, enforceSSL: true });
    const { policyDependable } = this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': account } },
      }),
    );
    this.topic.addSubscription(new SqsSubscription(props.queue));

    this.ruleSet = new ses.ReceiptRuleSet(this, 'RuleSet');
    this.rule = this.ruleSet.addRule('StoreAndNotify', {
      enabled: true,
      scanEnabled: true, // spam and virus verdicts in every notification
      tlsPolicy: ses.TlsPolicy.OPTIONAL,
      // S3 action: SES writes the message, then publishes the notification (the bucket policy is added by the action)
      actions: [new sesActions.S3({ bucket: this.bucket, objectKeyPrefix: INBOUND_RAW_PREFIX, topic: this.topic })],
    });
    if (policyDependable) this.rule.node.addDependency(policyDependable);
  }

  /**
   * Tells `fn` the bucket (INBOUND_BUCKET, INBOUND_RETENTION_DAYS) and allows it `read` (GetObject:
   * its presigned download URLs act with its permissions) or `read-write` (also PutObject,
   * DeleteObject, and ListBucket so a missing object is a 404, not a 403).
   */
  grant(fn: ApiFunction, access: 'read' | 'read-write'): void {
    fn.addEnvironment('INBOUND_BUCKET', this.bucket.bucketName);
    fn.addEnvironment('INBOUND_RETENTION_DAYS', String(this.retentionDays));
    const objectActions = access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'];
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: objectActions, resources: [this.bucket.arnForObjects('*')] }));
    if (access === 'read-write') fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
  }
}
