/**
 * The local runtime behind `npm start`: every AWS service the stack uses, stood in for on this
 * machine, in one process tree.
 *
 * | AWS                      | here                                                            |
 * |--------------------------|-----------------------------------------------------------------|
 * | DynamoDB (+ streams)     | DynamoDB Local (java child process), table from lib/table-definition.ts |
 * | SQS                      | local/aws/sqs.ts, in process, its queues journaled under DATA_DIR/sqs; queues from functions/workers.ts |
 * | SES v2                   | local/aws/ses-front.ts (identities, configuration sets, account, send rate) in front of aws-ses-v2-local (stores mail, mail viewer) |
 * | SES events -> SNS -> SQS | local/aws/ses-events.ts: mailbox-simulator events in SNS envelopes onto the subscribed queues |
 * | SES receiving + S3       | local/aws/smtp-inbound.ts (SMTP on loopback) writes into the folder local/aws/s3.ts serves as the inbound bucket, and queues SES's notification |
 * | KMS (the secrets key)    | local/aws/kms.ts: GenerateDataKey, Decrypt, its key material under DATA_DIR/kms |
 * | EventBridge Scheduler    | local/aws/scheduler.ts: one-time schedules onto the local SQS, on the runtime's clock, journaled under DATA_DIR/scheduler |
 * | DNS (TXT, MX lookups)    | local/aws/dns.ts: an authoritative DNS server on loopback (UDP and TCP, DNS_SERVER) answering from DATA_DIR/dns/txt.json and mx.json, which the control API writes |
 * | IAM credentials          | local/aws/credentials.ts: one random access key per DATA_DIR (DATA_DIR/credentials.json, 0600); every stand-in but DynamoDB Local checks SigV4 against it |
 * | API Gateway + Lambda     | local/lambda/http-gateway.ts -> the same handler modules           |
 * | event source mappings    | queue and stream pollers with Lambda's batch semantics          |
 *
 * Handlers reach the stand-ins only through AWS_ENDPOINT_URL_* and TABLE_NAME, set here before
 * any handler module is loaded; no handler knows it runs locally.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueNameExists,
  SetQueueAttributesCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { LOCAL_TABLE_NAME } from '../lib/table-definition';
import { DNS_SERVER } from '../shared/platform/net/dns';
import { ensureTable, startDynamoDbLocal, type DynamoDbLocal } from './aws/dynamodb';
import { lockDataDir, type DataDirLock } from './data-dir-lock';
import { loadHandler, type AnyHandler } from './lambda/handlers';
import { invoke, workerFunction, type FunctionIdentity } from './lambda/invocation';
import { freePort } from './ports';
import { QueuePoller } from './lambda/queue-poller';
import { LOCAL_SES_EVENTS_TOPIC_ARN } from './aws/ses-events';
import { startLocalSes } from './aws/local-ses';
import { startLocalKms } from './aws/kms';
import { startLocalScheduler } from './aws/scheduler';
import { startLocalS3 } from './aws/s3';
import { standInCredentials, type StandInCredentials } from './aws/credentials';
import { installObjectLookup } from './lambda/needs';
import { LOCAL_ACCOUNT_ID, startLocalSqs, type LocalSqs } from './aws/sqs';
import type { RunNow, Watched } from './control';
import { startSmtpInbound } from './aws/smtp-inbound';
import { startLocalDns } from './aws/dns';
import type { LocalSettings } from './settings';
import { StreamPoller } from './lambda/stream-poller';
import type { FilterPattern } from './lambda/event-filter';
import { watchEventLoop } from './event-loop-watch';
import { LocalClock } from './clock';
import { setClockSource } from '../shared/platform/clock';
import { LOCAL_INBOX_FORWARDING_DOMAIN, LOCAL_REGION, LOCAL_REPORTS_DOMAIN } from './settings';
import { AUTOMATION_STEPS_QUEUE } from '../functions/workers';
import { SCHEDULE_VARIABLES } from '../shared/platform/aws/schedule-target';
import { sdkLogger } from '../shared/platform/aws/sdk-logger';

export interface LocalRuntime {
  apiUrl: string;
  mailViewerUrl: string;
  dynamoDbEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  /** the inbound bucket's stand-in (AWS_ENDPOINT_URL_S3) */
  s3Endpoint: string;
  /** EventBridge Scheduler's stand-in (AWS_ENDPOINT_URL_SCHEDULER) */
  schedulerEndpoint: string;
  /** inbound mail: SMTP on 127.0.0.1 */
  smtpPort: number;
  tableName: string;
  streamArn: string;
  projectId: string;
  /** the plain key when this start created or provisioned one */
  apiKey?: string;
  /** the access key every stand-in checks signatures against (DATA_DIR/credentials.json) */
  credentials: StandInCredentials;
  stop(): Promise<void>;
}

