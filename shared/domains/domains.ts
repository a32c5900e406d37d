/**
 * Sending domains: creating them in SES, their verification status, their settings.
 *
 * A domain name is unique across the whole deployment, not per project: SES identities belong to
 * the AWS account, so two projects cannot both own `example.com`. A name claim item
 * (keys.domainName) enforces that, and doubles as the sender's lookup from a From domain to the
 * project's domain (findSendingDomain: one GetItem).
 *
 * SES calls cannot join a DynamoDB transaction, so creation goes in three steps, and on the usual
 * path costs one read round trip and one write (DESIGN.md's calls budget):
 *   (a) read the name's claim beside the project's domain count and the parent names' claims; a
 *       claim there is 409 `domain_exists`, unless it may be taken over (below);
 *   (b) create the SES configuration set, identity and MAIL FROM. SES's identity is the lock
 *       between two creates of a free name: one makes it, the other gets AlreadyExists (409);
 *   (c) one transaction: the domain item, the claim (put only if absent, `active`, pointing at the
 *       domain) and the `domain.created` event. If it fails, (b) is undone.
 * A Lambda that dies between (b) and (c) leaves an identity with no claim. The next create of the
 * name gets AlreadyExists from SES, sees no claim, and removes the identity if its configuration
 * set is one of ours (`es-<UUIDv7 domain id>`, which dates the create) begun over CLAIM_TAKEOVER_MS
 * ago, then creates it again. The functions time out after 10 s, far below that age, so a live
 * create never loses its identity. (Claims in state `creating`, which versions before issue 19
 * wrote before calling SES, are taken over after the same age, as below.)
 *
 * Names are not first come, forever:
 * - A claim that never verified (status not_started, pending or failed, never `verified_at`) expires
 *   claimExpiryMs() after it was made (DOMAIN_CLAIM_EXPIRY_HOURS, default 72: SES's own window for
 *   finding the DKIM records). The next create of the name takes it over in one transaction
 *   conditional on the claim being the one read (state `creating`, ours) that deletes the old
 *   project's domain (`domain.deleted` in that project, its count down by one); then (b) removes the
 *   old SES identity and configuration set (an identity is per name in the AWS account) before
 *   creating the new one, and (c) turns the claim `active`. This rare path costs a second read (the
 *   old domain) and a second write; a failure in (b) or (c) releases the claim.
 * - A subdomain of another project's verified domain is refused (409 `parent_domain_verified`):
 *   each parent name is a key, read with GetItems in parallel. A parent of another project's verified domain
 *   is allowed: whoever verifies the parent controls its DNS, and the sender and the inbound worker
 *   look up exact names, so it gets no power over the subdomain's claim.
 * - A project has at most maxDomainsPerProject() domains (MAX_DOMAINS_PER_PROJECT, default 50:
 *   SES's 10,000 identities are the account's, shared by all projects): 409 `domain_limit_reached`.
 *   A counter item (keys.domainCount) is read first, so a project at the limit costs SES nothing,
 *   and is added to in (c) with the condition, so racing creates cannot pass it; deletes take from it.
 *
 * - A domain claim (./claims.ts) takes a held name the same way once it completes: createDomain with
 *   a `Transfer` takes the name over from the holder's domain (verified or not) in the takeover
 *   transaction, which also marks the claim as transferring, then removes the holder's identity and
 *   configuration set in (b) and completes the claim in (c). A crash between them leaves the name
 *   `creating` for the claim's domain id: the next verify of the claim runs the same steps again.
 *
 * Test mode (shared/project/test-mode.ts): a test twin's domains make no AWS call at all and take no
 * deployment-wide name. `modeOf` is the one place that tells the two apart: a test domain's identity
 * is simulated (./test-identity.ts: `pending`, then `verified` after TEST_DOMAIN_VERIFY_SECONDS, or
 * `failed` under `.invalid`), its name is claimed in the twin's partition (keys.testDomainName), so a
 * test `example.com` never blocks, nor is blocked by, a live `example.com` of any project; the
 * parent-name rule and SES tenants are live-only. Everything else (the limit, per twin; statuses,
 * checks and events, livemode false) is the same code.
 *
 * Status: the identity's DKIM status (shared/domains/records.ts). It is re-read by POST
 * /domains/{id}/verify and, for domains SES is still working on, by the scheduled check
 * (functions/workers/domain-verification.ts). A change to `verified` emits `domain.verified`; to
 * `failed` or `temporary_failure`, `domain.verification_failed`. The status write is conditional
 * on the status that was read, so two checks racing emit the event once.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { reportAddress } from './report-addresses';
import {
  del,
  getItem,
  isConditionFailed,
  put,
  queryGsi1Pages,
  queryPage,
  transact,
  update,
  type Item,
  type OnConditionFailed,
  type PageRequest,
  type UpdateSpec,
  type WriteAction,
} from '../platform/db/table';
import { configurationSetName, isIdentityTaken, sesIdentities, type Identities, type IdentityState } from './identity';
import { testIdentities } from './test-identity';
import { isTestProject } from '../project/test-mode';
import { associateDomain, ensureTenant } from './tenants';
import { maxDomainsPerProject } from '../project/domain-limit';
import type { Capability, CreateDomainInput, Domain, DomainStatus, Tls, UpdateDomainInput } from './model';
import { buildRecords, DEFAULT_RETURN_PATH, isSettled } from './records';
import { conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { eventWrite } from '../events/events';
import type { EventType } from '../events/model';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { logger } from '../platform/log';
import { awsRegion } from '../platform/aws/region';
import { deleteComplianceRecord, newComplianceRecord } from './compliance-schedule';

/** A name claim still `creating` after this long belongs to a create that died; another create may take it. */
export const CLAIM_TAKEOVER_MS = 5 * 60 * 1000;
const positiveEnv = (name: string, fallback: number) =>
  Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback;
