/**
 * The SES side of a domain: its email identity (Easy DKIM, custom MAIL FROM `send.<domain>`) and
 * its own configuration set `configurationSetName(domainId)` (its comment says why one per
 * domain). Nothing here touches the table; shared/domains/domains.ts orders these calls around its
 * DynamoDB writes, because SES calls cannot join a transaction.
 *
 * The configuration set carries the domain's settings:
 * - `tls`: DeliveryOptions.TlsPolicy, REQUIRE for `enforced`, OPTIONAL for `opportunistic`;
 * - `capabilities.sending`: SendingOptions.SendingEnabled (SES refuses sends through a paused set);
 * - `tracking_subdomain`: TrackingOptions.CustomRedirectDomain `<subdomain>.<domain>`;
 * - `open_tracking` / `click_tracking`: whether the event destination matches OPEN / CLICK, which
 *   is what makes SES add the pixel and rewrite links. The destination publishes to SNS
 *   (SES_EVENTS_TOPIC_ARN); the local SES keeps it too and simulates opens and clicks only where it
 *   matches them (local/aws/ses-events.ts: `open@` / `click@simulator.amazonses.com`).
 */
import {
  CreateConfigurationSetCommand,
  CreateConfigurationSetEventDestinationCommand,
  CreateEmailIdentityCommand,
  DeleteConfigurationSetCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  PutConfigurationSetDeliveryOptionsCommand,
  PutConfigurationSetSendingOptionsCommand,
  PutConfigurationSetTrackingOptionsCommand,
  PutEmailIdentityMailFromAttributesCommand,
  UpdateConfigurationSetEventDestinationCommand,
  type EventType,
} from '../platform/aws/ses';
import { CONFIGURATION_SET_PREFIX, type Capability, type DomainStatus, type Tls } from './model';
import { mailFromDomain, statusFromSes } from './records';
import { ApiError, conflict, unprocessable } from '../platform/errors';
import { logger } from '../platform/log';
import { sesClient } from '../platform/aws/ses';
import { now } from '../platform/clock';

/**
 * Each domain gets a configuration set of its own, `es-<domain id>`: open/click tracking, the
 * custom redirect (tracking) domain and the TLS policy are configuration-set settings in SES,
 * and the contract makes them per-domain settings. Sends from a domain use its set, whose event
 * destination publishes to the SES events topic (SES_EVENTS_TOPIC_ARN).
 */
export const configurationSetName = (domainId: string): string => `${CONFIGURATION_SET_PREFIX}${domainId}`;

/** The one event destination of each domain's configuration set (where SES_EVENTS_TOPIC_ARN is set: on AWS, and in the local runtime). */
export const EVENT_DESTINATION_NAME = 'email-service-events';

const ALWAYS_PUBLISHED: EventType[] = [
  'SEND',
  'REJECT',
  'BOUNCE',
  'COMPLAINT',
  'DELIVERY',
  'DELIVERY_DELAY',
  'RENDERING_FAILURE',
  'SUBSCRIPTION',
];

/** Every event type, except OPEN and CLICK when the domain does not track them. */
export function matchingEventTypes(tracking: { open_tracking: boolean; click_tracking: boolean }): EventType[] {
  return [
    ...ALWAYS_PUBLISHED,
    ...(tracking.open_tracking ? (['OPEN'] as const) : []),
    ...(tracking.click_tracking ? (['CLICK'] as const) : []),
  ];
}

const tlsPolicy = (tls: Tls) => (tls === 'enforced' ? 'REQUIRE' : 'OPTIONAL');
const eventsTopic = () => process.env.SES_EVENTS_TOPIC_ARN || undefined;
const isNotFound = (error: unknown) => (error as Error).name === 'NotFoundException';

async function ignoringNotFound(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}

export interface IdentitySettings {
  name: string;
  /** the MAIL FROM subdomain (`custom_return_path`) */
  returnPath: string;
  configurationSet: string;
  tls: Tls;
  sending: Capability;
  open_tracking: boolean;
  click_tracking: boolean;
}

export interface IdentityState {
  dkimTokens: string[];
  dkimStatus: DomainStatus;
  mailFromStatus: DomainStatus;
}

/**
 * Creates the configuration set (first: the identity names it), its event destination on AWS,
 * the identity and its MAIL FROM. If any step fails, what was made is removed again and the
 * failure becomes an API error: an identity that already exists in this AWS account is 409
 * `domain_exists`, a name SES refuses is 422 on `name`.
 */
