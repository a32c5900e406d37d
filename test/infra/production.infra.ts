/**
 * Ready for production on AWS (lib/constructs/monitoring.ts and the settings around it), asserted on
 * the synthesized templates, nested stacks included: alarms that reach someone, the alarms a
 * production email service needs, a dashboard of its golden signals, queue and stream settings
 * that lose nothing, the API's throttle, and the table's protection and key.
 */
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import {
  INBOUND_WORKER_MEMORY_MB,
  queues,
  workers,
  deployedVisibilityTimeoutSeconds,
  workerTimeoutSeconds,
} from '../../functions/workers';
import { MAX_PARSE_BYTES } from '../../shared/receiving/inbound';
import { workerFunctionId } from '../../lib/email-service-stack';
import { ALARMS } from '../../lib/constructs/monitoring';
import { STREAM_MAX_RECORD_AGE } from '../../lib/constructs/workers';
import {
  cdkJsonContext,
  synth,
  synthesized,
  synthesizedTuned,
  TUNED_CERTIFICATE_ARN,
  type Resource,
} from '../support/synth';
import { functionName, routes } from '../../functions/routes';
import { declaredFunctions } from '../support/grants-check';
import { SECRETS_KEY_ACTIONS } from '../../functions/needs';
import { SECRETS_KEY_CONTEXT } from '../../shared/platform/aws/secrets-key';

const { stack, template, resources } = synthesized();
const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId(construct.node.defaultChild as CfnElement);
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type) as [string, Resource][];
const alarms = () => ofType('AWS::CloudWatch::Alarm').map(([, r]) => r.Properties);
const topicId = idOf(stack.monitoring.alarmTopic);