/** How long a claim that never verified holds its name (see the module comment). */
export const claimExpiryMs = () => positiveEnv('DOMAIN_CLAIM_EXPIRY_HOURS', 72) * 3_600_000;
export { maxDomainsPerProject } from '../project/domain-limit';

interface DomainItem {
  id: string;
  project_id: string;
  /** the mode of the key that created it; verification events carry it */
  livemode: boolean;
  name: string;
  status: DomainStatus;
  dkim_tokens: string[];
  mail_from_status: DomainStatus;
  tls: Tls;
  capabilities: { sending: Capability; receiving: Capability };
  open_tracking: boolean;
  click_tracking: boolean;
  tracking_subdomain: string | null;
  /** the MAIL FROM subdomain; absent on domains made before it could be chosen (they use `send`) */
  custom_return_path?: string;
  configuration_set: string;
  created_at: string;
  updated_at: string;
}

/** The name claim: `creating` while (b) runs, then `active`; `status` and `sending` mirror the domain's for the sender. */
interface DomainNameItem {
  project_id: string;
  domain_id: string;
  name: string;
  state: 'creating' | 'active';
  claimed_at: string;
  configuration_set: string;
  status?: DomainStatus;
  sending?: Capability;
  /** set when the domain verifies: the claim never expires after that */
  verified_at?: string;
  /** the project's SES tenant its identity and configuration set belong to (./tenants.ts); sends name it */
  ses_tenant?: string;
}