export async function createIdentity(settings: IdentitySettings): Promise<IdentityState> {
  const { name, configurationSet } = settings;
  let identityCreated = false;
  try {
    await sesClient.send(
      new CreateConfigurationSetCommand({
        ConfigurationSetName: configurationSet,
        DeliveryOptions: { TlsPolicy: tlsPolicy(settings.tls) },
        SendingOptions: { SendingEnabled: settings.sending === 'enabled' },
      }),
    );
    const topic = eventsTopic();
    if (topic) {
      await sesClient.send(
        new CreateConfigurationSetEventDestinationCommand({
          ConfigurationSetName: configurationSet,
          EventDestinationName: EVENT_DESTINATION_NAME,
          EventDestination: {
            Enabled: true,
            MatchingEventTypes: matchingEventTypes(settings),
            SnsDestination: { TopicArn: topic },
          },
        }),
      );
    }
    const created = await sesClient.send(
      new CreateEmailIdentityCommand({
        EmailIdentity: name,
        ConfigurationSetName: configurationSet,
        DkimSigningAttributes: { NextSigningKeyLength: 'RSA_2048_BIT' }, // Easy DKIM, SES's stronger key
      }),
    );
    identityCreated = true;
    await sesClient.send(
      new PutEmailIdentityMailFromAttributesCommand({
        EmailIdentity: name,
        MailFromDomain: mailFromDomain(name, settings.returnPath),
        BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
      }),
    );
    return {
      dkimTokens: created.DkimAttributes?.Tokens ?? [],
      dkimStatus: statusFromSes(created.DkimAttributes?.Status),
      mailFromStatus: 'pending', // SES starts checking the MAIL FROM records now
    };
  } catch (error) {
    await Promise.all([
      identityCreated
        ? ignoringNotFound(sesClient.send(new DeleteEmailIdentityCommand({ EmailIdentity: name })))
        : undefined,
      ignoringNotFound(sesClient.send(new DeleteConfigurationSetCommand({ ConfigurationSetName: configurationSet }))),
    ]).catch((cleanup) =>
      logger.error('could not undo a failed domain creation in SES', { domain: name, error: cleanup }),
    );
    throw sesCreateError(error, name);
  }
}

/** Whether createIdentity failed because SES already has an identity of that name (409 `domain_exists`). */
export const isIdentityTaken = (error: unknown): boolean =>
  error instanceof ApiError && Array.isArray(error.errors) && error.errors[0]?.code === 'domain_exists';

function sesCreateError(error: unknown, name: string): unknown {
  const { name: type, message } = error as Error;
  if (type === 'AlreadyExistsException')
    return conflict(
      'domain_exists',
      `The domain ${name} is already an identity of this service's email account`,
      'name',
    );
  if (type === 'BadRequestException')
    return unprocessable([{ code: 'invalid_domain', message: `SES refused the domain: ${message}`, path: 'name' }]);
  if (type === 'LimitExceededException')
    return conflict('ses_limit_exceeded', `SES refused another identity or configuration set: ${message}`);
  return error;
}

/**
 * Removes the identity and the configuration set; either may be gone already (a retried delete).
 * The identity is deleted only while it still names this domain's configuration set: once the
 * name is free, another project may have created it again, and that identity is not ours.
 */