describe('alarms someone receives', () => {
  it('has an alarm topic encrypted with a key CloudWatch may use, TLS only, its ARN an output', () => {
    const topic = resources[topicId];
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const keyStatements = resources[keyId].Properties.KeyPolicy.Statement as {
      Principal?: { Service?: string };
      Action: string[];
    }[];
    expect(keyStatements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Principal: { Service: 'cloudwatch.amazonaws.com' },
          Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        }),
      ]),
    );
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
    template.hasOutput('AlarmTopicArn', { Value: { Ref: topicId } });
    expect(ofType('AWS::SNS::Subscription').filter(([, r]) => r.Properties.Protocol === 'email')).toEqual([]); // none unless asked
  });

  it('subscribes the address of the alarmEmail context', () => {
    const withEmail = synthesizedTuned();
    withEmail.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'oncall@example.com',
      TopicArn: { Ref: idOf(withEmail.stack.monitoring.alarmTopic) },
    });
    expect(() => synth({ bundle: false, context: { ...cdkJsonContext, alarmEmail: 'not an address' } })).toThrow(
      /alarmEmail/,
    );
  });

  it('notifies the topic from every alarm of every template', () => {
    expect(alarms().length).toBeGreaterThan(40);
    for (const alarm of alarms())
      expect({ alarm: alarm.AlarmDescription, actions: alarm.AlarmActions }).toEqual({
        alarm: alarm.AlarmDescription,
        actions: [{ Ref: topicId }],
      });
  });

  it("alarms when the reputation guard pauses a project, and gives its worker the deployment's thresholds", () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'EmailService',
      MetricName: 'ProjectSendingPaused',
      Threshold: 1,
      Statistic: 'Sum',
    });
    const guard =
      resources[idOf(stack.functions.get(workerFunctionId('email-status'))!)].Properties.Environment.Variables;
    expect(guard).toMatchObject({
      REPUTATION_BOUNCE_RATE: '0.04',
      REPUTATION_COMPLAINT_RATE: '0.0008',
      REPUTATION_MIN_SENDS: '200',
      REPUTATION_MIN_COMPLAINTS: '3',
    });
    const tuned = synthesizedTuned();
    const env =
      tuned.resources[
        tuned.stack.getLogicalId(
          tuned.stack.functions.get(workerFunctionId('email-status'))!.node.defaultChild as CfnElement,
        )
      ].Properties.Environment.Variables;
    expect(env).toMatchObject({ REPUTATION_BOUNCE_RATE: '0.03', REPUTATION_MIN_SENDS: '500' });
    expect(() => synth({ bundle: false, context: { ...cdkJsonContext, reputationComplaintRate: '5' } })).toThrow(
      /reputationComplaintRate/,
    );
  });

  it("warns at half of SES's bounce and complaint review levels", () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SES',
      MetricName: 'Reputation.BounceRate',
      Threshold: 0.025,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SES',
      MetricName: 'Reputation.ComplaintRate',
      Threshold: 0.0005,
    });
  });

  it.each(workers.map((w) => [w.name, w] as const))(
    'watches the %s worker: errors, throttles and, for a stream consumer, its iterator age',
    (_name, worker) => {
      const fnId = idOf(stack.functions.get(workerFunctionId(worker.name))!);
      const on = (metric: string) =>
        alarms().filter((a) => a.MetricName === metric && a.Dimensions?.[0]?.Value?.Ref === fnId);
      expect(on('Errors')).toEqual([expect.objectContaining({ Threshold: ALARMS.workerErrors })]);
      expect(on('Throttles')).toEqual([expect.objectContaining({ Threshold: ALARMS.workerThrottles })]);
      expect(on('IteratorAge')).toHaveLength(worker.trigger.kind === 'stream' ? 1 : 0);
    },
  );

  it.each(['send', 'send-bulk', 'webhook-delivery', 'broadcast-fanout'])(
    'watches the age of the oldest message of the %s queue',
    (name) => {
      const queueName = { 'Fn::GetAtt': [idOf(stack.queues.get(name)!.queue), 'QueueName'] };
      const found = alarms().filter(
        (a) =>
          a.MetricName === 'ApproximateAgeOfOldestMessage' &&
          JSON.stringify(a.Dimensions) === JSON.stringify([{ Name: 'QueueName', Value: queueName }]),
      );
      expect(found).toEqual([expect.objectContaining({ Threshold: ALARMS.queueAgeSeconds[name] })]);
    },
  );

  it('watches the API 5xx rate, DynamoDB throttling and the account concurrency against its quota', () => {
    const byExpression = (text: string) =>
      alarms().filter((a) => (a.Metrics ?? []).some((m: { Expression?: string }) => m.Expression?.includes(text)));
    expect(byExpression('100 * errors / MAX([requests, 1])')).toEqual([
      expect.objectContaining({ Threshold: ALARMS.api5xxPercent, EvaluationPeriods: 2 }),
    ]);
    expect(byExpression('reads + writes')).toEqual([expect.objectContaining({ Threshold: ALARMS.tableThrottles })]);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Threshold: 800,
    });
    const bigger = synthesizedTuned();
    bigger.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'ConcurrentExecutions',
      Threshold: 4000,
    });
  });

  it('draws the golden signals on one dashboard', () => {
    const [[, dashboard]] = ofType('AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    for (const title of [
      'API latency (ms)',
      'API responses',
      'Errors by route',
      'p99 duration by route (ms)',
      'Sends per second against the SES rate',
      'SES bounce and complaint rates',
      'Queue backlogs (messages visible)',
      'Age of the oldest message (s)',
      'Dead-letter queue depths',
      'Webhook deliveries by outcome',
    ])
      expect(body).toContain(title);
    expect(body).toContain('EmailService'); // the workers' EMF namespace
  });
});