const toDomain = (item: DomainItem): Domain => ({
  object: 'domain',
  id: item.id,
  name: item.name,
  status: item.status,
  region: awsRegion(),
  records: buildRecords({
    name: item.name,
    region: awsRegion(),
    dkimTokens: item.dkim_tokens,
    dkimStatus: item.status,
    mailFromStatus: item.mail_from_status,
    receiving: item.capabilities.receiving,
    trackingSubdomain: item.tracking_subdomain,
    returnPath: item.custom_return_path ?? DEFAULT_RETURN_PATH,
    reportAddresses: { dmarc: reportAddress('dmarc', item.id), tls: reportAddress('tls', item.id) },
  }),
  tls: item.tls,
  capabilities: { sending: item.capabilities.sending, receiving: item.capabilities.receiving },
  open_tracking: item.open_tracking,
  click_tracking: item.click_tracking,
  tracking_subdomain: item.tracking_subdomain,
  custom_return_path: item.custom_return_path ?? DEFAULT_RETURN_PATH,
  created_at: item.created_at,
});

interface DomainMode {
  /** the identity: SES's, or the simulation */
  identity: Identities;
  /** the key of a name's claim */
  claimKey: (name: string) => keys.Key;
  /** the name is an SES identity of the AWS account: parent names' claims count, the project's SES tenant takes it */
  accountWide: boolean;
}

/** A project's domains: live ones in SES, a test twin's simulated (the module comment). The one place that tells them apart. */
function modeOf(projectId: string): DomainMode {
  if (isTestProject(projectId))
    return { identity: testIdentities, claimKey: (name) => domainClaimKey(projectId, name), accountWide: false };
  return { identity: sesIdentities, claimKey: keys.domainName, accountWide: true };
}

/**
 * The key of the claim that says whether `name` is a domain of the project: deployment-wide for a live
 * project, the twin's for a test one. Apart from `modeOf` on purpose: the senders' and POST /emails'
 * bundles read claims, and must not take in the SES identity code `modeOf` refers to.
 */
export const domainClaimKey = (projectId: string, name: string): keys.Key =>
  isTestProject(projectId) ? keys.testDomainName(projectId, name) : keys.domainName(name);

const missing = () => notFound('Domain', 'domain_id');
const taken = (name: string) => () => conflict('domain_exists', `The domain ${name} already exists`, 'name');
const claimedBy = (domainId: string) => ({
  expression: '#claim_domain = :claim_domain',
  names: { '#claim_domain': 'domain_id' },
  values: { ':claim_domain': domainId },
});
/** GSI1 entry while SES is still verifying, so the scheduled check finds the domain by key. */
const unsettledIndex = (item: DomainItem) => (isSettled(item.status) ? {} : keys.domainUnsettled(item.id));
const limitReached = (max: number) => () =>
  conflict('domain_limit_reached', `A project has at most ${max} domains (MAX_DOMAINS_PER_PROJECT)`, 'name');
/** Adds `by` to the project's domain counter (created at its first domain). */
const countDomains = (
  projectId: string,
  by: 1 | -1,
  condition?: UpdateSpec['condition'],
  onFailed?: OnConditionFailed,
) =>
  update(
    keys.domainCount(projectId),
    { set: { type: 'domain_count', project_id: projectId }, add: { domain_count: by }, condition },
    onFailed,
  );

/** A claim another create may take over: a create that died long ago, or a claim that expired without ever verifying. */
const abandoned = (claim: DomainNameItem) =>
  !claim.verified_at &&
  (!claim.status || ['not_started', 'pending', 'failed'].includes(claim.status)) &&
  Date.parse(claim.claimed_at) < clockNow() - (claim.state === 'creating' ? CLAIM_TAKEOVER_MS : claimExpiryMs());

