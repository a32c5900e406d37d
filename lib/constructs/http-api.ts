/**
 * The HTTP API of the route table (functions/routes.ts): one function and one route per entry,
 * the fallback function on `$default`, and the `$default` stage with a JSON access log line per
 * request.
 *
 * The route functions live in nested stacks, one per resource (the handler's folder, e.g.
 * `ContactsRoutes`): each route costs about 7 resources (function, role, policy, log group,
 * integration, route, permission) and CloudFormation allows 500 per stack, so one stack would
 * stop at ~60 routes. The fallback stays in the parent stack.
 */
import { CfnOutput, CfnParameter, Duration, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { routeMemoryMb } from '../../functions/needs';
import { fallbackRoute, functionName, routeNeeds, routes, routeTimeoutSeconds } from '../../functions/routes';
import { inboxForwardingDomain, reportsDomain, wholeNumberFromContext } from '../context';
import { DEFAULT_API_RATE_LIMIT } from '../../shared/project/model';
import type { FunctionFactory } from './function-factory';

export interface ServiceApiProps {
  /** makes each route's function with its grants */
  functions: FunctionFactory;
}

export class ServiceApi extends Construct {
  readonly httpApi: apigw.HttpApi;
  /** The endpoint without the stage's trailing slash: clients append paths that start with '/'. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    // `$default` catches what no route matches, so unknown routes get our 404/405 envelope
    // instead of API Gateway's own `{"message":"Not Found"}`.
    const fallback = props.functions.makeFunction(this, functionName(fallbackRoute), {
      handler: fallbackRoute.handler,
      needs: routeNeeds(fallbackRoute),
      memoryMb: routeMemoryMb(fallbackRoute),
    });
    // 'Default': the API is this construct's own resource, so its logical id reads `Api...`, not `ApiDefault...`
    this.httpApi = new apigw.HttpApi(this, 'Default', {
      apiName: id,
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
      // The default stage is made below: HttpApi cannot give its own one access logging.
      createDefaultStage: false,
    });

    // The URL clients and the links in sent mail use: the custom domain when there is one, so an
    // unsubscribe link keeps working if the API is ever replaced (its execute-api host would change).
    const domain = customDomain(this);
    this.url = domain ? `https://${domain.name}` : this.httpApi.apiEndpoint;

    // Every project's API rate limit unless set per project (shared/project/settings.ts): a stack parameter, so an operator changes it with a deploy
    const rateLimit = new CfnParameter(Stack.of(this), 'ApiRateLimitPerSecond', {
      type: 'Number',
      default: DEFAULT_API_RATE_LIMIT,
      minValue: 1,
      description:
        'API requests a second per project, for projects without a limit of their own (npm run project -- limits)',
    });
    const nestedStacks: NestedStack[] = [];
    for (const [group, groupRoutes] of routeGroups()) {
      const nested = new NestedStack(this, `${functionName({ handler: group })}Routes`, {
        description: `The ${group} routes of the HTTP API`,
      });
      nestedStacks.push(nested);
      for (const route of groupRoutes) {
        const fnId = functionName(route);
        const fn = props.functions.makeFunction(nested, fnId, {
          handler: route.handler,
          needs: routeNeeds(route),
          timeout: Duration.seconds(routeTimeoutSeconds(route)),
          memoryMb: routeMemoryMb(route),
          consoleAssets: route.consoleAssets,
        });
        if (route.publicApiUrl) fn.addEnvironment('PUBLIC_API_URL', this.url);
        const forwarding = inboxForwardingDomain(this);
        if (route.forwardingDomain && forwarding) fn.addEnvironment('INBOX_FORWARDING_DOMAIN', forwarding);
        const reports = reportsDomain(this);
        if (route.reportsDomain && reports) fn.addEnvironment('REPORTS_DOMAIN', reports);
        if (route.operation.auth === 'api_key') fn.addEnvironment('API_RATE_LIMIT_PER_SECOND', rateLimit.valueAsString);
        new apigw.HttpRoute(nested, `${fnId}Route`, {
          httpApi: this.httpApi,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
          integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
        });
      }
    }

    const stage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // The whole API's ceiling, so no client can take the account's Lambda concurrency (about
      // rate x latency functions at once) from the workers: per-project limits are the service's own.
      throttle: apiThrottle(this),
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(
          new logs.LogGroup(this, 'AccessLogs', {
            retention: logs.RetentionDays.ONE_MONTH,
            removalPolicy: RemovalPolicy.DESTROY,
          }),
        ),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    // The routes without a key are counted by no project: each has a throttle of its own (all clients together)
    (stage.node.defaultChild as apigw.CfnStage).routeSettings = Object.fromEntries(
      routes
        .filter((route) => route.operation.auth === 'none')
        .map((route) => {
          const { rateLimit, burstLimit } = publicRouteThrottle(route.path);
          // RouteSettings is plain JSON to CDK: written as CloudFormation spells its keys
          return [
            `${route.method} ${route.path}`,
            { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
          ];
        }),
    );
    for (const nested of nestedStacks) stage.node.addDependency(nested); // route settings name routes: they must exist first
    if (domain) {
      const domainName = new apigw.DomainName(this, 'CustomDomain', {
        domainName: domain.name,
        certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      });
      new apigw.ApiMapping(this, 'CustomDomainMapping', { api: this.httpApi, domainName, stage });
      new CfnOutput(Stack.of(this), 'ApiDomainTarget', {
        value: domainName.regionalDomainName,
        description: `Point ${domain.name} here: a CNAME, or a Route 53 alias to this name with the zone ApiDomainHostedZoneId`,
      });
      new CfnOutput(Stack.of(this), 'ApiDomainHostedZoneId', {
        value: domainName.regionalHostedZoneId,
        description: 'For a Route 53 alias record to ApiDomainTarget',
      });
    }
  }
}

/**
 * The throttle of a route without a key. HTTP APIs throttle per route and stage, not per client
 * (and AWS WAF does not attach to them: a per-IP limit needs CloudFront with WAF in front), so
 * these bound what all anonymous clients together can make the functions do: unsubscribe links
 * get more (mail scanners open them as a broadcast is delivered), the rest little.
 */
export function publicRouteThrottle(path: string): { rateLimit: number; burstLimit: number } {
  // the console's page and assets: a few files per visit, from people at work in it
  if (path === '/dashboard' || path.startsWith('/dashboard/')) return { rateLimit: 50, burstLimit: 100 };
  return path.startsWith('/unsubscribe/') ? { rateLimit: 100, burstLimit: 200 } : { rateLimit: 20, burstLimit: 40 };
}

/**
 * The API's custom domain, from CDK context: `apiDomainName` (e.g. `email-api.example.com`) and
 * `apiCertificateArn`, an ACM certificate for it in the stack's region (a regional API's certificate
 * must be in its region). Both or neither.
 */
export function customDomain(scope: Construct): { name: string; certificateArn: string } | undefined {
  const name = scope.node.tryGetContext('apiDomainName');
  const certificateArn = scope.node.tryGetContext('apiCertificateArn');
  if (name === undefined && certificateArn === undefined) return undefined;
  if (typeof name !== 'string' || !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/.test(name))
    throw new Error(`apiDomainName must be a domain name, got ${JSON.stringify(name)}`);
  const region = Stack.of(scope).region;
  if (
    typeof certificateArn !== 'string' ||
    certificateArn.split(':')[3] !== region ||
    !/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/.test(certificateArn)
  ) {
    throw new Error(
      `apiCertificateArn must be an ACM certificate ARN in ${region}, the stack's region (a regional API's certificate is in its region), got ${JSON.stringify(certificateArn)}`,
    );
  }
  return { name, certificateArn };
}

/** The stage's throttle: CDK context `apiRateLimit` (requests a second, default 200) and `apiBurstLimit` (default 400). */
export function apiThrottle(scope: Construct): { rateLimit: number; burstLimit: number } {
  return {
    rateLimit: wholeNumberFromContext(scope, 'apiRateLimit', 200, 1),
    burstLimit: wholeNumberFromContext(scope, 'apiBurstLimit', 400, 1),
  };
}

/** The routes by resource (the folder of their handler, e.g. `contacts`), in route-table order. */
function routeGroups(): Map<string, (typeof routes)[number][]> {
  const groups = new Map<string, (typeof routes)[number][]>();
  for (const route of routes) {
    const group = route.handler.split('/')[0];
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  return groups;
}

/**
 * One JSON object per request, so CloudWatch Logs Insights can filter on fields; `requestId`
 * is the id our error envelope reports, which ties an access line to the function's logs.
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
};
