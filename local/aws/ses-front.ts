/**
 * The SES v2 endpoint of the local runtime (AWS_ENDPOINT_URL_SESV2). aws-ses-v2-local stores
 * and shows sent mail but knows nothing of identities, configuration sets or sending limits,
 * so this small front answers those itself, in SES v2's REST-JSON shapes, and passes sends
 * (and everything else) through to aws-ses-v2-local, whose mail viewer stays where it is.
 *
 * Local behaviour worth knowing:
 * - a domain identity is PENDING when created and SUCCESS (verified) `verifyDelayMs` later;
 *   a domain under the reserved `.invalid` TLD turns FAILED instead (to exercise failures);
 * - GetAccount reports `maxSendRate` (LOCAL_SES_MAX_SEND_RATE, default 14/s, SES's usual
 *   production rate), and sends beyond it in any one second get 429 TooManyRequestsException,
 *   as SES throttles; a From whose domain is not a verified identity gets 400 MessageRejected.
 * - GET /_local/send-stats answers how many sends were accepted, and how many throttled, in each
 *   second (benchmarks);
 * - tenants (SES tenant management): CreateTenant, GetTenant, CreateTenantResourceAssociation,
 *   UpdateReputationEntityPolicy, UpdateReputationEntityCustomerManagedStatus and GetReputationEntity
 *   (a tenant's policy and statuses; SES's own status is always ENABLED here: it has no findings). A send naming a
 *   tenant needs the tenant and its From identity and configuration set associated with it (else
 *   400 BadRequestException, as SES); a tenant whose customer-managed status is DISABLED (an operator
 *   pausing it, standing in for SES pausing it on reputation findings) gets 400 SendingPausedException.
 *   GET /_local/sends/<SES message id> answers the tenant each accepted send named (null for none);
 * - configuration sets are listed (ListConfigurationSets, paged) and keep their event destinations
 *   (create, update, and get in SES's shape: npm run ses-reconcile reads them); each accepted send is
 *   handed to `onSent` with the event types its set publishes, which is what decides whether the
 *   simulated opens and clicks happen (local/aws/ses-events.ts);
 * - identities, configuration sets and tenants are kept in DATA_DIR/ses-identities.json across restarts;
 * - the SES endpoint answers only requests SigV4-signed with the runtime's credentials (`credentials`,
 *   ./credentials.ts, checked by ./sigv4.ts; its `/_local/` routes too), else 403 with SES's error type
 *   (MissingAuthenticationTokenException, UnrecognizedClientException, InvalidSignatureException);
 *   the mail viewer's port is a page for a browser, which cannot sign: it stays unsigned on 127.0.0.1
 *   and serves the viewer's pages only (GET /, /store, /get-emlContent, /health-check, POST
 *   /clear-store; anything else, the SES API included, is 404 there);
 * - the mail viewer (LOCAL_SES_PORT) is this front too, on a second port: aws-ses-v2-local itself
 *   listens on a socket the runtime makes in a folder of its own (mode 0700), not on any port. Its handlers answer some malformed
 *   requests twice, and the second answer throws outside any handler (one `GET /get-emlContent`
 *   with an unknown `messageId` stopped the whole runtime), so the front answers those itself:
 *   404 for a missing, repeated or unknown `messageId`, 400 for a `since` that is not an epoch second.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { StandInCredentials } from './credentials';
import { REST_JSON_AUTH_ERRORS, verifySignature } from './sigv4';
import { now } from '../../shared/platform/clock';
import { LOCAL_REGION } from '../settings';

export interface SesFrontOptions {
  host: string;
  port: number;
  /** where aws-ses-v2-local listens: a URL, or the socket the runtime gives it (no port anyone else could reach) */
  upstream: string | { socketPath: string };
  stateFile?: string;
  verifyDelayMs: number;
  maxSendRate: number;
  /** GetAccount's Max24HourSend, and the sends SES accepts in any 24 hours (LOCAL_SES_MAX_24_HOUR_SEND, default 50,000) */
  max24HourSend?: number;
  /**
   * called with each accepted send (request body and SES message id): the hook SES events hang on;
   * `eventTypes`: what its configuration set publishes (its enabled event destinations' MatchingEventTypes)
   */
  onSent?: (send: { request: Record<string, unknown>; messageId: string; eventTypes: string[] }) => void;
  /** whether aws-ses-v2-local holds a message with this id (its store, read in process) */
  hasMessage: (messageId: string) => boolean;
  /**
   * Puts a send's attachment contents (base64, in order) into aws-ses-v2-local's stored message:
   * its JSON body parser stops at 25 MB, SES at 40 MB, so sends go to it without their attachments'
   * bytes and get them back in its store (read in process) once it took them.
   */
  restoreAttachments: (messageId: string, contents: string[]) => void;
  /** the mail viewer's store is being cleared (POST /clear-store) */
  onClearStore?: () => void;
  /** the only credentials whose SigV4 signatures the SES endpoint accepts (the runtime's, ./credentials.ts) */
  credentials: StandInCredentials;
}

