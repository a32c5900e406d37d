/**
 * Domain claims (Resend's `domains.claims`): a project takes a domain name that another project of
 * the deployment holds (POST /domains refuses it: ./domains.ts) by proving it controls the name's DNS.
 *
 * - POST /domains/claim: the name must be an active domain of another live project (a name nobody
 *   holds is 422 `domain_not_claimable`: add it with POST /domains). The claim promises the domain it
 *   will become an id (`domain_id`, the path parameter of GET and verify) and names a TXT record:
 *   `_resend-claim.<name>` = `resend-domain-claim=<32 hex>`. It is `pending` until
 *   DOMAIN_CLAIM_WINDOW_DAYS (7) after its creation (`expires_at`), then `expired`. A newer claim of
 *   the name (by any project) makes it `superseded`, in the newer one's transaction (keys.domainClaimName
 *   points at the name's newest claim).
 * - POST /domains/{domain_id}/claim/verify looks the record up (shared/platform/net/dns.ts): not
 *   there, the claim stays `pending`. There, it is `verified` and the grace period starts:
 *   DOMAIN_CLAIM_GRACE_HOURS (72) in which the holder's project gets `domain.claim_started` (its
 *   domain, with `claim: {id, grace_ends_at}`) and may object by sending from the domain: an email
 *   from it accepted after that moment makes the claim `blocked` with `recent_owner_activity` (for
 *   good). `expires_at` moves to DOMAIN_CLAIM_WINDOW_DAYS after the grace period's end.
 * - Verify after the grace period completes it, unless the holder still has scheduled mail from the
 *   domain (`blocked`, `pending_scheduled_emails`, until a later verify finds none). Completion is
 *   POST /domains' create with a `Transfer` (./domains.ts): one transaction takes the name from the
 *   holder, deletes the holder's domain with `domain.deleted` and marks the claim transferring; the
 *   holder's SES identity and configuration set go, the claimant's are made (its tenant, as a create
 *   does); one transaction writes the domain, the name active, `domain.created` and the claim
 *   `completed`. SES calls sit between, so it cannot be one transaction: a crash leaves the claim
 *   `verified` (transferring, which no newer claim supersedes) and the name `creating` for the promised
 *   id, and the next verify runs the same steps again. Then the holder's waiting mail from the domain is
 *   canceled as DELETE /domains cancels it (the handler). One verify completes at a time (a lease of
 *   COMPLETION_LEASE_MS on the claim; a verify meanwhile answers it `verified`). A completion POST /domains would refuse
 *   (another project's verified parent, the domain limit, a third project holding the name now) makes
 *   the claim `failed` with that `failure_reason`.
 * - `blocked` with `grace_period` is not used: during the grace period a claim is `verified`, with
 *   `grace_ends_at`. `canceled`: the claimant's DELETE /domains/{domain_id} of the promised id cancels a
 *   claim not yet completed (none of its domain exists yet, so the delete answers 404 otherwise).
 * Claims are live only: a test key's domain names are its sandbox's own, never held by another project.
 */
import { randomBytes } from 'node:crypto';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, transact, update, type WriteAction } from '../platform/db/table';
import { ApiError, conflict, notFound, unprocessable } from '../platform/errors';
import { eventWrite } from '../events/events';
import { newId } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { awsRegion } from '../platform/aws/region';
import { lookupTxt } from '../platform/net/dns';
import { isTestProject } from '../project/test-mode';
import { createDomain, getDomain } from './domains';
import { configurationSetName } from './identity';
import type { ClaimDomainInput, DomainClaim, DomainClaimBlockedReason, DomainClaimStatus, DomainStatus } from './model';

const positiveEnv = (name: string, fallback: number) =>
  Number(process.env[name]) > 0 ? Number(process.env[name]) : fallback;
/** How long a claim may wait for its record, and after the grace period for its completion. */
export const claimWindowMs = () => positiveEnv('DOMAIN_CLAIM_WINDOW_DAYS', 7) * 86_400_000;
/** How long the holder has to object once the claim is verified. */
export const claimGraceMs = () => positiveEnv('DOMAIN_CLAIM_GRACE_HOURS', 72) * 3_600_000;

/** How long one verify holds a claim's completion (over the route's 25 s): another verify meanwhile leaves it alone. */
const COMPLETION_LEASE_MS = 60_000;

export const CLAIM_RECORD_PREFIX = '_resend-claim.';
export const CLAIM_VALUE_PREFIX = 'resend-domain-claim=';