export async function removeIdentity(name: string, configurationSet: string): Promise<void> {
  try {
    const identity = await sesClient.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
    if (identity.ConfigurationSetName === configurationSet)
      await ignoringNotFound(sesClient.send(new DeleteEmailIdentityCommand({ EmailIdentity: name })));
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  await ignoringNotFound(sesClient.send(new DeleteConfigurationSetCommand({ ConfigurationSetName: configurationSet })));
}

/**
 * Removes the identity `name` if a create of ours that died left it: it names one of our
 * configuration sets (`es-<domain id>`, a UUIDv7 whose first 48 bits are the create's start in
 * ms) and that create began over `olderThanMs` ago, longer than any live create runs. Returns
 * whether it was removed; an identity made outside this service, or by a create that may still
 * be running, is left alone. The caller knows that no name claim points at the identity.
 */
export async function removeAbandonedIdentity(name: string, olderThanMs: number): Promise<boolean> {
  let configurationSet: string | undefined;
  try {
    configurationSet = (await sesClient.send(new GetEmailIdentityCommand({ EmailIdentity: name })))
      .ConfigurationSetName;
  } catch (error) {
    if (isNotFound(error)) return true; // gone meanwhile: the name is free again
    throw error;
  }
  const startedAt = configurationSet && createdAtOf(configurationSet);
  if (!startedAt || now() - startedAt < olderThanMs) return false;
  logger.warn('removing an identity a failed domain create left behind', {
    domain: name,
    configuration_set: configurationSet,
  });
  await removeIdentity(name, configurationSet!);
  return true;
}

/** When the create that named configuration set `es-<UUIDv7>` began (epoch ms); undefined for any other name. */
function createdAtOf(configurationSet: string): number | undefined {
  const id = configurationSet.slice(CONFIGURATION_SET_PREFIX.length);
  if (!configurationSet.startsWith(CONFIGURATION_SET_PREFIX) || !/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/.test(id))
    return undefined;
  return parseInt(id.replace(/-/g, '').slice(0, 12), 16);
}

/** What SES says about the identity now; undefined when it no longer exists. */
export async function readIdentity(name: string): Promise<IdentityState | undefined> {
  try {
    const identity = await sesClient.send(new GetEmailIdentityCommand({ EmailIdentity: name }));
    return {
      dkimTokens: identity.DkimAttributes?.Tokens ?? [],
      dkimStatus: statusFromSes(identity.DkimAttributes?.Status),
      mailFromStatus: statusFromSes(identity.MailFromAttributes?.MailFromDomainStatus),
    };
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export interface SettingsChange {
  tls?: Tls;
  sending?: Capability;
  /** null removes the custom redirect domain */
  tracking_subdomain?: string | null;
  /** both flags as they will be, when either changes */
  tracking?: { open_tracking: boolean; click_tracking: boolean };
}

/** Applies the changed settings to the domain's configuration set (one SES call per setting). */
export async function updateSettings(name: string, configurationSet: string, change: SettingsChange): Promise<void> {
  const ConfigurationSetName = configurationSet;
  if (change.tls)
    await sesClient.send(
      new PutConfigurationSetDeliveryOptionsCommand({ ConfigurationSetName, TlsPolicy: tlsPolicy(change.tls) }),
    );
  if (change.sending)
    await sesClient.send(
      new PutConfigurationSetSendingOptionsCommand({
        ConfigurationSetName,
        SendingEnabled: change.sending === 'enabled',
      }),
    );
  if (change.tracking_subdomain !== undefined) {
    const CustomRedirectDomain =
      change.tracking_subdomain === null ? undefined : `${change.tracking_subdomain}.${name}`;
    await sesClient.send(new PutConfigurationSetTrackingOptionsCommand({ ConfigurationSetName, CustomRedirectDomain }));
  }
  const topic = eventsTopic();
  if (change.tracking && topic) {
    await sesClient.send(
      new UpdateConfigurationSetEventDestinationCommand({
        ConfigurationSetName,
        EventDestinationName: EVENT_DESTINATION_NAME,
        EventDestination: {
          Enabled: true,
          MatchingEventTypes: matchingEventTypes(change.tracking),
          SnsDestination: { TopicArn: topic },
        },
      }),
    );
  }
}

/**
 * What shared/domains/domains.ts asks of a domain's identity, whatever makes it: SES for a live
 * project (`sesIdentities`, the functions above), the simulation of ./test-identity.ts for a test twin.
 */
export interface Identities {
  /** makes the identity (and what it needs): its first DKIM tokens and statuses */
  create(settings: IdentitySettings, domainId: string): Promise<IdentityState>;
  /** its state now; undefined when it no longer exists */
  read(domain: { id: string; name: string; created_at: string }): Promise<IdentityState | undefined>;
  remove(name: string, configurationSet: string): Promise<void>;
  /** removes an identity a create that died left behind (`removeAbandonedIdentity`) */
  removeAbandoned(name: string, olderThanMs: number): Promise<boolean>;
  updateSettings(name: string, configurationSet: string, change: SettingsChange): Promise<void>;
}

export const sesIdentities: Identities = {
  create: (settings) => createIdentity(settings),
  read: ({ name }) => readIdentity(name),
  remove: removeIdentity,
  removeAbandoned: removeAbandonedIdentity,
  updateSettings,
};