/** SES v2's limit on a message, attachments counted after base64 (MessageRejected beyond). */
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;

interface Identity {
  name: string;
  createdAt: number;
  dkimTokens: string[];
  mailFromDomain?: string;
  configurationSetName?: string;
  tags: { Key: string; Value: string }[];
}

interface ConfigurationSet {
  name: string;
  trackingOptions?: { CustomRedirectDomain?: string };
  deliveryOptions?: { TlsPolicy?: string };
  sendingOptions?: { SendingEnabled?: boolean };
  /** the bodies of CreateConfigurationSetEventDestination, each updated in place by UpdateConfigurationSetEventDestination */
  eventDestinations: {
    EventDestinationName?: string;
    EventDestination?: { Enabled?: boolean; MatchingEventTypes?: string[] };
  }[];
}

interface Tenant {
  name: string;
  id: string;
  arn: string;
  createdAt: number;
  tags: { Key: string; Value: string }[];
  /** ARNs of the identities and configuration sets associated with it */
  resources: string[];
  /** its managed reputation policy's ARN */
  policy?: string;
  /** the customer-managed sending status: DISABLED pauses its sends */
  sendingStatus: 'ENABLED' | 'REINSTATED' | 'DISABLED';
}

interface State {
  identities: Record<string, Identity>;
  configurationSets: Record<string, ConfigurationSet>;
  tenants?: Record<string, Tenant>;
}

const ACCOUNT = '000000000000';
const REGION = LOCAL_REGION;
const sesArn = (resource: string) => `arn:aws:ses:${REGION}:${ACCOUNT}:${resource}`;
const REPUTATION_POLICY = /^arn:aws:ses:[a-z0-9-]+:aws:reputation-policy\/(none|standard|strict)$/;

class SesError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** The bodies of requests already read to check their signature (read once; the handlers and the proxy take them from here). */
const receivedBodies = new WeakMap<IncomingMessage, Buffer>();

async function readRaw(request: IncomingMessage): Promise<Buffer> {
  const kept = receivedBodies.get(request);
  if (kept) return kept;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  receivedBodies.set(request, raw);
  return raw;
}

async function readJson(request: IncomingMessage): Promise<Record<string, any>> {
  const text = (await readRaw(request)).toString('utf8');
  return text ? JSON.parse(text) : {};
}

/** What the mail viewer's port serves (GET; aws-ses-v2-local's pages, matched without case or a trailing slash). */
const VIEWER_PAGES = new Set(['/', '/store', '/get-emlcontent', '/health-check']);

function send(response: ServerResponse, status: number, body?: unknown): void {
  response.statusCode = status;
  response.setHeader('content-type', 'application/json');
  response.end(body === undefined ? '{}' : JSON.stringify(body));
}

function domainOf(address: string): string {
  const match = /<([^>]+)>\s*$/.exec(address);
  const bare = (match ? match[1] : address).trim();
  return bare.slice(bare.lastIndexOf('@') + 1).toLowerCase();
}