interface ClaimItem {
  id: string;
  project_id: string;
  domain_id: string;
  name: string;
  status: DomainClaimStatus;
  blocked_reason: DomainClaimBlockedReason | null;
  failure_reason: string | null;
  token: string;
  created_at: string;
  expires_at: string;
  /** when the record was found: the grace period's start */
  started_at?: string;
  grace_ends_at?: string;
  /** the domain that held the name when the claim verified */
  holder_project_id?: string;
  holder_domain_id?: string;
  holder_configuration_set?: string;
  /** set by the completion's first transaction: from then on only completing it is left */
  transferring?: boolean;
  /** the verify completing it holds it until then (COMPLETION_LEASE_MS) */
  completing_until?: string;
  /** what the promised domain is created with (POST /domains' body and the tracking switches) */
  settings: ClaimDomainInput;
}

/** The holder's name claim, as ./domains.ts stores it (only what a domain claim reads). */
interface HeldName {
  project_id: string;
  domain_id: string;
  state: 'creating' | 'active';
  configuration_set: string;
  status?: DomainStatus;
}

/** A claim's statuses that a later verify may still move. */
const OPEN: DomainClaimStatus[] = ['pending', 'verified', 'blocked'];
const isOpen = (claim: ClaimItem) => OPEN.includes(claim.status) && claim.blocked_reason !== 'recent_owner_activity';

const toClaim = (item: ClaimItem): DomainClaim => ({
  object: 'domain_claim',
  id: item.id,
  name: item.name,
  status: item.status,
  domain_id: item.domain_id,
  region: awsRegion(),
  record: {
    type: 'TXT',
    name: `${CLAIM_RECORD_PREFIX}${item.name}`,
    value: `${CLAIM_VALUE_PREFIX}${item.token}`,
    ttl: 'Auto',
  },
  blocked_reason: item.blocked_reason,
  failure_reason: item.failure_reason,
  created_at: item.created_at,
  expires_at: item.expires_at,
  grace_ends_at: item.grace_ends_at ?? null,
});

const missing = () => notFound('Domain claim', 'domain_id');
const notClaimable = (message: string) => unprocessable([{ code: 'domain_not_claimable', message, path: 'name' }]);
const moved = () => conflict('claim_changed', 'The claim changed meanwhile: ask again', 'domain_id');

/** The claim still in the status and window it was read in: every write of a claim is conditional on it. */
const unchanged = (claim: ClaimItem) => ({
  expression: '#status = :status AND #expires = :expires',
  names: { '#status': 'status', '#expires': 'expires_at' },
  values: { ':status': claim.status, ':expires': claim.expires_at },
});

export async function createClaim(caller: Caller, input: ClaimDomainInput): Promise<DomainClaim> {
  const region = awsRegion();
  if (input.region !== undefined && input.region !== region)
    throw unprocessable([
      { code: 'invalid_value', message: `this deployment sends from ${region} only`, path: 'region' },
    ]);
  if (isTestProject(caller.projectId))
    throw notClaimable('A test key cannot claim a domain: its domain names are its own sandbox (use POST /domains)');
  const { name } = input;
  const [held, newest] = await Promise.all([
    getItem<HeldName>(keys.domainName(name)),
    getItem<{ project_id: string; domain_id: string }>(keys.domainClaimName(name)),
  ]);
  if (!held || held.state !== 'active') throw notClaimable(`No project holds ${name}: add it with POST /domains`);
  if (held.project_id === caller.projectId) throw notClaimable(`${name} is already a domain of this project`);
  const older = newest && (await getItem<ClaimItem>(keys.domainClaim(newest.project_id, newest.domain_id)));
  if (older?.transferring && isOpen(older))
    throw conflict('claim_in_progress', `A claim of ${name} is completing now`, 'name');

  const now = clockNow();
  const item: ClaimItem = {
    id: newId(),
    project_id: caller.projectId,
    domain_id: newId(),
    name,
    status: 'pending',
    blocked_reason: null,
    failure_reason: null,
    token: randomBytes(16).toString('hex'),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + claimWindowMs()).toISOString(),
    settings: input,
  };
  const supersede: WriteAction[] =
    older && isOpen(older)
      ? [
          update(
            keys.domainClaim(older.project_id, older.domain_id),
            {
              set: { status: 'superseded', blocked_reason: null },
              condition: {
                ...unchanged(older),
                expression: `${unchanged(older).expression} AND attribute_not_exists(transferring)`,
              },
            },
            moved,
          ),
        ]
      : [];
  await transact([
    put(
      { ...keys.domainClaim(caller.projectId, item.domain_id), type: 'domain_claim', ...item },
      {
        ifAbsent: () => new Error(`domain claim ${item.domain_id} exists`),
      },
    ),
    // the name's newest claim: still the one read (a claim made meanwhile loses here)
    update(
      keys.domainClaimName(name),
      {
        set: { type: 'domain_claim_name', project_id: caller.projectId, domain_id: item.domain_id },
        condition: newest
          ? { expression: '#d = :d', names: { '#d': 'domain_id' }, values: { ':d': newest.domain_id } }
          : { expression: 'attribute_not_exists(PK)' },
      },
      () => conflict('claim_changed', `Another claim of ${name} was made meanwhile: try again`, 'name'),
    ),
    ...supersede,
  ]);
  return toClaim(item);
}