describe('queues, streams and the API', () => {
  it.each(queues.map((q) => [q.name, q] as const))(
    'queue %s: visible again only after 6 times its consumer timeout, kept 14 days',
    (_name, definition) => {
      const queue = resources[idOf(stack.queues.get(definition.name)!.queue)].Properties;
      const consumer = workers.find((w) => w.trigger.kind === 'queue' && w.trigger.queue === definition.name);
      expect(queue.VisibilityTimeout).toBe(deployedVisibilityTimeoutSeconds(definition));
      if (consumer) expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(6 * workerTimeoutSeconds(consumer));
      expect(queue.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
    },
  );

  it('sends a stream batch that fails all its retries, or grows old, to a queue with an alarm at its first message', () => {
    const failuresArn = { 'Fn::GetAtt': [idOf(stack.workers.streamFailures), 'Arn'] };
    const streamMappings = ofType('AWS::Lambda::EventSourceMapping').filter(
      ([, r]) => r.Properties.StartingPosition === 'TRIM_HORIZON',
    );
    expect(streamMappings).toHaveLength(workers.filter((w) => w.trigger.kind === 'stream').length);
    for (const [, mapping] of streamMappings) {
      expect(mapping.Properties).toMatchObject({
        DestinationConfig: { OnFailure: { Destination: failuresArn } },
        MaximumRecordAgeInSeconds: STREAM_MAX_RECORD_AGE.toSeconds(),
      });
    }
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(stack.workers.streamFailures), 'QueueName'] } }],
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('sizes the inbound worker for a 40 MB message: one per invocation, 2,048 MB, 120 s', () => {
    const fn = stack.functions.get(workerFunctionId('inbound'))!;
    expect(resources[idOf(fn)].Properties).toMatchObject({ MemorySize: INBOUND_WORKER_MEMORY_MB, Timeout: 120 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: idOf(fn) },
      BatchSize: 1,
    });
    expect(resources[idOf(stack.queues.get('inbound')!.queue)].Properties.VisibilityTimeout).toBe(720);
    expect(MAX_PARSE_BYTES).toBe(40 * 1024 * 1024); // SES's largest message
  });

  it('throttles the whole API at its stage, by default and from context', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
    });
    const tuned = synthesizedTuned();
    tuned.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 60 },
    });
  });

  it('throttles each route without a key on its own (no project counts them), after the routes exist', () => {
    const [stageId, stage] = ofType('AWS::ApiGatewayV2::Stage')[0];
    const anonymous = routes.filter((r) => r.operation.auth === 'none');
    expect(Object.keys(stage.Properties.RouteSettings).sort()).toEqual(
      anonymous.map((r) => `${r.method} ${r.path}`).sort(),
    );
    expect(stage.Properties.RouteSettings['GET /health']).toEqual({
      ThrottlingRateLimit: 20,
      ThrottlingBurstLimit: 40,
    });
    expect(stage.Properties.RouteSettings['POST /unsubscribe/{token}']).toEqual({
      ThrottlingRateLimit: 100,
      ThrottlingBurstLimit: 200,
    });
    const nestedStacks = ofType('AWS::CloudFormation::Stack').map(([id]) => id);
    expect(template.toJSON().Resources[stageId].DependsOn).toEqual(
      expect.arrayContaining(nestedStacks.filter((id) => id.includes('Routes'))),
    );
  });

  it("gives every keyed route the deployment's default API rate limit from the ApiRateLimitPerSecond parameter", () => {
    template.hasParameter('ApiRateLimitPerSecond', { Type: 'Number', Default: 10, MinValue: 1 });
    for (const route of routes) {
      const env = resources[idOf(stack.functions.get(functionName(route))!)].Properties.Environment.Variables;
      if (route.operation.auth === 'api_key')
        expect(JSON.stringify(env.API_RATE_LIMIT_PER_SECOND)).toContain('ApiRateLimitPerSecond');
      else expect(env.API_RATE_LIMIT_PER_SECOND).toBeUndefined();
    }
  });

  it('gives every function with table actions the contactLimitPerProject context as CONTACT_LIMIT_PER_PROJECT, and none without it', () => {
    const envOf = (s: typeof stack, r: typeof resources, name: string) =>
      r[idOf(s.functions.get(name)!)].Properties.Environment.Variables;
    expect(envOf(stack, resources, 'PostContacts').CONTACT_LIMIT_PER_PROJECT).toBeUndefined(); // the code's default, 1,000,000
    const tuned = synthesizedTuned();
    for (const name of ['PostContacts', workerFunctionId('contact-imports'), 'GetUsage'])
      expect(envOf(tuned.stack, tuned.resources, name).CONTACT_LIMIT_PER_PROJECT).toBe('5000');
    expect(envOf(tuned.stack, tuned.resources, 'GetHealth').CONTACT_LIMIT_PER_PROJECT).toBeUndefined(); // no table actions
  });
});

