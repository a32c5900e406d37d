/**
 * What one deployment holds that AWS bills by the month whether or not it sends (issue 39), read
 * from the stack as `cdk synth` builds it with cdk.json's context (test/support/synth.ts, the
 * infra suites' own synth, bundling skipped): alarms and the metrics each is billed for, dashboards
 * and the metrics they graph, customer managed KMS keys, SQS queues polled by a Lambda event
 * source mapping, stream mappings, scheduled rules, secrets, log groups' retention, and which
 * resources use which encryption (a customer managed key bills requests; SSE-SQS and SSE-S3 do
 * not). bench/send-path-cost.ts prices it.
 */
import { synth, type Resource } from '../test/support/synth';

export interface DeploymentInventory {
  functions: number;
  arm64Functions: number;
  alarms: number;
  /** CloudWatch bills an alarm per metric it watches: a metric-math alarm for each metric of its expression */
  alarmMetrics: number;
  /** the metrics each dashboard graphs (the free tier covers 3 dashboards of up to 50 metrics) */
  dashboardMetrics: number[];
  kmsKeys: { description: string; rotation: boolean }[];
  /** queues a Lambda event source mapping polls (their dead-letter queues are not polled) */
  polledQueues: number;
  streamMappings: number;
  /** scheduled rules' invocations in a 30-day month */
  scheduledInvocationsPerMonth: number;
  scheduledRules: number;
  secrets: number;
  logGroups: number;
  /** the functions' log groups' retention, in days (every one the same, else the longest) */
  logRetentionDays: number;
  /** how each kind of resource is encrypted: `SSE-SQS x27`, `KMS (customer key) x3` */
  encryption: Record<string, string>;
  pointInTimeRecovery: boolean;
  tracedFunctions: number;
  backupPlans: number;
}

const MONTH_MINUTES = 30 * 24 * 60;

/** The metrics a dashboard body graphs (each entry of a widget's `metrics` that is not an expression). */
function dashboardMetrics(dashboard: Resource): number {
  const body = dashboard.Properties.DashboardBody;
  // tokens (a function's name, a queue's) are joined in by Fn::Join: any placeholder keeps the JSON whole
  const text = body['Fn::Join']
    ? (body['Fn::Join'][1] as unknown[]).map((part) => (typeof part === 'string' ? part : 'token')).join('')
    : String(body);
  const widgets = (JSON.parse(text) as { widgets: { properties?: { metrics?: unknown[][] } }[] }).widgets;
  return widgets
    .flatMap((w) => w.properties?.metrics ?? [])
    .filter((m) => !m.some((part) => typeof part === 'object' && part !== null && 'expression' in part)).length;
}

const count = (values: string[]): string =>
  Object.entries(
    values.reduce<Record<string, number>>((all, v) => {
      all[v] = (all[v] ?? 0) + 1;
      return all;
    }, {}),
  )
    .map(([value, n]) => `${value} x${n}`)
    .join(', ');

export function deploymentInventory(): DeploymentInventory {
  const { resources } = synth({ bundle: false });
  const all = Object.entries(resources);
  const ofType = (type: string) => all.filter(([, r]) => r.Type === type).map(([, r]) => r);
  const functions = ofType('AWS::Lambda::Function');
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const mappings = ofType('AWS::Lambda::EventSourceMapping');
  const sourceId = (m: Resource) => m.Properties.EventSourceArn?.['Fn::GetAtt'] as [string, string] | undefined;
  const rules = ofType('AWS::Events::Rule').filter((r) => r.Properties.ScheduleExpression);
  const perMonth = (expression: string) => {
    const [, n, unit] = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression) ?? [];
    if (!n) throw new Error(`a schedule this bench cannot count: ${expression}`);
    return MONTH_MINUTES / (Number(n) * { minute: 1, hour: 60, day: 1440 }[unit as 'minute' | 'hour' | 'day']);
  };
  const retention = ofType('AWS::Logs::LogGroup').map((g) => Number(g.Properties.RetentionInDays ?? Infinity));
  const keyKind = (key: unknown) => (key ? 'KMS (customer key)' : undefined);
  return {
    functions: functions.length,
    arm64Functions: functions.filter((f) => f.Properties.Architectures?.join() === 'arm64').length,
    alarms: alarms.length,
    alarmMetrics: alarms.reduce(
      (sum, a) =>
        sum +
        (a.Properties.Metrics ? a.Properties.Metrics.filter((m: { MetricStat?: unknown }) => m.MetricStat).length : 1),
      0,
    ),
    dashboardMetrics: ofType('AWS::CloudWatch::Dashboard').map(dashboardMetrics),
    kmsKeys: ofType('AWS::KMS::Key').map((k) => ({
      description: String(k.Properties.Description ?? ''),
      rotation: k.Properties.EnableKeyRotation === true,
    })),
    polledQueues: new Set(
      mappings
        .map(sourceId)
        .filter((ref) => ref && ref[1] === 'Arn' && resources[ref[0]]?.Type === 'AWS::SQS::Queue')
        .map((ref) => ref?.[0]),
    ).size,
    streamMappings: mappings.filter((m) => sourceId(m)?.[1] === 'StreamArn').length,
    scheduledRules: rules.length,
    scheduledInvocationsPerMonth: rules.reduce((sum, r) => sum + perMonth(r.Properties.ScheduleExpression), 0),
    secrets: ofType('AWS::SecretsManager::Secret').length,
    logGroups: retention.length,
    logRetentionDays: Math.max(...retention),
    encryption: {
      'DynamoDB table': count(
        ofType('AWS::DynamoDB::Table').map((t) =>
          t.Properties.SSESpecification?.KMSMasterKeyId ? 'KMS (customer key)' : 'AWS owned key',
        ),
      ),
      'SQS queues': count(
        ofType('AWS::SQS::Queue').map(
          (q) => keyKind(q.Properties.KmsMasterKeyId) ?? (q.Properties.SqsManagedSseEnabled ? 'SSE-SQS' : 'none'),
        ),
      ),
      'SNS topics': count(ofType('AWS::SNS::Topic').map((t) => keyKind(t.Properties.KmsMasterKeyId) ?? 'none')),
      'S3 buckets': count(
        ofType('AWS::S3::Bucket').map((b) => {
          const rule = b.Properties.BucketEncryption?.ServerSideEncryptionConfiguration?.[0];
          const algorithm = rule?.ServerSideEncryptionByDefault?.SSEAlgorithm;
          return algorithm === 'AES256'
            ? 'SSE-S3'
            : algorithm
              ? `${algorithm}${rule.BucketKeyEnabled ? ' with a bucket key' : ''}`
              : 'SSE-S3 (default)';
        }),
      ),
    },
    pointInTimeRecovery: ofType('AWS::DynamoDB::Table').some(
      (t) => t.Properties.PointInTimeRecoverySpecification?.PointInTimeRecoveryEnabled === true,
    ),
    tracedFunctions: functions.filter((f) => f.Properties.TracingConfig?.Mode === 'Active').length,
    backupPlans: ofType('AWS::Backup::BackupPlan').length,
  };
}