async function readClaim(caller: Caller, domainId: string): Promise<ClaimItem> {
  const item = await getItem<ClaimItem>(keys.domainClaim(caller.projectId, domainId));
  if (!item) throw missing();
  return item;
}

/** An open claim past `expires_at` that no completion began is expired, stored or not yet. */
const lapsed = (claim: ClaimItem) => isOpen(claim) && !claim.transferring && Date.parse(claim.expires_at) <= clockNow();

export async function getClaim(caller: Caller, domainId: string): Promise<DomainClaim> {
  const claim = await readClaim(caller, domainId);
  return toClaim(lapsed(claim) ? { ...claim, status: 'expired', blocked_reason: null } : claim);
}

/** Sets `change` on the claim if it is still as read; answers it as it is now either way. */
async function move(claim: ClaimItem, change: Partial<ClaimItem>, also: WriteAction[] = []): Promise<ClaimItem> {
  const key = keys.domainClaim(claim.project_id, claim.domain_id);
  try {
    await transact([update(key, { set: change, condition: unchanged(claim) }, { tag: 'claim moved' }), ...also]);
  } catch (error) {
    if (!isConditionFailed(error, 'claim moved')) throw error;
    return (await getItem<ClaimItem>(key)) ?? claim;
  }
  return { ...claim, ...change };
}

/** What the claim needs to know of the holder's mail from the domain (shared/emails, which comes after domains). */
export interface HolderMail {
  /** whether the project accepted an email from `name` at or after `since` (ISO) */
  sentSince(projectId: string, name: string, since: string): Promise<boolean>;
  /** whether the project has an email from `name` scheduled for later */
  scheduled(projectId: string, name: string): Promise<boolean>;
}

/**
 * POST /domains/{domain_id}/claim/verify: moves the claim as far as it can go now (the module
 * comment). Answers the claim, and the holder whose waiting mail from the name the caller is to
 * cancel when this call completed it.
 */
export async function verifyClaim(
  caller: Caller,
  domainId: string,
  mail: HolderMail,
): Promise<{ claim: DomainClaim; completedFrom?: string }> {
  let claim = await readClaim(caller, domainId);
  if (!isOpen(claim)) return { claim: toClaim(claim) };
  if (lapsed(claim)) return { claim: toClaim(await move(claim, { status: 'expired', blocked_reason: null })) };

  if (claim.status === 'pending') {
    const values = await lookupTxt(`${CLAIM_RECORD_PREFIX}${claim.name}`);
    if (!values.includes(`${CLAIM_VALUE_PREFIX}${claim.token}`)) return { claim: toClaim(claim) };
    claim = await startGrace(claim);
    if (claim.status !== 'verified') return { claim: toClaim(claim) };
  }

  // verified (or blocked by scheduled mail): the holder's objection, then the grace period, then its schedule
  const holder = claim.holder_project_id;
  if (holder && !claim.transferring && (await mail.sentSince(holder, claim.name, claim.started_at!)))
    return { claim: toClaim(await move(claim, { status: 'blocked', blocked_reason: 'recent_owner_activity' })) };
  if (Date.parse(claim.grace_ends_at!) > clockNow()) return { claim: toClaim(claim) };
  if (holder && !claim.transferring && (await mail.scheduled(holder, claim.name))) {
    if (claim.blocked_reason === 'pending_scheduled_emails') return { claim: toClaim(claim) };
    return { claim: toClaim(await move(claim, { status: 'blocked', blocked_reason: 'pending_scheduled_emails' })) };
  }
  return complete(caller, claim);
}

