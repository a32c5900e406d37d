/**
 * The deployed shape, checked against the same route table and table definition the stack reads:
 * adding a route without its function, route key or exact grant fails here, not in production.
 * Template tests skip esbuild: every function's bundle is test/infra/bundles.test.ts's, and CDK's
 * own bundled synth is test/deep/bundled-synth.test.ts's.
 */
import { NestedStack, Stack, Token, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { Construct } from 'constructs';
import { ROUTE_MEMORY_MB, routeMemoryMb, workerMemoryMb } from '../../functions/needs';
import { fallbackRoute, functionName, routeNeeds, routes } from '../../functions/routes';
import {
  INBOUND_QUEUE,
  INBOUND_RAW_PREFIX,
  queues,
  queueUrlVariable,
  sesEventSubscriptions,
  WEBHOOK_FANOUT_FILTER,
  workers,
} from '../../functions/workers';
import { buildApp, workerFunctionId } from '../../lib/email-service-stack';
import { tableDefinition } from '../../lib/table-definition';
import {
  cdkJsonContext,
  type Resource,
  type Synthesized,
  synth,
  synthesized,
  synthesizedTuned,
} from '../support/synth';

const allFunctions = [
  ...routes.map((route) => ({ id: functionName(route), routeKey: `${route.method} ${route.path}`, route })),
  { id: functionName(fallbackRoute), routeKey: '$default', route: fallbackRoute },
];

describe('EmailService stack (bundling skipped)', () => {
  const { stack, template, resources } = synthesized();
  const logicalId = (fnId: string) => {
    const fn = stack.functions.get(fnId)!;
    return Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement);
  };
  const tableId = stack.getLogicalId(stack.table.node.defaultChild as CfnElement);
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

  it("keeps every template under CloudFormation's 500 resources, the routes in a nested stack per resource", () => {
    const nested = stack.node.findAll().filter((c): c is NestedStack => NestedStack.isNestedStack(c));
    expect(nested.map((n) => n.node.id).sort()).toEqual(
      [...new Set(routes.map((r) => `${functionName({ handler: r.handler.split('/')[0] })}Routes`))].sort(),
    );
    for (const t of [template, ...nested.map((n) => Template.fromStack(n))]) {
      expect(Object.keys(t.toJSON().Resources).length).toBeLessThanOrEqual(500);
      expect(Object.keys(t.toJSON().Parameters ?? {}).length).toBeLessThanOrEqual(200);
    }
  });

  it('is pinned to ap-southeast-2', () => {
    expect(stack.region).toBe('ap-southeast-2');
    // the synthesizer bakes the region into the asset bucket the functions' code is deployed from
    template.allResourcesProperties('AWS::Lambda::Function', {
      Code: { S3Bucket: { 'Fn::Sub': Match.stringLikeRegexp('-ap-southeast-2$') } },
    });
  });

  it('has the single table of tableDefinition, retained on delete', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        KeySchema: [
          { AttributeName: 'PK', KeyType: 'HASH' },
          { AttributeName: 'SK', KeyType: 'RANGE' },
        ],
        AttributeDefinitions: Match.arrayWith(
          ['PK', 'SK', 'GSI1PK', 'GSI1SK'].map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
        ),
        GlobalSecondaryIndexes: [
          {
            IndexName: 'GSI1',
            KeySchema: [
              { AttributeName: 'GSI1PK', KeyType: 'HASH' },
              { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'KEYS_ONLY' },
          },
        ],
        TimeToLiveSpecification: { AttributeName: 'expires_at', Enabled: true },
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        BillingMode: 'PAY_PER_REQUEST',
      },
    });
    // the local runtime builds its table from the same definition; the literals above pin it
    expect(tableDefinition.globalIndexes).toHaveLength(1);
  });

  it("has one function per route plus the fallback, all Node.js 22 on arm64 with the table name and the routes' memory", () => {
    const functions = ofType('AWS::Lambda::Function');
    expect(functions).toHaveLength(routes.length + 1 + workers.length);
    // the route functions are in the nested stacks; the parent keeps the fallback and the workers
    template.resourceCountIs('AWS::Lambda::Function', 1 + workers.length);
    for (const { id, route } of allFunctions) {
      expect(resources[logicalId(id)]).toMatchObject({
        Type: 'AWS::Lambda::Function',
        Properties: {
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          // chosen by bench/function-memory.ts; the inbox search loads an index of up to ~130 MB (shared/inboxes/search.ts)
          MemorySize: route.memoryMb ?? ROUTE_MEMORY_MB,
          Timeout: route.timeoutSeconds ?? 10,
          Handler: 'index.handler',
          Environment: { Variables: { TABLE_NAME: { Ref: tableId } } },
        },
      });
    }
  });

  it("runs every Lambda function of the stack on arm64, CDK's own included (every bundle is plain JavaScript)", () => {
    // the tuned app activates the receipt rule set: a custom resource whose provider CDK makes
    const tuned = synthesizedTuned().resources;
    expect(Object.values(tuned).filter((r) => r.Type === 'Custom::AWS')).toHaveLength(1);
    for (const all of [resources, tuned]) {
      const functions = Object.entries(all).filter(([, r]) => r.Type === 'AWS::Lambda::Function');
      expect(functions.length).toBeGreaterThan(routes.length);
      expect(functions.filter(([, r]) => r.Properties.Architectures?.join() !== 'arm64').map(([id]) => id)).toEqual([]);
    }
  });

  it('deploys every function with the memory its declaration gives it, the figure the local runtime checks each invocation against', () => {
    const declared = new Map<string, number>([
      ...allFunctions.map(({ id, route }) => [id, routeMemoryMb(route)] as const),
      ...workers.map((worker) => [workerFunctionId(worker.name), workerMemoryMb(worker)] as const),
    ]);
    // no function of the stack without a declaration
    expect([...stack.functions.keys()].sort()).toEqual([...declared.keys()].sort());
    for (const [id, memoryMb] of declared)
      expect({ id, MemorySize: resources[logicalId(id)].Properties.MemorySize }).toEqual({ id, MemorySize: memoryMb });
  });

  it("gives POST /emails/batch, the heaviest write, DELETE /segments/{id} (up to 1,000 memberships) and the domain routes that call SES's control plane 25 s (under HTTP API's 30 s), and every other route 10 s", () => {
    const longer = allFunctions
      .filter(({ route }) => route.timeoutSeconds !== undefined)
      .map(({ id }) => [id, resources[logicalId(id)].Properties.Timeout]);
    expect(longer.sort()).toEqual([
      ['DeleteDomainsDomainId', 25],
      ['DeleteSegmentsSegmentId', 25],
      ['PatchDomainsDomainId', 25],
      ['PostDomains', 25],
      ['PostDomainsDomainIdClaimVerify', 25], // a domain claim's completion: POST /domains' SES calls and DELETE's
      ['PostDomainsDomainIdVerify', 25],
      ['PostEmailsBatch', 25],
    ]);
  });

  it('routes every route key, and $default, to its own function', () => {
    const apiRoutes = ofType('AWS::ApiGatewayV2::Route');
    expect(apiRoutes.map(([, r]) => r.Properties.RouteKey).sort()).toEqual(allFunctions.map((f) => f.routeKey).sort());
    for (const { id, routeKey } of allFunctions) {
      const [, route] = apiRoutes.find(([, r]) => r.Properties.RouteKey === routeKey)!;
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
      expect(resources[integrationId].Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [logicalId(id), 'Arn'] },
      });
    }
  });

  describe('grants each function exactly the table actions of its route', () => {
    /** Every statement that applies to the function's role: its inline policies and attached AWS::IAM::Policy. */
    function statementsOf(
      fnId: string,
    ): Array<{ Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown }> {
      const roleId = resources[logicalId(fnId)].Properties.Role['Fn::GetAtt'][0];
      const inline = (resources[roleId].Properties.Policies ?? []).flatMap((p: any) => p.PolicyDocument.Statement);
      const attached = ofType('AWS::IAM::Policy')
        .filter(([, p]) => p.Properties.Roles.some((r: any) => r.Ref === roleId))
        .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
      return [...inline, ...attached];
    }
    const dynamoActions = (fnId: string) =>
      statementsOf(fnId)
        .flatMap((s) => [s.Action].flat())
        .filter((a) => a.startsWith('dynamodb:'))
        .sort();

    it.each(allFunctions.map((f) => [f.routeKey, f] as const))('%s', (_key, { id, route }) => {
      const { table = [], tableByKeys = {} } = routeNeeds(route);
      const expected = [...table, ...Object.keys(tableByKeys)].map((a) => `dynamodb:${a}`).sort();
      expect(dynamoActions(id)).toEqual(expected);
      for (const statement of statementsOf(id).filter((s) =>
        [s.Action].flat().some((a) => a.startsWith('dynamodb:')),
      )) {
        expect(statement.Effect).toBe('Allow');
        if (statement.Condition) {
          // the pipeline's write of a read-only route: on its own partitions only
          const [action] = [statement.Action].flat();
          expect(statement).toMatchObject({
            Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
            Condition: {
              'ForAllValues:StringLike': {
                'dynamodb:LeadingKeys': tableByKeys[action.slice('dynamodb:'.length) as keyof typeof tableByKeys],
              },
            },
          });
          continue;
        }
        const tableAndIndexes = [
          { 'Fn::GetAtt': [tableId, 'Arn'] },
          { 'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, '/index/*']] },
        ];
        expect(statement.Resource).toHaveLength(2); // in either order (nested templates list them the other way round)
        expect(statement.Resource).toEqual(expect.arrayContaining(tableAndIndexes));
      }
    });

    it('matches the examples the route table promises', () => {
      expect(dynamoActions('GetSegments')).toEqual([
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]); // + the key's lookup, the rate limit's count and the request log's entry
      expect(routeNeeds(routes.find((r) => r.method === 'GET' && r.path === '/segments')!).tableByKeys).toEqual({
        PutItem: ['PROJECT#*#LOGS#*'],
        UpdateItem: ['RATE_LIMIT#*', 'API_KEY_HASH#*'],
      }); // those writes on their own partitions only
      expect(dynamoActions('GetHealth')).toEqual([]);
      expect(dynamoActions('Fallback')).toEqual([]);
    });

    it('attaches no managed policy beyond basic logging', () => {
      for (const { id } of allFunctions) {
        const roleId = resources[logicalId(id)].Properties.Role['Fn::GetAtt'][0];
        expect(JSON.stringify(resources[roleId].Properties.ManagedPolicyArns)).toBe(
          JSON.stringify([
            {
              'Fn::Join': [
                '',
                ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
              ],
            },
          ]),
        );
      }
    });
  });

  it('logs each function to its own log group with a retention, deleted with the stack', () => {
    for (const { id } of allFunctions) {
      const logGroupId = resources[logicalId(id)].Properties.LoggingConfig.LogGroup.Ref;
      expect(resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        DeletionPolicy: 'Delete',
        Properties: { RetentionInDays: 30 },
      });
    }
    // CDK's own functions too (the tuned app's receipt rule set activation): every function of the stack
    const tuned = synthesizedTuned().resources;
    for (const all of [resources, tuned])
      for (const [id, fn] of Object.entries(all).filter(([, r]) => r.Type === 'AWS::Lambda::Function'))
        expect([id, all[fn.Properties.LoggingConfig?.LogGroup?.Ref]]).toMatchObject([
          id,
          { Type: 'AWS::Logs::LogGroup', DeletionPolicy: 'Delete', Properties: { RetentionInDays: 30 } },
        ]);
    expect(Object.values(tuned).filter((r) => r.Type === 'AWS::Lambda::Function').length).toBeGreaterThan(
      allFunctions.length,
    );
    // no logRetention custom resource (its Lambda would be one more function to patch)
    template.resourceCountIs('Custom::LogRetention', 0);
  });

  it('writes a JSON access log line per request on the $default stage', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const [, stage] = stages[0];
    expect(stage.Properties).toMatchObject({ StageName: '$default', AutoDeploy: true });
    const logGroupId = stage.Properties.AccessLogSettings.DestinationArn['Fn::GetAtt'][0];
    expect(resources[logGroupId]).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } });
    const format = JSON.parse(stage.Properties.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      ip: '$context.identity.sourceIp',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLength: '$context.responseLength',
      integrationLatency: '$context.integrationLatency',
    });
  });

  it('outputs the API URL and the table name for the API-key CLI', () => {
    template.hasOutput('TableName', { Value: { Ref: tableId } });
    // the endpoint, not the stage URL: no trailing slash for clients to double
    template.hasOutput('ApiUrl', {
      Value: { 'Fn::GetAtt': [stack.getLogicalId(stack.api.node.defaultChild as CfnElement), 'ApiEndpoint'] },
    });
  });
});

describe('EmailService app environment', () => {
  const saved = process.env.CDK_DEFAULT_ACCOUNT;
  afterEach(() => {
    if (saved === undefined) delete process.env.CDK_DEFAULT_ACCOUNT;
    else process.env.CDK_DEFAULT_ACCOUNT = saved;
  });

  it("takes the account from the CLI's credentials when there are any", () => {
    process.env.CDK_DEFAULT_ACCOUNT = '123456789012';
    expect(buildApp({ bundle: false }).stack.account).toBe('123456789012');
  });

  it('stays account-agnostic without credentials, so synth works offline', () => {
    delete process.env.CDK_DEFAULT_ACCOUNT;
    const { stack } = buildApp({ bundle: false });
    expect(Token.isUnresolved(stack.account)).toBe(true); // resolves to AWS::AccountId at deploy time
    expect(stack.region).toBe('ap-southeast-2');
  });
});

describe('EmailService queues and workers', () => {
  const { stack, template, resources } = synthesized();
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const policiesOf = (fnLogicalId: string) => {
    const roleId = resources[fnLogicalId].Properties.Role['Fn::GetAtt'][0];
    return Object.values(resources)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
      )
      .flatMap((r) => r.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[]);
  };

  it.each(queues.map((q) => [q.name, q] as const))(
    'queue %s: encrypted, TLS only, a DLQ after maxReceiveCount, and an alarm on the DLQ',
    (_name, definition) => {
      const { queue, dlq } = stack.queues.get(definition.name)!;
      const queueResource = resources[idOf(queue)];
      expect(queueResource.Properties).toMatchObject({
        SqsManagedSseEnabled: true,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [idOf(dlq), 'Arn'] },
          maxReceiveCount: definition.maxReceiveCount,
        },
      });
      expect(queueResource.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(definition.visibilityTimeoutSeconds);
      for (const q of [queue, dlq]) {
        template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: idOf(q) }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(dlq), 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    },
  );

  it('feeds every queue worker from its queue with partial batch failures', () => {
    for (const worker of workers.filter((w) => w.trigger.kind === 'queue')) {
      const trigger = worker.trigger as { queue: string; batchSize: number };
      const fnId = idOf(stack.functions.get(workerFunctionId(worker.name))!);
      template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
        FunctionName: { Ref: fnId },
        EventSourceArn: { 'Fn::GetAtt': [idOf(stack.queues.get(trigger.queue)!.queue), 'Arn'] },
        BatchSize: trigger.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
    }
  });

  it('runs every schedule worker from an EventBridge rule', () => {
    for (const worker of workers.filter((w) => w.trigger.kind === 'schedule')) {
      const fnId = idOf(stack.functions.get(workerFunctionId(worker.name))!);
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: Match.stringLikeRegexp('^rate\\('),
        Targets: Match.arrayWith([Match.objectLike({ Arn: { 'Fn::GetAtt': [fnId, 'Arn'] } })]),
      });
    }
  });

  it("feeds the webhook fan-out from the table's stream, filtered to inserted event items, with partial batch failures", () => {
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as CfnElement);
    const fanOut = workers.find((w) => w.name === 'webhook-fanout')!;
    expect(fanOut.trigger).toMatchObject({ kind: 'stream', filter: WEBHOOK_FANOUT_FILTER });
    const fnId = idOf(stack.functions.get(workerFunctionId('webhook-fanout'))!);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumRetryAttempts: 50,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          { Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['event'] } } } }) },
        ],
      },
    });
    // it may read the stream, and send to the delivery queue
    const statements = policiesOf(fnId);
    expect(statements.some((st) => [st.Action].flat().includes('dynamodb:GetRecords'))).toBe(true);
    expect(statements.some((st) => [st.Action].flat().includes('sqs:SendMessage'))).toBe(true);
  });

  it("feeds the collection cleanup from the table's stream, filtered to removed segment and inbox items, with 5 minutes per call", () => {
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as CfnElement);
    const fnId = idOf(stack.functions.get(workerFunctionId('collection-cleanup'))!);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      FilterCriteria: {
        Filters: [
          {
            Pattern: JSON.stringify({
              eventName: ['REMOVE'],
              dynamodb: { OldImage: { type: { S: ['segment', 'inbox'] } } },
            }),
          },
        ],
      },
    });
    expect(resources[fnId].Properties.Timeout).toBe(300);
    // it removes memberships in transactions: the delete and update actions, and nothing it does not need
    const actions = policiesOf(fnId).flatMap((st) => [st.Action].flat());
    expect(actions).toEqual(
      expect.arrayContaining(['dynamodb:DeleteItem', 'dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']),
    );
    expect(actions).not.toContain('dynamodb:PutItem');
  });

  it('gives the webhook delivery queue room for 8 attempts plus faults, and lets the dispatcher reschedule its messages', () => {
    const { queue } = stack.queues.get('webhook-delivery')!;
    expect(resources[idOf(queue)].Properties.RedrivePolicy.maxReceiveCount).toBeGreaterThanOrEqual(16);
    const fnId = idOf(stack.functions.get(workerFunctionId('webhook-dispatcher'))!);
    const consume = policiesOf(fnId).find((st) => [st.Action].flat().includes('sqs:ChangeMessageVisibility'));
    expect(consume?.Resource).toEqual({ 'Fn::GetAtt': [idOf(queue), 'Arn'] });
    // it knows its own queue's URL for that call, and may not send to it (a retry is the same message, later)
    expect(resources[fnId].Properties.Environment.Variables[queueUrlVariable('webhook-delivery')]).toEqual({
      Ref: idOf(queue),
    });
    expect(policiesOf(fnId).flatMap((st) => [st.Action].flat())).not.toContain('sqs:SendMessage');
    // never local mode on AWS: no plain-http loopback endpoints, and resolved addresses are checked
    expect(resources[fnId].Properties.Environment.Variables.ALLOW_HTTP_LOOPBACK_WEBHOOKS).toBeUndefined();
  });

  it('lets exactly the functions that name a queue send to it, and tells them its URL', () => {
    const senders = [
      ...routes.filter((r) => r.needs.queues).map((r) => ({ id: functionName(r), names: r.needs.queues! })),
      ...workers.filter((w) => w.needs.queues).map((w) => ({ id: workerFunctionId(w.name), names: w.needs.queues! })),
    ];
    expect(senders.length).toBeGreaterThan(0);
    for (const [id, fn] of stack.functions) {
      const logical = idOf(fn);
      const named = senders.find((s) => s.id === id)?.names ?? [];
      // CDK may merge the grants of several queues into one statement: compare the queues, not the statements
      // (a stream worker's failed batches go to the stream-failures queue: its event source's grant, not a need)
      const streamFailures = { 'Fn::GetAtt': [idOf(stack.workers.streamFailures), 'Arn'] };
      const sendTo = policiesOf(logical)
        .filter((st) => [st.Action].flat().includes('sqs:SendMessage'))
        .flatMap((st) => [st.Resource].flat())
        .filter((arn) => JSON.stringify(arn) !== JSON.stringify(streamFailures));
      expect(sendTo).toHaveLength(named.length);
      expect(sendTo).toEqual(
        expect.arrayContaining(named.map((name) => ({ 'Fn::GetAtt': [idOf(stack.queues.get(name)!.queue), 'Arn'] }))),
      );
      const variables = resources[logical].Properties.Environment.Variables;
      for (const name of named)
        expect(variables[queueUrlVariable(name)]).toEqual({ Ref: idOf(stack.queues.get(name)!.queue) });
      // and no other queue's URL, but a queue worker's own
      const trigger = workers.find((w) => workerFunctionId(w.name) === id)?.trigger;
      const known = [...named, ...(trigger?.kind === 'queue' ? [trigger.queue] : [])].map(queueUrlVariable);
      expect(
        Object.keys(variables)
          .filter((v) => v.startsWith('QUEUE_URL_'))
          .sort(),
      ).toEqual([...new Set(known)].sort());
    }
  });
});

describe('EmailService SES permissions', () => {
  const { stack, template, resources } = synthesized();
  const idOf = (fnId: string) =>
    Stack.of(stack.functions.get(fnId)!).getLogicalId(stack.functions.get(fnId)!.node.defaultChild as CfnElement);
  const sesStatements = (fnId: string) => {
    const roleId = resources[idOf(fnId)].Properties.Role['Fn::GetAtt'][0];
    return Object.values(resources)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
      )
      .flatMap(
        (r) =>
          r.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Effect: string }[],
      )
      .filter((st) => [st.Action].flat().some((a) => a.startsWith('ses:')));
  };
  const declared = [
    ...routes.map((r) => ({ fnId: functionName(r), ses: r.needs.ses ?? [] })),
    { fnId: functionName(fallbackRoute), ses: [] as readonly string[] },
    ...workers.map((w) => ({ fnId: workerFunctionId(w.name), ses: w.needs.ses ?? [] })),
  ];

  /** An ARN of the template as text: `arn:<AWS::Partition>:ses:ap-southeast-2:<AWS::AccountId>:identity/*`. */
  const arnText = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const v = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string };
    if (v['Fn::Join']) return v['Fn::Join'][1].map(arnText).join(v['Fn::Join'][0]);
    if (v.Ref) return `<${v.Ref}>`;
    return JSON.stringify(value);
  };
  const identities = 'arn:<AWS::Partition>:ses:ap-southeast-2:<AWS::AccountId>:identity/*';
  const configurationSets = 'arn:<AWS::Partition>:ses:ap-southeast-2:<AWS::AccountId>:configuration-set/es-*';
  const tenants = 'arn:<AWS::Partition>:ses:ap-southeast-2:<AWS::AccountId>:tenant/es-*';
  const reputationPolicies = 'arn:<AWS::Partition>:ses:ap-southeast-2:aws:reputation-policy/*';

  it.each(declared.map((d) => [d.fnId, d] as const))(
    '%s: exactly the SES actions it declares, each on its resources only',
    (_id, { fnId, ses }) => {
      const statements = sesStatements(fnId);
      expect(statements.flatMap((st) => [st.Action].flat()).sort()).toEqual([...ses].sort());
      for (const statement of statements) {
        expect(statement.Effect).toBe('Allow');
        const resources = [statement.Resource].flat().map(arnText).sort();
        for (const action of [statement.Action].flat()) {
          if (action === 'ses:GetAccount')
            expect(resources).toEqual(['*']); // no resource type
          else if (action === 'ses:SendEmail')
            expect(resources).toEqual([configurationSets, identities, tenants]); // a send names the project's tenant
          else if (action === 'ses:CreateTenantResourceAssociation')
            expect(resources).toEqual([configurationSets, identities, tenants]);
          else if (action === 'ses:UpdateReputationEntityPolicy')
            expect(resources).toEqual([tenants, reputationPolicies]);
          else if (action === 'ses:GetReputationEntity')
            expect(resources).toEqual([tenants]); // GET /project: the tenant's
          else if (action.includes('Tenant') || action === 'ses:TagResource')
            expect(resources).toEqual([tenants]); // TagResource: the tag CreateTenant carries
          else if (action.includes('ConfigurationSet')) expect(resources).toEqual([configurationSets]);
          else expect(resources).toEqual([configurationSets, identities]);
        }
      }
    },
  );

  it('gives the domain routes the SES calls they make, and nothing SES to the rest', () => {
    expect(sesStatements('PostDomains').flatMap((st) => [st.Action].flat())).toEqual(
      expect.arrayContaining([
        'ses:CreateEmailIdentity',
        'ses:CreateConfigurationSet',
        'ses:PutEmailIdentityMailFromAttributes',
        'ses:CreateTenant',
        'ses:TagResource',
        'ses:CreateTenantResourceAssociation',
      ]),
    );
    // the tenants' reputation policy, from context (standard by default)
    const postDomains = resources[idOf('PostDomains')].Properties.Environment.Variables;
    expect(postDomains.SES_TENANT_REPUTATION_POLICY).toBe('standard');
    expect(sesStatements('PostDomainsDomainIdVerify').flatMap((st) => [st.Action].flat())).toEqual([
      'ses:GetEmailIdentity',
    ]);
    expect(sesStatements('GetDomains')).toEqual([]);
    expect(sesStatements('PostSegments')).toEqual([]);
  });

  it('checks pending domains every minute from an EventBridge rule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: Match.arrayWith([
        Match.objectLike({ Arn: { 'Fn::GetAtt': [idOf(workerFunctionId('domain-verification')), 'Arn'] } }),
      ]),
    });
  });
});