/** Written to DATA_DIR so the API-key CLI (and scripts) can find a running local runtime. */
export const RUNTIME_FILE = 'runtime.json';
/** The inbound bucket's name locally (a folder under DATA_DIR/s3). */
export const LOCAL_INBOUND_BUCKET = 'email-service-inbound';
/** The content bucket's name locally (emails' content, shared/emails/content.ts; no lifecycle expiry locally). */
export const LOCAL_CONTENT_BUCKET = 'email-service-content';
/** The schedule group locally (SCHEDULE_GROUP_NAME), made at every start. */
export const LOCAL_SCHEDULE_GROUP = 'email-service';
/** The role the local schedules name as their target's (SCHEDULE_ROLE_ARN): the grants check compares with it; nothing assumes it. */
export const localScheduleRoleArn = () => `arn:aws:iam::${LOCAL_ACCOUNT_ID}:role/email-service-scheduler`;

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections?.();
  });

/**
 * Code that serves the stand-ins' requests in this process (third-party stand-ins and our own
 * fronts). An error thrown there outside any handler is logged and the runtime keeps serving: no
 * request to any port may stop it (aws-ses-v2-local answers some requests twice, and the second
 * answer throws; one `GET /get-emlContent` of an unknown message stopped the whole runtime).
 */
const STAND_IN_CODE = /[\\/](node_modules[\\/](aws-ses-v2-local|express|smtp-server|postal-mime)|local[\\/]aws)[\\/]/;
/** How long a stop after an uncaught error of our own may take before the process exits anyway. */
const CRASH_STOP_DEADLINE_MS = 7000;

/**
 * The last resort for errors nothing caught (process-wide `uncaughtException` and
 * `unhandledRejection`): one raised in a stand-in's code is logged and the runtime keeps serving;
 * any other is a bug of ours and ends the process as a crash would (exit code 1), but only after
 * the runtime stopped (DynamoDB Local's JVM, DATA_DIR's lock). Answers the function that removes it.
 */