/** The record is there: `verified`, the grace period starts, and the holder is told, in one transaction. */
async function startGrace(claim: ClaimItem): Promise<ClaimItem> {
  const held = await getItem<HeldName>(keys.domainName(claim.name));
  const now = clockNow();
  const holds = held && held.state === 'active' && held.project_id !== claim.project_id ? held : undefined;
  const holderDomain = holds
    ? await getDomain(
        { projectId: holds.project_id, livemode: true, permission: 'full_access' },
        holds.domain_id,
      ).catch((error) => {
        if (error instanceof ApiError && error.statusCode === 404) return undefined; // deleted meanwhile
        throw error;
      })
    : undefined;
  // nobody holds the name any more (its domain was deleted): nobody to wait for
  const graceEnds = holderDomain ? now + claimGraceMs() : now;
  const change: Partial<ClaimItem> = {
    status: 'verified',
    blocked_reason: null,
    started_at: new Date(now).toISOString(),
    grace_ends_at: new Date(graceEnds).toISOString(),
    expires_at: new Date(graceEnds + claimWindowMs()).toISOString(),
    ...(holds && holderDomain
      ? {
          holder_project_id: holds.project_id,
          holder_domain_id: holds.domain_id,
          holder_configuration_set: holds.configuration_set,
        }
      : {}),
  };
  const told =
    holds && holderDomain
      ? [
          eventWrite({ projectId: holds.project_id, livemode: true }, 'domain.claim_started', {
            ...holderDomain,
            claim: { id: claim.id, grace_ends_at: change.grace_ends_at },
          }),
        ]
      : [];
  return move(claim, change, told);
}

/** The completion: POST /domains' create with a Transfer (./domains.ts); what it refuses fails the claim. */
async function complete(caller: Caller, claim: ClaimItem): Promise<{ claim: DomainClaim; completedFrom?: string }> {
  const key = keys.domainClaim(claim.project_id, claim.domain_id);
  const stillOpen = {
    expression: '#status IN (:verified, :blocked) AND #expires = :expires',
    names: { '#status': 'status', '#expires': 'expires_at' },
    values: { ':verified': 'verified', ':blocked': 'blocked', ':expires': claim.expires_at },
  };
  // one completion at a time: a second verify meanwhile answers the claim as it is (`verified`)
  const now = clockNow();
  try {
    await transact([
      update(
        key,
        {
          set: { completing_until: new Date(now + COMPLETION_LEASE_MS).toISOString() },
          condition: {
            expression: `${stillOpen.expression} AND (attribute_not_exists(#lease) OR #lease < :now)`,
            names: { ...stillOpen.names, '#lease': 'completing_until' },
            values: { ...stillOpen.values, ':now': new Date(now).toISOString() },
          },
        },
        { tag: 'completing' },
      ),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'completing')) return { claim: toClaim(claim) };
    throw error;
  }
  const { region: _region, open_tracking, click_tracking, ...input } = claim.settings;
  try {
    await createDomain(caller, input, {
      domainId: claim.domain_id,
      fromDomainId: claim.holder_domain_id ?? claim.domain_id,
      fromConfigurationSet: claim.holder_configuration_set ?? configurationSetName(claim.domain_id),
      takeover: [
        update(
          key,
          { set: { transferring: true, status: 'verified', blocked_reason: null }, condition: stillOpen },
          moved,
        ),
      ],
      complete: [
        update(
          key,
          {
            set: { status: 'completed', blocked_reason: null },
            remove: ['transferring', 'completing_until'],
            condition: stillOpen,
          },
          moved,
        ),
      ],
      open_tracking,
      click_tracking,
    });
  } catch (error) {
    // what POST /domains refuses fails the claim; anything else (SES) leaves it for the next verify
    if (!(error instanceof ApiError) || ![409, 422].includes(error.statusCode)) throw error;
    const current = await getItem<ClaimItem>(key);
    if (!current || !isOpen(current)) return { claim: toClaim(current ?? claim) }; // a newer claim or a completion got there
    const reason = `${error.message} (${Array.isArray(error.errors) ? error.errors[0]?.code : error.statusCode})`;
    return { claim: toClaim(await move(current, { status: 'failed', blocked_reason: null, failure_reason: reason })) };
  }
  return {
    claim: toClaim({ ...claim, status: 'completed', blocked_reason: null, transferring: undefined }),
    completedFrom: claim.holder_project_id,
  };
}

/**
 * DELETE /domains/{domain_id} of a promised id with no domain yet: cancels the claim (`canceled`) unless
 * it completed or its completion began. Answers whether there was such a claim.
 */
export async function cancelClaim(caller: Caller, domainId: string): Promise<boolean> {
  const claim = await getItem<ClaimItem>(keys.domainClaim(caller.projectId, domainId));
  if (!claim || !isOpen(claim) || claim.transferring) return false;
  const after = await move(claim, { status: 'canceled', blocked_reason: null });
  return after.status === 'canceled';
}