/** Deletes the name claim only while it is still this domain's (DynamoDB condition), ignoring one that is not. */
async function releaseClaim(claimKey: keys.Key, name: string, domainId: string): Promise<void> {
  const { expression, names, values } = claimedBy(domainId);
  const action: WriteAction = {
    kind: 'Delete',
    params: {
      Key: claimKey,
      ConditionExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
    onConditionFailed: () => new Error('claim no longer ours'),
  };
  await transact([action]).catch((error) => logger.warn('domain name claim not released', { domain: name, error }));
}

/** A domain claim's completion (./claims.ts): the name moves from the domain holding it to a domain of the caller. */
export interface Transfer {
  /** the id the claim promised the claimant's domain */
  domainId: string;
  /** the holder's domain the name's claim must still point at (unless a crashed earlier attempt moved it to `domainId`) */
  fromDomainId: string;
  /** the holder's configuration set: removed with its identity in (b), again on a retry */
  fromConfigurationSet: string;
  /** the claim's own writes in the takeover transaction (conditions that it is still the one to complete) */
  takeover: WriteAction[];
  /** the claim's own writes in (c): completed */
  complete: WriteAction[];
  open_tracking?: boolean;
  click_tracking?: boolean;
}

export async function createDomain(caller: Caller, input: CreateDomainInput, transfer?: Transfer): Promise<Domain> {
  const region = awsRegion();
  if (input.region !== undefined && input.region !== region)
    throw unprocessable([
      { code: 'invalid_value', message: `this deployment sends from ${region} only`, path: 'region' },
    ]);
  const { name } = input;
  const id = transfer?.domainId ?? newId();
  const now = nowIso();
  const mode = modeOf(caller.projectId);
  const claimKey = mode.claimKey(name);
  const max = maxDomainsPerProject();
  const labels = name.split('.');
  // one read round trip: the project's count, the name's claim and each parent name's claim (at most
  // 126; usually one or two; none for a test domain), side by side
  const [count, existing, ...parents] = await Promise.all([
    getItem(keys.domainCount(caller.projectId)),
    getItem<DomainNameItem>(claimKey),
    ...(mode.accountWide
      ? labels.slice(1, -1).map((_, i) => getItem<DomainNameItem>(keys.domainName(labels.slice(i + 1).join('.'))))
      : []),
  ]);
  if (Number(count?.domain_count) >= max) throw limitReached(max)();
  const owned = parents.find(
    (c) => c && c.project_id !== caller.projectId && (c.status === 'verified' || c.verified_at),
  );
  if (owned)
    throw conflict(
      'parent_domain_verified',
      `${owned.name} is a verified domain of another project: its subdomains cannot be added`,
      'name',
    );

  // (a) a claim of the name: taken, unless it is a create that died long ago or a claim that
  // expired, which is taken over first (the rare path: its old domain is read and deleted with it)
  const transferred = (claim: DomainNameItem) =>
    transfer !== undefined &&
    (claim.domain_id === transfer.fromDomainId || (claim.domain_id === id && claim.state === 'creating'));
  const previous = existing && (abandoned(existing) || transferred(existing) ? existing : undefined);
  if (existing && !previous) throw taken(name)();
  if (previous) {
    const old =
      previous.state === 'active'
        ? await getItem<DomainItem>(keys.domain(previous.project_id, previous.domain_id))
        : undefined;
    await transact([
      update(
        claimKey,
        {
          set: {
            project_id: caller.projectId,
            domain_id: id,
            state: 'creating',
            claimed_at: now,
            configuration_set: configurationSetName(id),
          },
          // a transfer: the holder's status and tenant go with its domain
          remove: transfer ? ['status', 'verified_at', 'sending', 'ses_tenant'] : [],
          // still the claim that was read, and (unless a domain claim moves it) still too old and never verified
          condition: transfer
            ? {
                expression: '#d = :d AND #s = :s AND #at = :at',
                names: { '#d': 'domain_id', '#s': 'state', '#at': 'claimed_at' },
                values: { ':d': previous.domain_id, ':s': previous.state, ':at': previous.claimed_at },
              }
            : {
                expression:
                  '#d = :d AND #s = :s AND #at = :at AND attribute_not_exists(verified_at) AND (attribute_not_exists(#st) OR #st IN (:n, :p, :f))',
                names: { '#d': 'domain_id', '#s': 'state', '#at': 'claimed_at', '#st': 'status' },
                values: {
                  ':d': previous.domain_id,
                  ':s': previous.state,
                  ':at': previous.claimed_at,
                  ':n': 'not_started',
                  ':p': 'pending',
                  ':f': 'failed',
                },
              },
        },
        taken(name),
      ),
      ...(transfer?.takeover ?? []),
      ...(old
        ? [
            del(keys.domain(old.project_id, old.id), { ifExists: taken(name) }),
            deleteComplianceRecord(old.project_id, old.id),
            countDomains(old.project_id, -1),
            eventWrite({ projectId: old.project_id, livemode: old.livemode }, 'domain.deleted', toDomain(old)),
          ]
        : []),
    ]);
  }

  // (b) SES; on failure a claim taken over is released so the name stays free. Without a claim, SES's
  // identity is the lock: of two creates of a free name, SES lets one make it (AlreadyExists for the other)
  const item: DomainItem = {
    id,
    project_id: caller.projectId,
    livemode: caller.livemode,
    name,
    status: 'not_started',
    dkim_tokens: [],
    mail_from_status: 'not_started',
    tls: input.tls ?? 'opportunistic',
    capabilities: {
      sending: input.capabilities?.sending ?? 'enabled',
      receiving: input.capabilities?.receiving ?? 'disabled',
    },
    open_tracking: transfer?.open_tracking ?? false,
    click_tracking: transfer?.click_tracking ?? false,
    tracking_subdomain: null,
    custom_return_path: input.custom_return_path ?? DEFAULT_RETURN_PATH,
    configuration_set: configurationSetName(id),
    created_at: now,
    updated_at: now,
  };
  let state: IdentityState;
  let tenant: string | undefined;
  let recordTenant: WriteAction | undefined;
  const identity = () =>
    mode.identity.create(
      {
        name,
        returnPath: item.custom_return_path ?? DEFAULT_RETURN_PATH,
        configurationSet: item.configuration_set,
        tls: item.tls,
        sending: item.capabilities.sending,
        open_tracking: item.open_tracking,
        click_tracking: item.click_tracking,
      },
      id,
    );
  const undo = async () => {
    await mode.identity
      .remove(name, item.configuration_set)
      .catch((cleanup) => logger.error('could not undo a domain in SES', { domain: name, error: cleanup }));
    if (previous) await releaseClaim(claimKey, name, id);
  };
  try {
    if (transfer) await mode.identity.remove(name, transfer.fromConfigurationSet);
    if (previous) await mode.identity.remove(name, previous.configuration_set);
    state = await identity().catch(async (error) => {
      // no claim, yet SES has the identity: a create that died between SES and (c) may have left it
      if (previous || !isIdentityTaken(error) || !(await mode.identity.removeAbandoned(name, CLAIM_TAKEOVER_MS)))
        throw error;
      return identity();
    });
  } catch (error) {
    if (previous) await releaseClaim(claimKey, name, id);
    throw error;
  }
  if (mode.accountWide && caller.livemode) {
    // the project's SES tenant (./tenants.ts): made with its first live domain, this domain's resources its own
    try {
      const ensured = await ensureTenant(caller.projectId);
      await associateDomain(ensured.tenant, name, item.configuration_set);
      tenant = ensured.tenant.name;
      recordTenant = ensured.record;
    } catch (error) {
      await undo();
      throw error;
    }
  }
  Object.assign(item, {
    status: state.dkimStatus,
    dkim_tokens: state.dkimTokens,
    mail_from_status: state.mailFromStatus,
  });

  // (c) the domain, the claim (new, or the one taken over) active, the event: one transaction
  const domain = toDomain(item);
  const active = {
    state: 'active',
    status: item.status,
    sending: item.capabilities.sending,
    ...(tenant ? { ses_tenant: tenant } : {}),
  };
  try {
    await transact([
      put(
        { ...keys.domain(caller.projectId, id), type: 'domain', ...item, ...unsettledIndex(item) },
        { ifAbsent: () => new Error(`domain id ${id} exists`) },
      ),
      previous
        ? update(claimKey, { set: active, condition: claimedBy(id) }, taken(name))
        : put(
            {
              ...claimKey,
              type: 'domain_name',
              project_id: caller.projectId,
              domain_id: id,
              name,
              claimed_at: now,
              configuration_set: item.configuration_set,
              ...active,
            },
            { ifAbsent: taken(name) },
          ),
      countDomains(
        caller.projectId,
        1,
        { expression: 'attribute_not_exists(domain_count) OR domain_count < :max', values: { ':max': max } },
        limitReached(max),
      ),
      eventWrite(caller, 'domain.created', domain),
      newComplianceRecord(item, Date.parse(now)), // its scheduled compliance checks, the first at once
      ...(transfer?.complete ?? []),
      ...(recordTenant ? [recordTenant] : []), // the project's first live domain: its tenant, recorded
    ]);
  } catch (error) {
    await undo();
    throw error;
  }
  return domain;
}

async function readDomain(caller: Caller, domainId: string): Promise<DomainItem> {
  const item = await getItem<DomainItem>(keys.domain(caller.projectId, domainId));
  if (!item) throw missing();
  return item;
}

export async function getDomain(caller: Caller, domainId: string): Promise<Domain> {
  return toDomain(await readDomain(caller, domainId));
}

export async function listDomains(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage<DomainItem>(keys.domains(caller.projectId), page);
  return { records: items.map(toDomain), hasMore };
}

/** Applies the changed settings to SES, then stores them with `domain.updated` in one transaction. */
export async function updateDomain(caller: Caller, domainId: string, input: UpdateDomainInput): Promise<Domain> {
  const item = await readDomain(caller, domainId);
  const next: DomainItem = {
    ...item,
    open_tracking: input.open_tracking ?? item.open_tracking,
    click_tracking: input.click_tracking ?? item.click_tracking,
    tracking_subdomain: input.tracking_subdomain === undefined ? item.tracking_subdomain : input.tracking_subdomain,
    tls: input.tls ?? item.tls,
    capabilities: { ...item.capabilities, ...input.capabilities },
    updated_at: nowIso(),
  };
  if (next.tracking_subdomain && next.tracking_subdomain.length + 1 + item.name.length > 253) {
    throw unprocessable([
      {
        code: 'too_big',
        message: 'the tracking hostname <tracking_subdomain>.<name> may be at most 253 characters',
        path: 'tracking_subdomain',
      },
    ]);
  }
  const trackingChanged = input.open_tracking !== undefined || input.click_tracking !== undefined;
  const mode = modeOf(caller.projectId);
  await mode.identity.updateSettings(item.name, item.configuration_set, {
    tls: input.tls,
    sending: input.capabilities?.sending,
    tracking_subdomain: input.tracking_subdomain,
    tracking: trackingChanged ? { open_tracking: next.open_tracking, click_tracking: next.click_tracking } : undefined,
  });
  const domain = toDomain(next);
  const { open_tracking, click_tracking, tracking_subdomain, tls, capabilities, updated_at } = next;
  await transact([
    update(
      keys.domain(caller.projectId, domainId),
      {
        set: { open_tracking, click_tracking, tracking_subdomain, tls, capabilities, updated_at },
        condition: { expression: 'attribute_exists(PK)' },
      },
      missing,
    ),
    ...(input.capabilities?.sending
      ? [
          update(
            mode.claimKey(item.name),
            { set: { sending: capabilities.sending }, condition: claimedBy(domainId) },
            missing,
          ),
        ]
      : []),
    eventWrite(caller, 'domain.updated', domain),
  ]);
  return domain;
}

/**
 * Removes the SES identity and configuration set, then the domain, its name claim and `domain.deleted` together.
 * Returns the domain as it was: its caller cancels the emails still waiting to go out from it (cancelPendingEmailsFrom).
 */
export async function deleteDomain(caller: Caller, domainId: string): Promise<Domain> {
  const item = await readDomain(caller, domainId);
  const mode = modeOf(caller.projectId);
  await mode.identity.remove(item.name, item.configuration_set); // a retry after a failure here finds them gone: fine
  await transact([
    del(keys.domain(caller.projectId, domainId), { ifExists: missing }), // a concurrent delete loses here
    del(mode.claimKey(item.name)), // ours while the domain exists: a takeover of an active claim deletes its domain
    deleteComplianceRecord(caller.projectId, domainId),
    countDomains(caller.projectId, -1),
    eventWrite(caller, 'domain.deleted', toDomain(item)),
  ]);
  return toDomain(item);
}

export async function verifyDomain(caller: Caller, domainId: string): Promise<Domain> {
  return (await refreshDomain(await readDomain(caller, domainId))).domain;
}

const STATUS_EVENTS: Partial<Record<DomainStatus, EventType>> = {
  verified: 'domain.verified',
  failed: 'domain.verification_failed',
  temporary_failure: 'domain.verification_failed',
};

/**
 * Reads the identity from SES and stores what changed: status, MAIL FROM status, DKIM tokens,
 * the GSI1 entry of unsettled domains, the claim's status, and the event of a status change, in
 * one transaction conditional on what was read. An identity that is gone from SES makes the
 * domain `failed`: it cannot send any more.
 */
async function refreshDomain(item: DomainItem): Promise<{ domain: Domain; changed: boolean }> {
  const mode = modeOf(item.project_id);
  const ses = await mode.identity.read(item);
  const next: DomainItem = ses
    ? {
        ...item,
        status: ses.dkimStatus,
        mail_from_status: ses.mailFromStatus,
        dkim_tokens: ses.dkimTokens.length ? ses.dkimTokens : item.dkim_tokens,
      }
    : { ...item, status: 'failed', mail_from_status: 'failed' };
  const statusChanged = next.status !== item.status;
  if (
    !statusChanged &&
    next.mail_from_status === item.mail_from_status &&
    next.dkim_tokens.join() === item.dkim_tokens.join()
  ) {
    return { domain: toDomain(item), changed: false };
  }
  next.updated_at = nowIso();
  const domain = toDomain(next);
  const key = keys.domain(item.project_id, item.id);
  const eventType = statusChanged ? STATUS_EVENTS[next.status] : undefined;
  const settled = isSettled(next.status);
  try {
    await transact([
      update(
        key,
        {
          set: {
            status: next.status,
            mail_from_status: next.mail_from_status,
            dkim_tokens: next.dkim_tokens,
            updated_at: next.updated_at,
            ...unsettledIndex(next),
          },
          remove: settled ? ['GSI1PK', 'GSI1SK'] : [],
          condition: {
            expression: '#seen_status = :seen_status AND #seen_mail_from = :seen_mail_from',
            names: { '#seen_status': 'status', '#seen_mail_from': 'mail_from_status' },
            values: { ':seen_status': item.status, ':seen_mail_from': item.mail_from_status },
          },
        },
        { tag: 'status moved', withItem: true },
      ),
      ...(statusChanged
        ? [
            update(
              mode.claimKey(item.name),
              {
                set: { status: next.status, ...(next.status === 'verified' ? { verified_at: next.updated_at } : {}) },
                condition: claimedBy(item.id),
              },
              { tag: 'claim moved' },
            ),
          ]
        : []),
      ...(eventType ? [eventWrite({ projectId: item.project_id, livemode: item.livemode }, eventType, domain)] : []),
    ]);
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    // another check (or a delete) got there first, and emitted the event if there was one; the
    // domain's failed condition brings the domain as it is now, the claim's does not
    const current =
      error.tag === 'status moved' ? (error.item as DomainItem | undefined) : await getItem<DomainItem>(key);
    if (!current) throw missing();
    return { domain: toDomain(current), changed: false };
  }
  return { domain, changed: true };
}

/**
 * The scheduled check: re-reads every domain SES is still verifying (GSI1 `DOMAIN_UNSETTLED`,
 * oldest first) until `deadline` (epoch ms). One domain failing is logged and does not stop the rest.
 */
export async function checkUnsettledDomains(deadline: number): Promise<{ checked: number; changed: number }> {
  let checked = 0;
  let changed = 0;
  for await (const page of queryGsi1Pages<DomainItem>(keys.DOMAINS_UNSETTLED, { pageSize: 50 })) {
    for (const item of page) {
      if (Date.now() >= deadline) return { checked, changed }; // machine time: the worker's remaining time
      try {
        checked += 1;
        if ((await refreshDomain(item)).changed) changed += 1;
      } catch (error) {
        logger.error('domain check failed', { domain_id: item.id, error });
      }
    }
  }
  return { checked, changed };
}

/** What the sender needs to send from `domainName` for a project: undefined unless the project owns that domain. */
export async function findSendingDomain(projectId: string, domainName: string): Promise<SendingDomain> {
  return sendingDomainOf(projectId, await getItem(domainClaimKey(projectId, domainName)));
}

/** The same, from the name's claim item (as a failed `sendingDomainCheck` brings it). */
export function sendingDomainOf(
  projectId: string,
  item: Item | undefined,
):
  | {
      id: string;
      name: string;
      status: DomainStatus;
      configuration_set: string;
      sending: Capability;
      ses_tenant: string | null;
    }
  | undefined {
  const claim = item as DomainNameItem | undefined;
  if (!claim || claim.state !== 'active' || claim.project_id !== projectId) return undefined;
  return {
    id: claim.domain_id,
    name: claim.name,
    status: claim.status ?? 'not_started',
    configuration_set: claim.configuration_set,
    sending: claim.sending ?? 'enabled',
    ses_tenant: claim.ses_tenant ?? null,
  };
}

export type SendingDomain = ReturnType<typeof sendingDomainOf>;

/** Why `domainName` cannot send for the caller (none when it can): not the project's, sending disabled, or (live keys) not verified. */
export function sendingDomainProblems(
  caller: Caller,
  domainName: string,
  domain: SendingDomain,
  path: string,
): ErrorDetail[] {
  if (!domain)
    return [{ code: 'domain_not_found', message: `The domain ${domainName} is not a domain of this project`, path }];
  if (domain.sending === 'disabled')
    return [{ code: 'sending_disabled', message: `Sending is disabled for the domain ${domainName}`, path }];
  if (caller.livemode && domain.status !== 'verified') {
    return [
      {
        code: 'domain_not_verified',
        message: `The domain ${domainName} is not verified (status ${domain.status})`,
        path,
      },
    ];
  }
  return [];
}

/**
 * The same conditions as `sendingDomainProblems`, as a ConditionCheck on the name's claim for the
 * transaction that starts a send: no read before the write, and a domain deleted or disabled
 * meanwhile fails the transaction. `onFailed` can ask for the claim as it was (`withItem`), to say
 * why with `sendingDomainOf` and `sendingDomainProblems` without reading it again.
 */
export function sendingDomainCheck(caller: Caller, domainName: string, onFailed: OnConditionFailed): WriteAction {
  const verified = caller.livemode ? ' AND #status = :verified' : '';
  return {
    kind: 'ConditionCheck',
    params: {
      Key: domainClaimKey(caller.projectId, domainName),
      ConditionExpression: `#state = :active AND #project = :project AND (attribute_not_exists(#sending) OR #sending <> :disabled)${verified}`,
      ExpressionAttributeNames: {
        '#state': 'state',
        '#project': 'project_id',
        '#sending': 'sending',
        ...(caller.livemode ? { '#status': 'status' } : {}),
      },
      ExpressionAttributeValues: {
        ':active': 'active',
        ':project': caller.projectId,
        ':disabled': 'disabled',
        ...(caller.livemode ? { ':verified': 'verified' } : {}),
      },
    },
    onConditionFailed: onFailed,
  };
}
