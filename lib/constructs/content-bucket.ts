/**
 * The content bucket: each email's content (html, text, custom headers, attachments), written
 * once as one object when the email is accepted (shared/emails/content.ts) and read by the sender
 * and by GET /emails/{id}; never rewritten, so status changes never copy it (DESIGN.md, "Production
 * truth"). Encrypted (SSE-S3), private, TLS-only; objects expire by a lifecycle rule after the
 * email retention (`emailRetentionDays`, CDK context, default 30) plus the 30 days an email may be
 * scheduled ahead plus a day, so an email's content outlives its record (whose TTL counts from its
 * send time, shared/emails/emails.ts). Contact import files (`imports/`, put by a request or a
 * client's presigned PUT) expire after a week. Functions get `read` or `write` (functions/needs.ts
 * `contentBucket`); no code deletes content (the lifecycle does).
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { CONTENT_BUCKET_ACTIONS, mayListBucket } from '../../functions/needs';
import type { ApiFunction } from '../api-function';
import { daysFromContext } from '../context';

export const DEFAULT_EMAIL_RETENTION_DAYS = 30;
/**
 * Days a contact import's file is kept, uploads no import used among them (issue 32, 13: an unused or
 * oversized upload stayed a week). The worker reads a file only while its import runs, which ends well
 * within a day (a 100 MB file of short rows, about 3 million rows, takes a few hours; an import stuck
 * for 15 minutes is failed by the next): an import still running a day after its file was written
 * fails with "the file is gone". A lifecycle rule cannot tell used uploads from unused ones, so both go.
 */
const IMPORT_FILE_DAYS = 1;
/** How far ahead an email may be scheduled (shared/emails/emails.ts MAX_SCHEDULE_AHEAD_MS), in days. */
const MAX_SCHEDULE_AHEAD_DAYS = 30;

/** `emailRetentionDays` from the CDK context (`cdk deploy -c emailRetentionDays=90`), default 30. */
export const emailRetentionDays = (scope: Construct): number =>
  daysFromContext(scope, 'emailRetentionDays', DEFAULT_EMAIL_RETENTION_DAYS);

export class ContentBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly retentionDays: number;

  constructor(scope: Construct, id: string, props: { retentionDays: number }) {
    super(scope, id);
    this.retentionDays = props.retentionDays;
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'expire-email-content',
          expiration: Duration.days(props.retentionDays + MAX_SCHEDULE_AHEAD_DAYS + 1),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
        // contact import files (shared/audience/imports.ts), uploads no import used among them: a day
        { id: 'expire-import-files', prefix: 'imports/', expiration: Duration.days(IMPORT_FILE_DAYS) },
      ],
      // customers' mail: deleting the stack leaves it (the lifecycle rule still empties it)
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /** Tells `fn` the bucket (CONTENT_BUCKET, EMAIL_RETENTION_DAYS) and allows it the object actions of `access`; a reader also ListBucket, so a missing object is a 404, not a 403 (`mayListBucket`). */
  grant(fn: ApiFunction, access: keyof typeof CONTENT_BUCKET_ACTIONS): void {
    fn.addEnvironment('CONTENT_BUCKET', this.bucket.bucketName);
    fn.addEnvironment('EMAIL_RETENTION_DAYS', String(this.retentionDays));
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...CONTENT_BUCKET_ACTIONS[access]],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    if (mayListBucket(access))
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
  }
}