describe('the table', () => {
  const tableId = idOf(stack.table);
  const keyId = resources[tableId].Properties.SSESpecification?.KMSMasterKeyId?.['Fn::GetAtt']?.[0];

  it('is protected from deletion and encrypted with a customer managed key, kept with the table', () => {
    expect(resources[tableId].Properties).toMatchObject({
      DeletionProtectionEnabled: true,
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS' },
    });
    expect(resources[keyId]).toMatchObject({
      Type: 'AWS::KMS::Key',
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true },
    });
  });

  it('backs it up with AWS Backup only when asked: daily for 35 days, monthly for a year, in a retained vault', () => {
    expect(ofType('AWS::Backup::BackupPlan')).toEqual([]);
    const backedUp = synthesizedTuned();
    const plan = backedUp.template.findResources('AWS::Backup::BackupPlan');
    const rules = (Object.values(plan)[0] as Resource).Properties.BackupPlan.BackupPlanRule as {
      RuleName: string;
      Lifecycle: { DeleteAfterDays: number };
    }[];
    expect(rules.map((r) => [r.RuleName, r.Lifecycle.DeleteAfterDays])).toEqual([
      ['daily', 35],
      ['monthly', 365],
    ]);
    backedUp.template.hasResource('AWS::Backup::BackupVault', { DeletionPolicy: 'Retain' });
    const selection = JSON.stringify(backedUp.template.findResources('AWS::Backup::BackupSelection'));
    expect(selection).toContain(backedUp.stack.getLogicalId(backedUp.stack.table.node.defaultChild as CfnElement));
  });

  it('lets a function with table actions decrypt the table key and nothing more, writers too', () => {
    const keyActions = (fnId: string) => {
      const fn = stack.functions.get(fnId)!;
      const roleId = resources[idOf(fn)].Properties.Role['Fn::GetAtt'][0];
      return Object.values(resources)
        .filter(
          (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
        )
        .flatMap((r) => r.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((st) => JSON.stringify(st.Resource).includes(keyId))
        .flatMap((st) => [st.Action].flat())
        .sort();
    };
    expect(keyActions('GetUnsubscribeToken')).toEqual(['kms:Decrypt', 'kms:DescribeKey']); // GetItem only
    expect(keyActions('GetEmailsEmailId')).toEqual(['kms:Decrypt', 'kms:DescribeKey']); // a read whose request is counted (UpdateItem)
    expect(keyActions('PostEmails')).toEqual(['kms:Decrypt', 'kms:DescribeKey']); // TransactWriteItems
    expect(keyActions('GetHealth')).toEqual([]); // no table action, no key
  });
});

describe('secrets the service keeps in the table', () => {
  const secretsKeyId = idOf(stack.secretsKey);
  const declared = declaredFunctions();
  /** A function's statements on the secrets key (its ARN by reference, in the stack or as a nested stack's parameter). */
  const onSecretsKey = (fnId: string) => {
    const roleId = resources[idOf(stack.functions.get(fnId)!)].Properties.Role['Fn::GetAtt'][0];
    return Object.values(resources)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
      )
      .flatMap(
        (r) =>
          r.Properties.PolicyDocument.Statement as {
            Action: string | string[];
            Resource: unknown;
            Condition?: unknown;
          }[],
      )
      .filter((st) => JSON.stringify(st.Resource).includes(secretsKeyId));
  };

  it('are sealed under a key of their own, rotated, kept when the stack is deleted', () => {
    expect(resources[secretsKeyId]).toMatchObject({
      Type: 'AWS::KMS::Key',
      DeletionPolicy: 'Retain',
      Properties: { EnableKeyRotation: true },
    });
    const tableKeyId = resources[idOf(stack.table)].Properties.SSESpecification.KMSMasterKeyId['Fn::GetAtt'][0];
    expect(secretsKeyId).not.toBe(tableKeyId); // not the table's key: whoever may read the table cannot open them
  });

  it.each([...declared.keys()])(
    '%s may seal or open them exactly as its needs say, only with the service encryption context',
    (fnId) => {
      const { needs } = declared.get(fnId)!;
      const fn = resources[idOf(stack.functions.get(fnId)!)];
      const statements = onSecretsKey(fnId);
      if (!needs.secretsKey) {
        expect(statements).toEqual([]);
        expect(fn.Properties.Environment.Variables.SECRETS_KEY_ARN).toBeUndefined();
        return;
      }
      expect(statements.map((st) => ({ actions: [st.Action].flat().sort(), condition: st.Condition }))).toEqual([
        {
          actions: [...SECRETS_KEY_ACTIONS[needs.secretsKey]],
          condition: { StringEquals: { 'kms:EncryptionContext:purpose': SECRETS_KEY_CONTEXT.purpose } },
        },
      ]);
      expect(JSON.stringify(fn.Properties.Environment.Variables.SECRETS_KEY_ARN)).toContain(secretsKeyId);
    },
  );

  it('are sealed by the webhook create and rotate routes, the broadcast fan-out and the email share route, and opened by the dispatcher, the unsubscribe routes and the share page only', () => {
    const withKey = [...declared]
      .filter(([, d]) => d.needs.secretsKey)
      .map(([fnId, d]) => `${fnId}:${d.needs.secretsKey}`);
    expect(withKey.sort()).toEqual(
      [
        'BroadcastFanoutWorker:encrypt-decrypt',
        'GetShareToken:decrypt',
        'GetUnsubscribeToken:decrypt',
        'PostEmailsEmailIdShare:encrypt-decrypt',
        'PostUnsubscribeToken:decrypt',
        'PostWebhooks:encrypt',
        'PostWebhooksWebhookidSigningSecretRotate:encrypt',
        'WebhookDispatcherWorker:decrypt',
      ].sort(),
    );
  });
});