export class SesFront {
  private state: State = { identities: {}, configurationSets: {} };
  private server?: Server;
  /** sends accepted per epoch second (the last 15 minutes), for GET /_local/send-stats */
  private readonly acceptedPerSecond = new Map<number, number>();
  /** when each send of the last 24 hours was accepted (epoch ms), for GetAccount's SentLast24Hours */
  private readonly acceptedAt: number[] = [];

  private sentLast24Hours(): number {
    const since = now() - 24 * 60 * 60 * 1000;
    while (this.acceptedAt.length && this.acceptedAt[0] < since) this.acceptedAt.shift();
    return this.acceptedAt.length;
  }
  /** sends refused with 429 per epoch second, likewise */
  private readonly throttledPerSecond = new Map<number, number>();
  /** the tenant each accepted send named, by SES message id (the last 10,000 sends) */
  private readonly sendTenants = new Map<string, string | null>();

  /** A deleted resource is no tenant's any more (SES drops its associations). */
  private forgetResource(arn: string): void {
    for (const tenant of Object.values(this.tenants())) tenant.resources = tenant.resources.filter((r) => r !== arn);
  }

  private tenants(): Record<string, Tenant> {
    this.state.tenants ??= {};
    return this.state.tenants;
  }

  private tenant(name: unknown): Tenant {
    const tenant = this.tenants()[String(name)];
    if (!tenant) throw new SesError(404, 'NotFoundException', `Tenant ${String(name)} does not exist.`);
    return tenant;
  }

  /** The tenant a reputation entity path names (`/v2/email/reputation/entities/RESOURCE/<tenant ARN>/...`). */
  private reputationEntity(parts: string[]): { tenant: Tenant; arn: string } {
    const [, , , , entityType, reference] = parts;
    if (entityType !== 'RESOURCE')
      throw new SesError(400, 'BadRequestException', 'Only RESOURCE entities are supported');
    const arn = decodeURIComponent(reference ?? '');
    const tenant = Object.values(this.tenants()).find((t) => t.arn === arn);
    if (!tenant) throw new SesError(404, 'NotFoundException', `Reputation entity ${arn} does not exist.`);
    return { tenant, arn };
  }

  private describeTenant(tenant: Tenant) {
    return {
      TenantName: tenant.name,
      TenantId: tenant.id,
      TenantArn: tenant.arn,
      CreatedTimestamp: tenant.createdAt / 1000,
      Tags: tenant.tags,
      SendingStatus: tenant.sendingStatus === 'DISABLED' ? 'DISABLED' : 'ENABLED',
    };
  }

  /** A send that names a tenant: SES sends it only if every resource it uses is the tenant's, and the tenant may send. */
  private checkTenantSend(body: Record<string, any>, identity: Identity): void {
    if (body.TenantName === undefined) return;
    const tenant = this.tenants()[String(body.TenantName)];
    if (!tenant) throw new SesError(404, 'NotFoundException', `Tenant ${String(body.TenantName)} does not exist.`);
    const used = [
      sesArn(`identity/${identity.name}`),
      ...(body.ConfigurationSetName ? [sesArn(`configuration-set/${body.ConfigurationSetName}`)] : []),
    ];
    const foreign = used.filter((arn) => !tenant.resources.includes(arn));
    if (foreign.length)
      throw new SesError(
        400,
        'BadRequestException',
        `Resources are not associated with tenant ${tenant.name}: ${foreign.join(', ')}`,
      );
    if (tenant.sendingStatus === 'DISABLED')
      throw new SesError(400, 'SendingPausedException', `Sending is paused for tenant ${tenant.name}.`);
  }

  constructor(private readonly options: SesFrontOptions) {
    if (options.stateFile && existsSync(options.stateFile))
      this.state = JSON.parse(readFileSync(options.stateFile, 'utf8'));
  }

  /** The SES endpoint, on `options.port`. */
  async start(): Promise<Server> {
    this.server = await this.listen(this.options.port, true);
    return this.server;
  }

  /** The mail viewer, on a port of its own (the same front: aws-ses-v2-local is never reached directly). */
  startViewer(port: number): Promise<Server> {
    return this.listen(port, false);
  }