function lastResort(stop: () => Promise<void>, log: (line: string) => void): () => void {
  const onError = (kind: string) => (error: unknown) => {
    const detail = (error instanceof Error && error.stack) || String(error);
    if (STAND_IN_CODE.test(detail)) {
      log(
        JSON.stringify({
          level: 'ERROR',
          message: `${kind} in a stand-in's code; the local runtime keeps serving`,
          error: detail,
        }),
      );
      return;
    }
    log(JSON.stringify({ level: 'FATAL', message: `${kind}: stopping the local runtime`, error: detail }));
    setTimeout(() => process.exit(1), CRASH_STOP_DEADLINE_MS).unref();
    void stop().finally(() => process.exit(1));
  };
  const onException = onError('uncaught exception');
  const onRejection = onError('unhandled rejection');
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

/** What the runtime tells its starter besides its log lines. */
export interface RuntimeObserver {
  /** each API request once answered (local/terminal-log.ts prints it) */
  onRequest?: (method: string, path: string, status: number, ms: number) => void;
}

export async function startLocalRuntime(
  settings: LocalSettings,
  log: (line: string) => void = console.log,
  observer: RuntimeObserver = {},
): Promise<LocalRuntime> {
  const cleanups: (() => Promise<void>)[] = [];
  let lock: DataDirLock | undefined;
  const stop = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
    lock?.release(); // last: DATA_DIR is free once nothing of this runtime uses it
    lock = undefined;
  };
  const removeLastResort = lastResort(stop, log);
  cleanups.push(async () => removeLastResort()); // runs last of all
  try {
    mkdirSync(settings.dataDir, { recursive: true });
    const region = LOCAL_REGION;
    // The service's time (LOCAL_CLOCK, ./clock.ts): every handler and stand-in reads it from here on.
    const clock = new LocalClock(settings.clock, settings.inMemory ? undefined : join(settings.dataDir, 'clock.json'));
    setClockSource(clock.now, { standsStill: clock.mode === 'manual' });
    cleanups.push(async () => setClockSource(Date.now));

    // One runtime per DATA_DIR; a JVM left by one killed hard is stopped first (local/data-dir-lock.ts).
    const databaseDir = settings.inMemory ? undefined : join(settings.dataDir, 'dynamodb');
    lock = await lockDataDir(settings.dataDir, databaseDir, log);
    // The one access key of this DATA_DIR (made on its first start, 0600, local/aws/credentials.ts):
    // every stand-in verifies each request's SigV4 signature against it, and the functions sign with it.
    // DynamoDB Local (Amazon's own server) accepts any credentials.
    const credentials = standInCredentials(settings.dataDir);
    const dynamo: DynamoDbLocal = await startDynamoDbLocal({
      port: settings.dynamoDbPort || freePort,
      dataDir: databaseDir,
    });
    cleanups.push(() => dynamo.stop());
    lock.recordJvm(dynamo.process.pid!, dynamo.port);
    const dynamoClient = new DynamoDBClient({ endpoint: dynamo.endpoint, region, credentials, logger: sdkLogger });
    const streamArn = await ensureTable(dynamoClient, LOCAL_TABLE_NAME);

    // Every Node server of the runtime not given a port listens on port 0: the kernel picks one in
    // the same call that binds it, so two runtimes started at once (the test suites) never race for one.
    // The queues and their messages survive a restart (and a kill) under DATA_DIR/sqs.
    const sqs = await startLocalSqs({
      dir: settings.inMemory ? undefined : join(settings.dataDir, 'sqs'),
      port: settings.sqsPort,
      region,
      credentials,
      clock: { now: clock.now, manual: clock.mode === 'manual' },
    });
    clock.addSource({ nextDue: (now) => sqs.nextDue(now) });
    clock.onMoved(() => sqs.tick());
    cleanups.push(() => sqs.close());
    const { port: sqsPort, endpoint: sqsEndpoint } = sqs;

    // The local SES and its mail viewer (./aws/local-ses.ts): after the queues its events go to.
    const ses = await startLocalSes({ settings, clock, credentials, region, sqsEndpoint, log, cleanups, closeServer });
    const { endpoint: sesEndpoint, mailViewerUrl } = ses;

    // The inbound mail and content buckets: folders under DATA_DIR, served over S3's HTTP API; the
    // presigned URLs handlers sign with these credentials are checked as S3 checks them.
    const s3 = await startLocalS3(join(settings.dataDir, 's3'), {
      credentials,
      buckets: [LOCAL_INBOUND_BUCKET, LOCAL_CONTENT_BUCKET],
    });
    cleanups.push(() => closeServer(s3.server));
    installObjectLookup(s3.root); // S3's 403 for a missing key to a function that may not list the bucket
    // The secrets key (sealed webhook secrets, the unsubscribe key): its material stays under DATA_DIR.
    const kms = await startLocalKms(join(settings.dataDir, 'kms'), region, credentials);
    cleanups.push(() => closeServer(kms.server));
    // One-time schedules (the automations' long waits): kept like the queues they deliver to, on the
    // runtime's clock; they start delivering once the queues exist (below).
    const scheduler = await startLocalScheduler({
      dir: settings.inMemory ? undefined : join(settings.dataDir, 'scheduler'),
      region,
      credentials,
      clock,
      sqsEndpoint,
      log,
    });
    cleanups.push(() => scheduler.close());
    scheduler.ensureGroup(LOCAL_SCHEDULE_GROUP);
    // DNS: the functions ask this server as they ask the resolver on AWS; it answers from the files
    // the control API writes, read at every query.
    const dns = await startLocalDns({ txtFile: dnsTxtFile(settings), mxFile: dnsMxFile(settings), log });
    cleanups.push(() => dns.close());

    // The handlers' whole view of "AWS": set before any handler module loads.
    setFunctionEnvironment(settings, {
      region,
      credentials,
      dynamoDbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      sesEndpoint,
      s3Endpoint: s3.endpoint,
      kmsEndpoint: kms.endpoint,
      secretsKeyArn: kms.keyArn,
      schedulerEndpoint: scheduler.endpoint,
      dnsServer: dns.address,
    });
    // The runtime's own ports, which no webhook may reach (shared/platform/net/endpoint.ts); SMTP and the
    // API join them once they listen, before the workers start and the API takes a request.
    const ports: Record<string, number> = {
      dynamodb: dynamo.port,
      sqs: sqsPort,
      ses: ses.port,
      mailViewer: ses.mailViewerPort,
      s3: Number(new URL(s3.endpoint).port),
      kms: Number(new URL(kms.endpoint).port),
      scheduler: scheduler.port,
      dns: dns.port,
    };
    const publishPorts = () => (process.env.LOCAL_RUNTIME_PORTS = Object.values(ports).join(','));
    publishPorts();

    const { provisionDefaultProject } = await import('./bootstrap');
    const provisioned = await provisionDefaultProject(settings.localApiKey);

    const { pollers, watched, schedules } = await createWorkers({
      backlog: (queueName, before) => sqs.backlog(queueName, before),
      sqsEndpoint,
      dynamoEndpoint: dynamo.endpoint,
      region,
      credentials,
      streamArn,
      scheduleIntervalSeconds: settings.scheduleIntervalSeconds,
      clock,
      sendRate: Number(process.env.SEND_RATE_PER_SECOND) || settings.sesMaxSendRate,
      checkpointDir: settings.inMemory ? undefined : join(settings.dataDir, 'streams'),
      log,
    });
    cleanups.push(async () => {
      await Promise.all(pollers.map((p) => p.stop()));
    });
    // Events a send owed when the runtime last stopped (or was killed): their queues exist now.
    ses.publishOwedSinceLastStart();
    // ...and schedules due while it was stopped: delivered now, the rest at their time.
    scheduler.start();

    // After the queues exist: inbound mail over SMTP, on loopback only whatever HOST says.
    const smtp = await startSmtp(settings, s3.root, ses.eventsSqs, log);
    cleanups.push(() => smtp.close());
    ports.smtp = smtp.port;

    // The web console's files, built in process (esbuild, ~0.1 s) where its function reads them (functions/dashboard/serve.ts)
    const { writeDashboard } = await import('../functions/dashboard/build');
    process.env.DASHBOARD_ASSETS_DIR = join(settings.dataDir, 'dashboard');
    rmSync(process.env.DASHBOARD_ASSETS_DIR, { recursive: true, force: true });
    await writeDashboard(process.env.DASHBOARD_ASSETS_DIR);

    const { startHttpGateway } = await import('./lambda/http-gateway');
    const { handleControl } = await import('./control');
    const schedulerWatched: Watched = {
      kind: 'scheduler',
      name: 'scheduler',
      busy: (before) => scheduler.busy(before),
      later: (before) => scheduler.later(before),
      handled: () => scheduler.delivered(),
    };
    const control = {
      watched: [...watched, ses.watched, schedulerWatched],
      schedules,
      clock,
      dnsTxtFile: dnsTxtFile(settings),
      dnsMxFile: dnsMxFile(settings),
    };
    const http = await startHttpGateway(settings.host, settings.port, (method, path, authorization, body) =>
      handleControl(control, method, path, authorization, body),
    );
    cleanups.push(() => closeServer(http));
    if (observer.onRequest) observeRequests(http, observer.onRequest);
    const { port } = http.address() as { port: number };
    ports.api = port;
    publishPorts(); // in the same tick as the listen: no request is served before
    const apiUrl = `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`;
    process.env.PUBLIC_API_URL = apiUrl; // links in emails (unsubscribe); workers read it when they run
    // the inboxes' forwarding addresses (`-c inboxForwardingDomain` on AWS): the local SMTP server takes any recipient
    process.env.INBOX_FORWARDING_DOMAIN ||= LOCAL_INBOX_FORWARDING_DOMAIN;
    // the domains' DMARC and TLS report addresses (`-c reportsDomain` on AWS)
    process.env.REPORTS_DOMAIN ||= LOCAL_REPORTS_DOMAIN;
    for (const poller of pollers) poller.start();
    const loopWatch = watchEventLoop(log);
    cleanups.push(async () => loopWatch.stop());

    const runtimeFile = writeRuntimeFile(settings.dataDir, {
      pid: process.pid,
      apiUrl,
      dynamoDbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      sesEndpoint,
      s3Endpoint: s3.endpoint,
      kmsEndpoint: kms.endpoint,
      secretsKeyArn: kms.keyArn,
      schedulerEndpoint: scheduler.endpoint,
      dnsServer: dns.address,
      scheduleGroup: LOCAL_SCHEDULE_GROUP,
      inboundBucket: LOCAL_INBOUND_BUCKET,
      contentBucket: LOCAL_CONTENT_BUCKET,
      smtpPort: smtp.port,
      mailViewerUrl,
      tableName: LOCAL_TABLE_NAME,
      projectId: provisioned.projectId,
      ports,
    });
    cleanups.unshift(async () => rmSync(runtimeFile, { force: true })); // runs last

    return {
      apiUrl,
      mailViewerUrl,
      dynamoDbEndpoint: dynamo.endpoint,
      sqsEndpoint,
      sesEndpoint,
      s3Endpoint: s3.endpoint,
      schedulerEndpoint: scheduler.endpoint,
      smtpPort: smtp.port,
      tableName: LOCAL_TABLE_NAME,
      streamArn,
      projectId: provisioned.projectId,
      apiKey: provisioned.newKey ?? provisioned.localKey,
      credentials,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** DATA_DIR/runtime.json: where the running runtime's endpoints are, for the CLIs (`npm run api-key`, redrive...) and tests. */
function writeRuntimeFile(dataDir: string, contents: Record<string, unknown>): string {
  const file = join(dataDir, RUNTIME_FILE);
  writeFileSync(file, JSON.stringify(contents, null, 2));
  return file;
}

/** Where the functions find their "AWS": the stand-ins' endpoints and the credentials they check. */
interface FunctionAws {
  region: string;
  credentials: StandInCredentials;
  dynamoDbEndpoint: string;
  sqsEndpoint: string;
  sesEndpoint: string;
  s3Endpoint: string;
  kmsEndpoint: string;
  secretsKeyArn: string;
  schedulerEndpoint: string;
  /** the DNS stand-in, `host:port` */
  dnsServer: string;
}

/**
 * The handlers' whole view of "AWS", in this process's environment (the functions run in it): set
 * before any handler module loads. The credentials as Lambda hands a function its role's (whatever
 * the shell running `npm start` had is replaced).
 */
function setFunctionEnvironment(settings: LocalSettings, aws: FunctionAws): void {
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  Object.assign(process.env, {
    TABLE_NAME: LOCAL_TABLE_NAME,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: aws.dynamoDbEndpoint,
    AWS_ENDPOINT_URL_SQS: aws.sqsEndpoint,
    AWS_ENDPOINT_URL_SESV2: aws.sesEndpoint,
    AWS_ENDPOINT_URL_S3: aws.s3Endpoint,
    AWS_ENDPOINT_URL_KMS: aws.kmsEndpoint,
    SECRETS_KEY_ARN: aws.secretsKeyArn,
    // One-time schedules (shared/platform/aws/scheduler.ts), for every function: they share this
    // process's environment. The grants check still lets only those whose needs declare it call.
    AWS_ENDPOINT_URL_SCHEDULER: aws.schedulerEndpoint,
    [SCHEDULE_VARIABLES.group]: LOCAL_SCHEDULE_GROUP,
    [SCHEDULE_VARIABLES.targetArn]: localQueueArn(aws.region, AUTOMATION_STEPS_QUEUE),
    [SCHEDULE_VARIABLES.roleArn]: localScheduleRoleArn(),
    [SCHEDULE_VARIABLES.dlqArn]: localQueueArn(aws.region, `${AUTOMATION_STEPS_QUEUE}-dlq`),
    INBOUND_BUCKET: LOCAL_INBOUND_BUCKET,
    CONTENT_BUCKET: LOCAL_CONTENT_BUCKET,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // Unless told `false`, webhooks may POST over plain http to loopback receivers, and loopback
    // addresses pass the dispatcher's address check (shared/platform/net/endpoint.ts). Never set on AWS.
    ALLOW_HTTP_LOOPBACK_WEBHOOKS: String(settings.allowHttpLoopbackWebhooks),
    // every project's API rate limit unless it has its own: 1,000 locally unless given (local/settings.ts);
    // a value already in this process's environment stays (the benchmarks set theirs there)
    API_RATE_LIMIT_PER_SECOND: process.env.API_RATE_LIMIT_PER_SECOND || String(settings.apiRateLimitPerSecond),
    // As the stack tells the domain routes: their configuration sets get an SNS event destination
    // (the local SES front records it; every send's events reach the queues either way).
    SES_EVENTS_TOPIC_ARN: LOCAL_SES_EVENTS_TOPIC_ARN,
    // The DNS stand-in (./aws/dns.ts), asked instead of the system's resolver (shared/platform/net/dns.ts)
    [DNS_SERVER]: aws.dnsServer,
  });
}

/** The DNS stand-in's TXT records: DATA_DIR/dns/txt.json (local/control.ts `PUT /_local/dns/txt/<name>`); MX likewise. */
const dnsTxtFile = (settings: LocalSettings) => join(settings.dataDir, 'dns', 'txt.json');
const dnsMxFile = (settings: LocalSettings) => join(settings.dataDir, 'dns', 'mx.json');

/** A queue's ARN as the local SQS names it (local/aws/sqs-queues.ts). */
const localQueueArn = (region: string, queue: string) => `arn:aws:sqs:${region}:${LOCAL_ACCOUNT_ID}:${queue}`;

/** Inbound mail over SMTP; on a taken default port (another runtime, a local MTA), any free one, said out loud. */
async function startSmtp(settings: LocalSettings, s3Root: string, sqs: SQSClient, log: (line: string) => void) {
  const options = { host: '127.0.0.1', port: settings.smtpPort, s3Root, bucket: LOCAL_INBOUND_BUCKET, sqs, log };
  return startSmtpInbound(options).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EADDRINUSE' || settings.smtpPortRequired) throw error;
    const fallback = await startSmtpInbound({ ...options, port: 0 });
    log(
      `Inbound SMTP: port ${settings.smtpPort} is in use, listening on 127.0.0.1:${fallback.port} instead (set LOCAL_SMTP_PORT to choose)`,
    );
    return fallback;
  });
}

/** Tells `onRequest` of each request the gateway answered: the path only (a query may carry a token: unsubscribe links). */
function observeRequests(http: Server, onRequest: NonNullable<RuntimeObserver['onRequest']>): void {
  http.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const started = performance.now();
    response.once('finish', () =>
      onRequest(
        request.method ?? 'GET',
        (request.url ?? '/').split('?')[0],
        response.statusCode,
        Math.round(performance.now() - started),
      ),
    );
  });
}