describe('EmailService SES events topic', () => {
  const { stack, template, resources } = synthesized();
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const topicId = idOf(stack.sesEventsTopic);

  it('is encrypted with a key SES may use, TLS only, and only SES of this account may publish', () => {
    expect(resources[topicId].Properties.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
  });

  it.each(sesEventSubscriptions.map((s) => [s.queue, s] as const))(
    'feeds the %s queue with the same body filter as the local runtime',
    (_name, subscription) => {
      const props: Record<string, unknown> = {
        Protocol: 'sqs',
        TopicArn: { Ref: topicId },
        Endpoint: { 'Fn::GetAtt': [idOf(stack.queues.get(subscription.queue)!.queue), 'Arn'] },
      };
      if (subscription.bodyFilter)
        Object.assign(props, {
          FilterPolicyScope: 'MessageBody',
          FilterPolicy: { eventType: [...subscription.bodyFilter.eventType] },
        });
      template.hasResourceProperties('AWS::SNS::Subscription', props);
    },
  );

  it('tells the functions that make event destinations where the topic is', () => {
    for (const [id, fn] of stack.functions) {
      const variables = resources[idOf(fn)].Properties.Environment.Variables;
      const route = routes.find((r) => functionName(r) === id);
      const makesDestinations = !!route?.needs.ses?.some((a) => a.endsWith('ConfigurationSetEventDestination'));
      expect(variables.SES_EVENTS_TOPIC_ARN === undefined).toBe(!makesDestinations);
    }
  });
});

/** Route functions may live in nested stacks: each function read in its own stack's template. */
function functionTemplates(stack: Stack & { functions: Map<string, Construct> }, resources: Record<string, Resource>) {
  const templates = new Map<Stack, Record<string, Resource>>();
  const resourcesOf = (construct: Construct) => {
    const owner = Stack.of(construct);
    if (!templates.has(owner))
      templates.set(owner, owner === stack ? resources : Template.fromStack(owner).toJSON().Resources);
    return templates.get(owner)!;
  };
  const functionResource = (fnId: string) => {
    const fn = stack.functions.get(fnId)!;
    return resourcesOf(fn)[Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement)];
  };
  return { resourcesOf, functionResource };
}