  /** `signed`: every request must carry a SigV4 signature made with the runtime's credentials (the SES endpoint; the viewer is a browser's page). */
  private async listen(port: number, signed: boolean): Promise<Server> {
    const server = createServer((request, response) => {
      this.authenticate(request, signed)
        .then(() => (signed ? this.handle(request, response) : this.viewerOnly(request, response)))
        .catch((error) => {
          if (response.headersSent) return void response.destroy();
          if (error instanceof SesError) {
            response.setHeader('x-amzn-errortype', error.type);
            send(response, error.status, { __type: error.type, message: error.message });
          } else send(response, 500, { __type: 'InternalFailure', message: String(error) });
        });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.options.host, () => resolve());
    });
    return server;
  }

  get port(): number {
    return (this.server!.address() as { port: number }).port;
  }

  private save(): void {
    if (this.options.stateFile) writeFileSync(this.options.stateFile, JSON.stringify(this.state, null, 2));
  }

  /** SES's verification status of a domain identity, as time passes. */
  private status(identity: Identity): 'PENDING' | 'SUCCESS' | 'FAILED' {
    if (now() - identity.createdAt < this.options.verifyDelayMs) return 'PENDING';
    return identity.name.endsWith('.invalid') ? 'FAILED' : 'SUCCESS';
  }

  private describe(identity: Identity) {
    const status = this.status(identity);
    return {
      IdentityType: identity.name.includes('@') ? 'EMAIL_ADDRESS' : 'DOMAIN',
      FeedbackForwardingStatus: true,
      VerifiedForSendingStatus: status === 'SUCCESS',
      VerificationStatus: status,
      DkimAttributes: {
        SigningEnabled: true,
        Status: status,
        Tokens: identity.dkimTokens,
        SigningAttributesOrigin: 'AWS_SES',
      },
      MailFromAttributes: identity.mailFromDomain
        ? {
            MailFromDomain: identity.mailFromDomain,
            MailFromDomainStatus: status,
            BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
          }
        : undefined,
      ConfigurationSetName: identity.configurationSetName,
      Tags: identity.tags,
      Policies: {},
    };
  }

  private identity(name: string): Identity {
    const identity = this.state.identities[decodeURIComponent(name).toLowerCase()];
    if (!identity)
      throw new SesError(404, 'NotFoundException', `Email identity ${decodeURIComponent(name)} does not exist.`);
    return identity;
  }

  /** The event types a configuration set publishes: its enabled event destinations' MatchingEventTypes (none for an unknown set). */
  private publishedEventTypes(setName: unknown): string[] {
    const set = typeof setName === 'string' ? this.state.configurationSets[setName] : undefined;
    const enabled = (set?.eventDestinations ?? []).filter((d) => d.EventDestination?.Enabled === true);
    return [...new Set(enabled.flatMap((d) => d.EventDestination?.MatchingEventTypes ?? []))];
  }

  private configurationSet(name: string): ConfigurationSet {
    const set = this.state.configurationSets[decodeURIComponent(name)];
    if (!set)
      throw new SesError(404, 'NotFoundException', `Configuration set ${decodeURIComponent(name)} does not exist.`);
    return set;
  }

  /** On the SES endpoint: the body read and the signature checked (./sigv4.ts) before anything else; SES's error types otherwise, with 403. */
  private async authenticate(request: IncomingMessage, signed: boolean): Promise<void> {
    if (!signed) return;
    const verdict = await verifySignature(request, this.options.credentials, {
      service: 'ses',
      uriEscapePath: true,
      body: await readRaw(request),
    });
    if (!verdict.ok) throw new SesError(403, REST_JSON_AUTH_ERRORS[verdict.reason], verdict.message);
  }

  /**
   * The viewer's port answers the viewer's own pages and nothing else: the SES API (sends,
   * identities, tenants) and the `/_local/` routes are the SES endpoint's, which checks signatures.
   */
  private viewerOnly(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local');
    const path = url.pathname.toLowerCase().replace(/\/+$/, '') || '/';
    const page =
      request.method === 'POST' ? path === '/clear-store' : request.method === 'GET' && VIEWER_PAGES.has(path);
    if (!page) {
      send(response, 404, {
        message:
          'The mail viewer serves GET /, /store, /get-emlContent, /health-check and POST /clear-store; the SES API is on AWS_ENDPOINT_URL_SESV2, signed',
      });
      return Promise.resolve();
    }
    return this.viewer(request, response, url);
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // SES counts a send against the second the request reaches it, not when its body is read.
    const second = Math.floor(now() / 1000);
    const url = new URL(request.url ?? '/', 'http://local');
    const method = request.method ?? 'GET';
    const parts = url.pathname.split('/').filter(Boolean); // ['v2', 'email', ...]
    const [v2, email, resource, name, sub] = parts;
    if (url.pathname.startsWith('/_local/sends/') && method === 'GET') {
      // Local only: the tenant an accepted send named
      const messageId = decodeURIComponent(url.pathname.slice('/_local/sends/'.length));
      if (!this.sendTenants.has(messageId)) return send(response, 404, { message: 'no such send' });
      return send(response, 200, { messageId, tenant: this.sendTenants.get(messageId) });
    }
    if (url.pathname === '/_local/send-stats' && method === 'GET') {
      // Local only: how many sends SES accepted in each second, as SES's own clock saw them.
      return send(response, 200, {
        perSecond: Object.fromEntries(this.acceptedPerSecond),
        throttledPerSecond: Object.fromEntries(this.throttledPerSecond),
      });
    }
    if (v2 !== 'v2' || email !== 'email') return this.viewer(request, response, url);

    if (resource === 'account' && method === 'GET' && !name) {
      return send(response, 200, {
        DedicatedIpAutoWarmupEnabled: false,
        EnforcementStatus: 'HEALTHY',
        ProductionAccessEnabled: true,
        SendingEnabled: true,
        SendQuota: {
          Max24HourSend: this.options.max24HourSend ?? 50_000,
          MaxSendRate: this.options.maxSendRate,
          SentLast24Hours: this.sentLast24Hours(),
        },
      });
    }

    if (resource === 'identities') {
      if (!name && method === 'POST') {
        const body = await readJson(request);
        const key = String(body.EmailIdentity ?? '').toLowerCase();
        if (!key) throw new SesError(400, 'BadRequestException', 'EmailIdentity is required');
        if (this.state.identities[key])
          throw new SesError(400, 'AlreadyExistsException', `Email identity ${key} already exists.`);
        const identity: Identity = {
          name: key,
          createdAt: now(),
          dkimTokens: [0, 1, 2].map(() => randomBytes(16).toString('hex')),
          configurationSetName: body.ConfigurationSetName,
          tags: body.Tags ?? [],
        };
        this.state.identities[key] = identity;
        this.save();
        const described = this.describe(identity);
        return send(response, 200, {
          IdentityType: described.IdentityType,
          VerifiedForSendingStatus: false,
          DkimAttributes: described.DkimAttributes,
        });
      }
      if (name && !sub && method === 'GET') return send(response, 200, this.describe(this.identity(name)));
      if (name && !sub && method === 'DELETE') {
        this.identity(name);
        delete this.state.identities[decodeURIComponent(name).toLowerCase()];
        this.forgetResource(sesArn(`identity/${decodeURIComponent(name).toLowerCase()}`));
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'mail-from' && method === 'PUT') {
        const body = await readJson(request);
        this.identity(name).mailFromDomain = body.MailFromDomain;
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'configuration-set' && method === 'PUT') {
        const body = await readJson(request);
        this.identity(name).configurationSetName = body.ConfigurationSetName;
        this.save();
        return send(response, 200, {});
      }
    }

    if (resource === 'list-configuration-sets' && !name && method === 'POST') {
      // ListConfigurationSets: the names in order, a page at a time (NextToken: where the next page starts)
      const body = await readJson(request);
      const names = Object.keys(this.state.configurationSets).sort();
      const start = Number(body.NextToken ?? 0);
      const size = Math.min(Number(body.PageSize ?? 1000), 1000);
      const page = names.slice(start, start + size);
      return send(response, 200, {
        ConfigurationSets: page,
        ...(start + size < names.length ? { NextToken: String(start + size) } : {}),
      });
    }

    if (resource === 'configuration-sets') {
      if (!name && method === 'POST') {
        const body = await readJson(request);
        const setName = String(body.ConfigurationSetName ?? '');
        if (this.state.configurationSets[setName])
          throw new SesError(400, 'AlreadyExistsException', `Configuration set ${setName} already exists.`);
        this.state.configurationSets[setName] = {
          name: setName,
          trackingOptions: body.TrackingOptions,
          deliveryOptions: body.DeliveryOptions,
          sendingOptions: body.SendingOptions,
          eventDestinations: [],
        };
        this.save();
        return send(response, 200, {});
      }
      if (name && !sub && method === 'GET') {
        const set = this.configurationSet(name);
        return send(response, 200, {
          ConfigurationSetName: set.name,
          TrackingOptions: set.trackingOptions,
          DeliveryOptions: set.deliveryOptions,
          SendingOptions: set.sendingOptions,
        });
      }
      if (name && !sub && method === 'DELETE') {
        this.configurationSet(name);
        delete this.state.configurationSets[decodeURIComponent(name)];
        this.forgetResource(sesArn(`configuration-set/${decodeURIComponent(name)}`));
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'tracking-options' && method === 'PUT') {
        this.configurationSet(name).trackingOptions = await readJson(request);
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'delivery-options' && method === 'PUT') {
        this.configurationSet(name).deliveryOptions = await readJson(request);
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'sending' && method === 'PUT') {
        this.configurationSet(name).sendingOptions = await readJson(request);
        this.save();
        return send(response, 200, {});
      }
      if (name && sub === 'event-destinations') {
        const set = this.configurationSet(name);
        const destinationName = parts[5] === undefined ? undefined : decodeURIComponent(parts[5]);
        if (method === 'POST' && destinationName === undefined) set.eventDestinations.push(await readJson(request));
        if (method === 'PUT' && destinationName !== undefined) {
          // UpdateConfigurationSetEventDestination: PATCH /domains turning open or click tracking on or off
          const destination = set.eventDestinations.find((d) => d.EventDestinationName === destinationName);
          if (!destination)
            throw new SesError(404, 'NotFoundException', `Event destination ${destinationName} does not exist.`);
          destination.EventDestination = (await readJson(request)).EventDestination;
        }
        this.save();
        // GetConfigurationSetEventDestinations answers each as SES does: its name beside the destination's fields
        const described = set.eventDestinations.map((d) => ({ Name: d.EventDestinationName, ...d.EventDestination }));
        return send(response, 200, method === 'GET' ? { EventDestinations: described } : {});
      }
    }

    if (resource === 'tenants' && method === 'POST') {
      const body = await readJson(request);
      if (!name) {
        const tenantName = String(body.TenantName ?? '');
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(tenantName))
          throw new SesError(
            400,
            'BadRequestException',
            'TenantName must be 1-64 letters, digits, hyphens or underscores',
          );
        if (this.tenants()[tenantName])
          throw new SesError(400, 'AlreadyExistsException', `Tenant ${tenantName} already exists.`);
        const id = `tn-${randomBytes(12).toString('hex')}`;
        const tenant: Tenant = {
          name: tenantName,
          id,
          arn: sesArn(`tenant/${tenantName}/${id}`),
          createdAt: now(),
          tags: body.Tags ?? [],
          resources: [],
          sendingStatus: 'ENABLED',
        };
        this.tenants()[tenantName] = tenant;
        this.save();
        return send(response, 200, this.describeTenant(tenant));
      }
      if (name === 'get' && !sub)
        return send(response, 200, { Tenant: this.describeTenant(this.tenant(body.TenantName)) });
      if (name === 'resources' && !sub) {
        const tenant = this.tenant(body.TenantName);
        const arn = String(body.ResourceArn ?? '');
        const [kind, ...rest] = arn.slice(sesArn('').length).split('/');
        const known =
          arn.startsWith(sesArn('')) &&
          ((kind === 'identity' && this.state.identities[rest.join('/').toLowerCase()]) ||
            (kind === 'configuration-set' && this.state.configurationSets[rest.join('/')]));
        if (!known) throw new SesError(404, 'NotFoundException', `Resource ${arn} does not exist.`);
        if (!tenant.resources.includes(arn)) tenant.resources.push(arn);
        this.save();
        return send(response, 200, {});
      }
    }

    if (resource === 'reputation' && name === 'entities' && method === 'GET') {
      // /v2/email/reputation/entities/RESOURCE/<entity ARN>
      const { tenant, arn } = this.reputationEntity(parts);
      const at = tenant.createdAt / 1000; // epoch seconds, as SES answers timestamps
      return send(response, 200, {
        ReputationEntity: {
          ReputationEntityReference: arn,
          ReputationEntityType: 'RESOURCE',
          ...(tenant.policy ? { ReputationManagementPolicy: tenant.policy } : {}),
          CustomerManagedStatus: { Status: tenant.sendingStatus, LastUpdatedTimestamp: at },
          AwsSesManagedStatus: { Status: 'ENABLED', LastUpdatedTimestamp: at },
          SendingStatusAggregate: tenant.sendingStatus === 'DISABLED' ? 'DISABLED' : 'ENABLED',
          ReputationImpact: 'LOW',
        },
      });
    }

    if (resource === 'reputation' && name === 'entities' && method === 'PUT') {
      // /v2/email/reputation/entities/RESOURCE/<entity ARN>/(policy|customer-managed-status)
      const { tenant } = this.reputationEntity(parts);
      const setting = parts[6];
      const body = await readJson(request);
      if (setting === 'policy') {
        if (!REPUTATION_POLICY.test(String(body.ReputationEntityPolicy)))
          throw new SesError(
            400,
            'BadRequestException',
            `Unknown reputation policy ${String(body.ReputationEntityPolicy)}`,
          );
        tenant.policy = body.ReputationEntityPolicy;
      } else if (setting === 'customer-managed-status') {
        if (!['ENABLED', 'REINSTATED', 'DISABLED'].includes(body.SendingStatus))
          throw new SesError(400, 'BadRequestException', 'SendingStatus must be ENABLED, REINSTATED or DISABLED');
        tenant.sendingStatus = body.SendingStatus;
      } else throw new SesError(404, 'NotFoundException', `Unknown setting ${String(setting)}`);
      this.save();
      return send(response, 200, {});
    }

    if (resource === 'outbound-emails' && method === 'POST') {
      const body = await readJson(request);
      const from = String(body.FromEmailAddress ?? '');
      const identity = this.state.identities[domainOf(from)] ?? this.state.identities[from.toLowerCase()];
      if (!identity || this.status(identity) !== 'SUCCESS') {
        throw new SesError(
          400,
          'MessageRejected',
          `Email address is not verified. The following identities failed the check in region AP-SOUTHEAST-2: ${from}`,
        );
      }
      this.checkTenantSend(body, identity);
      const accepted = this.acceptedPerSecond.get(second) ?? 0;
      if (accepted >= this.options.maxSendRate) {
        this.throttledPerSecond.set(second, (this.throttledPerSecond.get(second) ?? 0) + 1);
        throw new SesError(429, 'TooManyRequestsException', 'Maximum sending rate exceeded.');
      }
      if (this.sentLast24Hours() >= (this.options.max24HourSend ?? 50_000))
        throw new SesError(400, 'LimitExceededException', 'Daily message quota exceeded.');
      const attachments = (body.Content?.Simple?.Attachments ?? []) as { RawContent?: string }[];
      const contents = attachments.map((a) => a.RawContent ?? '');
      const simple = body.Content?.Simple;
      const size =
        contents.reduce((sum, c) => sum + c.length, 0) +
        Buffer.byteLength(`${simple?.Body?.Html?.Data ?? ''}${simple?.Body?.Text?.Data ?? ''}`);
      if (size > MAX_MESSAGE_BYTES)
        throw new SesError(
          400,
          'MessageRejected',
          `Message length is more than ${MAX_MESSAGE_BYTES / 1024 / 1024} megabytes`,
        );
      this.acceptedPerSecond.set(second, accepted + 1);
      this.acceptedAt.push(now());
      for (const counts of [this.acceptedPerSecond, this.throttledPerSecond])
        for (const old of counts.keys()) if (old < second - 900) counts.delete(old);
      for (const a of attachments) a.RawContent = ''; // back in the store below (restoreAttachments)
      return this.proxy(
        request,
        response,
        body,
        (messageId) => contents.length && this.options.restoreAttachments(messageId, contents),
      );
    }

    return this.proxy(request, response, undefined);
  }

  /**
   * The mail viewer's own routes, checked before aws-ses-v2-local sees them (Express matches paths
   * without regard to case or a trailing slash, so neither do these checks).
   */
  private viewer(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const path = url.pathname.toLowerCase().replace(/\/+$/, '');
    if (path === '/clear-store' && request.method === 'POST') this.options.onClearStore?.();
    if (path === '/get-emlcontent') {
      const ids = url.searchParams.getAll('messageId');
      if (ids.length !== 1 || !ids[0] || !this.options.hasMessage(ids[0])) {
        send(response, 404, { message: 'Email not found within the store' });
        return Promise.resolve();
      }
      request.url = `/get-emlContent?messageId=${encodeURIComponent(ids[0])}`; // exactly the id that was checked
    }
    if (path === '/store' && url.searchParams.has('since')) {
      const since = url.searchParams.getAll('since');
      if (since.length !== 1 || !/^\d{1,15}$/.test(since[0])) {
        send(response, 400, { message: 'since must be one epoch timestamp in seconds' });
        return Promise.resolve();
      }
      request.url = `/store?since=${since[0]}`;
    }
    return this.proxy(request, response, undefined);
  }

  /** Passes a request on to aws-ses-v2-local unchanged (the body re-sent when it was already read). */
  private proxy(
    request: IncomingMessage,
    response: ServerResponse,
    body: Record<string, unknown> | undefined,
    accepted?: (messageId: string) => unknown,
  ): Promise<void> {
    const upstream =
      typeof this.options.upstream === 'string' ? new URL(request.url ?? '/', this.options.upstream) : undefined;
    const target = upstream ?? {
      socketPath: (this.options.upstream as { socketPath: string }).socketPath,
      path: request.url ?? '/',
    };
    return new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
      const headers = { ...request.headers, host: upstream?.host ?? 'localhost' };
      if (payload) headers['content-length'] = String(payload.length);
      const forward = httpRequest(
        {
          ...(upstream
            ? { hostname: upstream.hostname, port: upstream.port, path: `${upstream.pathname}${upstream.search}` }
            : target),
          method: request.method,
          headers,
        },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (c) => chunks.push(c));
          answer.on('end', () => {
            const text = Buffer.concat(chunks);
            if (body && answer.statusCode === 200 && this.options.onSent) {
              try {
                const messageId = JSON.parse(text.toString('utf8')).MessageId;
                accepted?.(messageId);
                this.sendTenants.set(messageId, (body.TenantName as string | undefined) ?? null);
                if (this.sendTenants.size > 10_000)
                  this.sendTenants.delete(this.sendTenants.keys().next().value as string);
                this.options.onSent({
                  request: body,
                  messageId,
                  eventTypes: this.publishedEventTypes(body.ConfigurationSetName),
                });
              } catch {
                // a send hook must never break the send itself
              }
            }
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(text);
            resolve();
          });
          answer.on('error', reject);
        },
      );
      forward.on('error', reject);
      const received = receivedBodies.get(request);
      if (payload) forward.end(payload);
      else if (received) forward.end(received);
      else request.pipe(forward);
    });
  }
}