interface WorkerEnvironment {
  /** the local SQS's count of a queue's messages visible by a time, and after it (the control API's drain) */
  backlog: LocalSqs['backlog'];
  sqsEndpoint: string;
  dynamoEndpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  streamArn: string;
  /** LOCAL_SCHEDULE_INTERVAL_SECONDS: run every schedule this often instead (tests) */
  scheduleIntervalSeconds?: number;
  /** the schedules run on it (a manual clock runs them when it moves) */
  clock: LocalClock;
  /** the account's send rate as the runtime knows it (SEND_RATE_PER_SECOND, else the local SES's): sizes the send queues' pollers */
  sendRate: number;
  /** where each stream poller keeps its position across restarts (none: the in-memory table starts afresh) */
  checkpointDir?: string;
  log: (line: string) => void;
}

/** The workers' pollers, and what the control API sees of them (./control.ts): each consumer's work, the scheduled workers to run now. */
interface Workers {
  pollers: { start(): void; stop(): Promise<void> }[];
  watched: Watched[];
  schedules: RunNow[];
}

/** Creates every queue (with its DLQ) and a poller, not yet started, for every worker of functions/workers.ts. */
async function createWorkers(env: WorkerEnvironment): Promise<Workers> {
  const { QUEUE_MAX_MESSAGE_BYTES, queues, queueTrigger, queueUrlVariable, workers } = await import(
    '../functions/workers'
  );
  const { sendRate } = env;
  // Every poller long-polls through this one client. On AWS each event source mapping polls on its
  // own; here the SDK's default of 50 sockets per client was fewer than the pollers (54 with the
  // send-test and attachment-fetch lanes), so their deletes and receives queued behind other
  // pollers' 20 s long polls for seconds: a pipeline idle but slow. No socket limit, as on AWS.
  const sqs = new SQSClient({
    endpoint: env.sqsEndpoint,
    logger: sdkLogger,
    region: env.region,
    credentials: env.credentials,
    requestHandler: { httpAgent: new Agent({ keepAlive: true, maxSockets: Infinity }) },
  });
  const queueUrls = new Map<string, { url: string; arn: string }>();
  for (const queue of queues) {
    const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${queue.name}-dlq` }));
    const dlqArn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn;
    const Attributes = {
      VisibilityTimeout: String(queue.visibilityTimeoutSeconds),
      MaximumMessageSize: String(QUEUE_MAX_MESSAGE_BYTES),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: queue.maxReceiveCount }),
    };
    // A queue kept from an earlier start whose attributes the code has changed since: SQS answers
    // QueueAlreadyExists, and the queue (with its messages) takes the new attributes instead.
    const created = await sqs
      .send(new CreateQueueCommand({ QueueName: queue.name, Attributes }))
      .catch(async (error) => {
        if (!(error instanceof QueueNameExists)) throw error;
        const existing = await sqs.send(new GetQueueUrlCommand({ QueueName: queue.name }));
        await sqs.send(new SetQueueAttributesCommand({ QueueUrl: existing.QueueUrl, Attributes }));
        return existing;
      });
    const arn = (
      await sqs.send(new GetQueueAttributesCommand({ QueueUrl: created.QueueUrl, AttributeNames: ['QueueArn'] }))
    ).Attributes!.QueueArn!;
    queueUrls.set(queue.name, { url: created.QueueUrl!, arn });
    process.env[queueUrlVariable(queue.name)] = created.QueueUrl!;
  }
  const streams = new DynamoDBStreamsClient({
    endpoint: env.dynamoEndpoint,
    logger: sdkLogger,
    region: env.region,
    credentials: env.credentials,
  });
  const onError = (name: string) => (error: unknown) =>
    env.log(JSON.stringify({ level: 'ERROR', message: 'worker error', worker: name, error: String(error) }));
  const pollers: Workers['pollers'] = [];
  const watched: Watched[] = [];
  const schedules: RunNow[] = [];
  for (const worker of workers) {
    const handler = await loadHandler(worker.handler);
    const fn = workerFunction(worker.name);
    const trigger = worker.trigger.kind === 'queue' ? queueTrigger(worker.trigger, sendRate) : worker.trigger;
    if (trigger.kind === 'queue') {
      const queue = queueUrls.get(trigger.queue);
      if (!queue) throw new Error(`worker ${worker.name} reads unknown queue ${trigger.queue}`);
      const poller = new QueuePoller({
        fn,
        sqs,
        queueUrl: queue.url,
        queueArn: queue.arn,
        batchSize: trigger.batchSize,
        concurrency: trigger.maxConcurrency,
        // the poller long-polls, as Lambda does: a message is picked up as it arrives
        handler,
        onError: onError(worker.name),
      });
      pollers.push(poller);
      const queueName = trigger.queue;
      watched.push({
        kind: 'queue',
        name: worker.name,
        busy: (before) => poller.inHand + env.backlog(queueName, before).due,
        later: (before) => env.backlog(queueName, before).later,
        handled: () => poller.handled,
      });
    } else if (trigger.kind === 'stream') {
      const poller = new StreamPoller({
        fn,
        streams,
        streamArn: env.streamArn,
        batchSize: trigger.batchSize,
        maxRetryAttempts: trigger.maxRetryAttempts,
        filter: trigger.filter as FilterPattern | undefined,
        checkpointFile: env.checkpointDir && join(env.checkpointDir, `${worker.name}.json`),
        handler,
        onError: onError(worker.name),
      });
      pollers.push(poller);
      watched.push({
        kind: 'stream',
        name: worker.name,
        busy: () => poller.inHand(),
        handled: () => poller.handled,
        quietSince: () => poller.quietSince,
        wake: () => poller.wake(),
      });
    } else {
      const timer = new ScheduleTimer(
        fn,
        env.scheduleIntervalSeconds ?? trigger.everySeconds,
        handler,
        onError(worker.name),
        env.clock,
      );
      pollers.push(timer);
      watched.push({
        kind: 'schedule',
        name: worker.name,
        busy: () => (timer.isRunning() ? 1 : 0),
        handled: () => timer.runs,
      });
      schedules.push({ name: worker.name, runNow: () => timer.runNow() });
    }
  }
  return { pollers, watched, schedules };
}

/**
 * EventBridge schedule stand-in: invokes the same scheduled handler every N seconds, as its function.
 * On a manual clock it runs when the clock moves, once at each stop its interval has passed by
 * (./clock.ts says why not once per interval).
 */
class ScheduleTimer {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private lastRunAt: number;
  constructor(
    private readonly fn: FunctionIdentity,
    private readonly everySeconds: number,
    private readonly handler: AnyHandler,
    private readonly onError: (error: unknown) => void,
    private readonly clock: LocalClock,
  ) {
    this.lastRunAt = clock.now();
  }
  /** runs finished since the start */
  runs = 0;
  start(): void {
    if (this.clock.mode === 'manual') {
      this.clock.onMoved(() => {
        if (!this.stopped && !this.running && this.clock.now() - this.lastRunAt >= this.everySeconds * 1000)
          void this.run();
      });
      return;
    }
    this.timer = setInterval(() => {
      if (this.running) return; // never overlap, like a schedule with a concurrency of one
      void this.run();
    }, this.everySeconds * 1000);
  }
  isRunning(): boolean {
    return this.running !== undefined;
  }
  /** A run now (the control API's `POST /_local/run/<worker>`), after the one going, if any: never two at once. */
  async runNow(): Promise<{ succeeded: boolean; error?: string }> {
    while (this.running) await this.running;
    return this.run();
  }
  private run(): Promise<{ succeeded: boolean; error?: string }> {
    this.lastRunAt = this.clock.now();
    const run = invoke(this.fn, this.handler, {
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      time: new Date(this.lastRunAt).toISOString(),
    }).then(
      () => ({ succeeded: true }),
      (error: unknown) => {
        this.onError(error);
        return { succeeded: false, error: String(error) };
      },
    );
    this.running = run.then(() => undefined);
    return run.finally(() => {
      this.running = undefined;
      this.runs++;
    });
  }
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