describe('EmailService inbound mail', () => {
  const { stack, template, resources } = synthesized();
  const idOf = (construct: { node: { defaultChild?: unknown } }) =>
    stack.getLogicalId(construct.node.defaultChild as CfnElement);
  const bucketId = idOf(stack.inbound.bucket);
  const topicId = idOf(stack.inbound.topic);
  const { queue, dlq } = stack.queues.get(INBOUND_QUEUE)!;
  const { resourcesOf, functionResource } = functionTemplates(stack, resources);
  /** The S3 actions of the function's role on one bucket (its resource names the bucket's construct: `InboundMail` or `Content`). */
  const s3Actions = (fnId: string, bucket = 'InboundMail') => {
    const own = resourcesOf(stack.functions.get(fnId)!);
    const roleId = functionResource(fnId).Properties.Role['Fn::GetAtt'][0];
    return Object.values(own)
      .filter(
        (r) => r.Type === 'AWS::IAM::Policy' && r.Properties.Roles.some((ref: { Ref: string }) => ref.Ref === roleId),
      )
      .flatMap((r) => r.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((st) => JSON.stringify(st.Resource).includes(bucket))
      .flatMap((st) => [st.Action].flat())
      .filter((a) => a.startsWith('s3:'))
      .sort();
  };

  it('keeps raw messages in an encrypted, private, TLS-only bucket that expires them after 30 days, retained with the stack', () => {
    expect(resources[bucketId]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: { Rules: [expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 30 })] },
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 's3:PutObject',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
  });

  it('takes the retention from the inboundRetentionDays context', () => {
    const custom = synthesizedTuned().template; // inboundRetentionDays: 90
    custom.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 90 })] },
    });
    expect(() => buildApp({ bundle: false, context: { inboundRetentionDays: 'soon' } })).toThrow(
      /inboundRetentionDays/,
    );
  });

  it('receives with an SES receipt rule that scans for spam and viruses, stores the raw message and notifies the inbound topic', () => {
    template.resourceCountIs('AWS::SES::ReceiptRuleSet', 1);
    template.hasResourceProperties('AWS::SES::ReceiptRule', {
      RuleSetName: { Ref: idOf(stack.inbound.ruleSet) },
      Rule: {
        Enabled: true,
        ScanEnabled: true,
        Actions: [
          {
            S3Action: {
              BucketName: { Ref: bucketId },
              ObjectKeyPrefix: INBOUND_RAW_PREFIX,
              TopicArn: { Ref: topicId },
            },
          },
        ],
      },
    });
    const [, rule] = Object.entries(resources).find(([, r]) => r.Type === 'AWS::SES::ReceiptRule')!;
    expect(rule.Properties.Rule.Recipients).toBeUndefined(); // every verified domain; the worker decides per project
    template.hasOutput('ReceiptRuleSetName', { Value: { Ref: idOf(stack.inbound.ruleSet) } });
  });

  it('notifies through an encrypted, TLS-only topic that only SES of this account may publish to, subscribed by the inbound queue', () => {
    expect(resources[topicId].Properties.KmsMasterKeyId).toBeDefined();
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'ses.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'sqs',
      TopicArn: { Ref: topicId },
      Endpoint: { 'Fn::GetAtt': [idOf(queue), 'Arn'] },
    });
  });

  it('feeds the inbound worker from its queue, with a DLQ and an alarm on it', () => {
    const fnId = idOf(stack.functions.get(workerFunctionId('inbound'))!);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [idOf(queue), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resources[idOf(queue)].Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [idOf(dlq), 'Arn'] },
      maxReceiveCount: 5,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [idOf(dlq), 'QueueName'] } }],
      Threshold: 0,
    });
  });

  it('lets the workers read and write the bucket, the receiving and inbox routes and the webhook dispatcher only read it, the test-mode sender only put its loopback mail, and nobody else (the live senders included) touch it', () => {
    const routeReaders = routes.filter((r) => r.needs.inboundBucket).map((r) => functionName(r));
    // the received emails' (3) and the inboxes' that read bodies, attachments or the search index (4)
    expect(routeReaders).toHaveLength(7);
    // the dispatcher presigns large received bodies for webhooks with include_content (shared/receiving/webhook-content.ts)
    const readers = [...routeReaders, workerFunctionId('webhook-dispatcher')];
    const senders = ['test-sender'].map(workerFunctionId);
    for (const id of senders) expect(s3Actions(id)).toEqual(['s3:PutObject']);
    const worker = workerFunctionId('inbound');
    expect(s3Actions(worker)).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    // the inbox search index: a new object per version, the old one deleted (shared/inboxes/search.ts)
    const indexer = workerFunctionId('inbox-index');
    expect(s3Actions(indexer)).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject']);
    expect(functionResource(worker).Properties.Environment.Variables).toMatchObject({
      INBOUND_BUCKET: { Ref: bucketId },
      INBOUND_RETENTION_DAYS: '30',
    });
    for (const id of stack.functions.keys()) {
      const variables = functionResource(id).Properties.Environment.Variables;
      if (readers.includes(id)) {
        expect(s3Actions(id)).toEqual(['s3:GetObject', 's3:ListBucket']); // ListBucket: a missing object is a 404, not a 403
        expect(variables.INBOUND_BUCKET).toBeDefined();
      } else if (id !== worker && id !== indexer && !senders.includes(id)) {
        expect(s3Actions(id)).toEqual([]);
        expect(variables.INBOUND_BUCKET).toBeUndefined();
      }
    }
  });
});