describe('data protection and the first deploy', () => {
  it("lets only SES of this account, for the service's configuration sets, use the SES events key and topic", () => {
    const topic = resources[idOf(stack.sesEventsTopic)];
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    const sesStatement = (
      resources[keyId].Properties.KeyPolicy.Statement as { Principal?: { Service?: string }; Condition?: unknown }[]
    ).find((st) => st.Principal?.Service === 'ses.amazonaws.com');
    const condition = JSON.stringify(sesStatement?.Condition);
    expect(condition).toContain('aws:SourceAccount');
    expect(condition).toContain('configuration-set/es-*');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: idOf(stack.sesEventsTopic) }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'ses.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: Match.anyValue(), ArnLike: Match.anyValue() }),
          }),
        ]),
      },
    });
  });

  it("lets only this stack's receipt rules write the inbound bucket and use its notification key", () => {
    const bucketPolicy = ofType('AWS::S3::BucketPolicy').find(([, r]) =>
      JSON.stringify(r.Properties.Bucket).includes(idOf(stack.inbound.bucket)),
    )![1];
    const denies = (
      bucketPolicy.Properties.PolicyDocument.Statement as {
        Effect: string;
        Principal?: { Service?: string };
        Condition?: unknown;
      }[]
    ).filter((st) => st.Effect === 'Deny' && st.Principal?.Service === 'ses.amazonaws.com');
    expect(JSON.stringify(denies)).toContain('"StringNotEquals":{"aws:SourceAccount"');
    expect(JSON.stringify(denies)).toContain('ArnNotLike');
    expect(JSON.stringify(denies)).toContain(':receipt-rule/*');
    const keyId = resources[idOf(stack.inbound.topic)].Properties.KmsMasterKeyId['Fn::GetAtt'][0];
    expect(JSON.stringify(resources[keyId].Properties.KeyPolicy)).toContain('receipt-rule-set/');
  });

  it('serves the API on a custom domain from context, and writes links to it', () => {
    const certificateArn = TUNED_CERTIFICATE_ARN;
    const withDomain = synthesizedTuned();
    withDomain.template.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
      DomainName: 'email-api.example.com',
      DomainNameConfigurations: [Match.objectLike({ CertificateArn: certificateArn, EndpointType: 'REGIONAL' })],
    });
    withDomain.template.resourceCountIs('AWS::ApiGatewayV2::ApiMapping', 1);
    withDomain.template.hasOutput('ApiUrl', { Value: 'https://email-api.example.com' });
    withDomain.template.hasOutput('ApiDomainTarget', {});
    // every function that writes links into mail (unsubscribe) names the domain, never execute-api
    const linkWriters = Object.values(withDomain.resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.PUBLIC_API_URL,
    );
    expect(linkWriters.length).toBeGreaterThan(0);
    for (const fn of linkWriters)
      expect(fn.Properties.Environment.Variables.PUBLIC_API_URL).toBe('https://email-api.example.com');
    expect(() =>
      synth({
        bundle: false,
        context: {
          ...cdkJsonContext,
          apiDomainName: 'email-api.example.com',
          apiCertificateArn: certificateArn.replace('ap-southeast-2', 'us-east-1'),
        },
      }),
    ).toThrow(/ap-southeast-2/);
    expect(() =>
      synth({ bundle: false, context: { ...cdkJsonContext, apiDomainName: 'email-api.example.com' } }),
    ).toThrow(/apiCertificateArn/);
    template.resourceCountIs('AWS::ApiGatewayV2::DomainName', 0); // none by default
  });

  it("activates the stack's receipt rule set only when asked (it replaces the account's active one), and deactivates it on delete", () => {
    expect(ofType('Custom::AWS')).toEqual([]);
    const activating = synthesizedTuned();
    const [[, activation]] = Object.entries(activating.resources).filter(([, r]) => r.Type === 'Custom::AWS');
    const text = JSON.stringify(activation.Properties);
    expect(text).toContain('setActiveReceiptRuleSet');
    expect(text).toContain(
      activating.stack.getLogicalId(activating.stack.inbound.ruleSet.node.defaultChild as CfnElement),
    );
    expect(JSON.stringify(activation.Properties.Delete)).not.toContain('RuleSetName');
    expect(() => synth({ bundle: false, context: { ...cdkJsonContext, activateReceiptRuleSet: 'yes' } })).toThrow(
      /activateReceiptRuleSet/,
    );
  });
});