describe('EmailService send queues sized by the send rate', () => {
  /** The event source mapping of a worker's function. */
  const mapping = ({ resources, stack }: Synthesized, worker: string) => {
    const fnId = stack.getLogicalId(stack.functions.get(workerFunctionId(worker))!.node.defaultChild as CfnElement);
    return Object.values(resources).find(
      (r) => r.Type === 'AWS::Lambda::EventSourceMapping' && r.Properties.FunctionName?.Ref === fnId,
    )!.Properties;
  };

  it("gives both senders a second of sends in flight at SES's usual 14/s by default, and more for a faster account (context sesSendRate)", () => {
    const usual = synthesized();
    for (const worker of ['sender', 'bulk-sender'])
      expect(mapping(usual, worker)).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 2 } });
    const fast = synthesizedTuned(); // sesSendRate: 500
    expect(mapping(fast, 'sender')).toMatchObject({ BatchSize: 10, ScalingConfig: { MaximumConcurrency: 50 } });
    const sandbox = synth({ bundle: false, context: { ...cdkJsonContext, sesSendRate: 1 } });
    expect(mapping(sandbox, 'sender')).toMatchObject({ BatchSize: 1, ScalingConfig: { MaximumConcurrency: 2 } });
  });
});

describe('EmailService content bucket', () => {
  const { stack, resources } = synthesized();
  const bucketId = stack.getLogicalId(stack.content.bucket.node.defaultChild as CfnElement);
  const { resourcesOf, functionResource } = functionTemplates(stack, resources);

  it("keeps each email's content in an encrypted, private, TLS-only bucket that expires it after the retention and the scheduling window, and contact import files, unused uploads among them, after a day", () => {
    expect(resources[bucketId]).toMatchObject({
      DeletionPolicy: 'Retain',
      Properties: {
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: {
          Rules: [
            expect.objectContaining({ ExpirationInDays: 61, Status: 'Enabled' }),
            expect.objectContaining({ Prefix: 'imports/', ExpirationInDays: 1, Status: 'Enabled' }),
          ],
        },
      },
    });
  });

  it('tells exactly the functions that declare it the bucket and the retention', () => {
    const declaring = new Set([
      ...routes.filter((r) => r.needs.contentBucket).map((r) => functionName(r)),
      ...workers.filter((w) => w.needs.contentBucket).map((w) => workerFunctionId(w.name)),
    ]);
    expect([...declaring].sort()).toEqual(
      [
        'AttachmentFetcherWorker', // reads an email's content, stores its fetched attachments
        'AutomationStepsWorker', // a send_email step stores its email's content, as POST /emails does
        'BroadcastFanoutWorker',
        'BulkSenderWorker',
        'ContactImportsWorker', // reads the import's file
        'GetEmailsEmailId',
        'GetEmailsEmailIdAttachments',
        'GetEmailsEmailIdAttachmentsAttachmentId',
        'GetShareToken', // a share link's page shows its email's html or text
        'PostContactsImports', // stores the import's file, or reads an uploaded one's header
        'PostContactsImportsUploads', // signs the upload URL of an import's file
        'PostEmails',
        'PostEmailsBatch',
        'PostEmailsEmailIdRetry',
        'SenderWorker',
        'TestSenderWorker', // stores a test-mode email's rendered message
        // inboxes: an outbound message's body is its email's content; replies, forwards and drafts sent store theirs;
        // a draft's files; the search index reads the bodies it indexes
        'GetInboxesInboxIdThreadsSearch',
        'GetInboxesInboxIdThreadsThreadIdEmails',
        'GetInboxesInboxIdThreadsThreadIdEmailsEmailId',
        'PostInboxesInboxIdThreadsThreadIdEmailsEmailIdReply',
        'PostInboxesInboxIdThreadsThreadIdEmailsEmailIdForward',
        'PostInboxesInboxIdDrafts',
        'PatchInboxesInboxIdDraftsDraftId',
        'PostInboxesInboxIdDraftsDraftIdSend',
        'InboxIndexWorker',
      ].sort(),
    );
    for (const id of stack.functions.keys()) {
      const variables = functionResource(id).Properties.Environment.Variables;
      if (declaring.has(id))
        expect(variables).toMatchObject({ CONTENT_BUCKET: expect.anything(), EMAIL_RETENTION_DAYS: '30' });
      else expect(variables.CONTENT_BUCKET).toBeUndefined();
    }
  });

  it('lets every function that reads the bucket list it (S3 answers a missing key 403 without), and no writer', () => {
    const listing = (access: string) =>
      [
        ...routes.map((r) => [functionName(r), r.needs.contentBucket] as const),
        ...workers.map((w) => [workerFunctionId(w.name), w.needs.contentBucket] as const),
      ]
        .filter(([, a]) => a === access)
        .map(([id]) => id);
    const listStatements = (id: string) =>
      Object.values(resourcesOf(stack.functions.get(id)!))
        .filter(
          (r) =>
            r.Type === 'AWS::IAM::Policy' &&
            r.Properties.Roles.some(
              (ref: { Ref: string }) => ref.Ref === functionResource(id).Properties.Role['Fn::GetAtt'][0],
            ),
        )
        .flatMap(
          (r) =>
            r.Properties.PolicyDocument.Statement as {
              Action: string | string[];
              Resource: unknown;
              Condition?: unknown;
            }[],
        )
        .filter((st) => [st.Action].flat().includes('s3:ListBucket'));
    expect(listing('read')).toContain('GetEmailsEmailIdAttachments');
    for (const id of [...listing('read'), ...listing('read-write')]) {
      const [statement, ...more] = listStatements(id);
      expect({ id, more, action: statement?.Action, condition: statement?.Condition }).toEqual({
        id,
        more: [],
        action: 's3:ListBucket',
        condition: undefined,
      });
      expect(JSON.stringify(statement.Resource)).toMatch(/ContentBucket[^/]*Arn/); // the bucket itself, not its objects
    }
    for (const id of listing('write')) expect(listStatements(id)).toEqual([]);
  });
});
