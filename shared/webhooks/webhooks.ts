/**
 * Webhooks: endpoints that receive a project's events, signed (shared/webhooks/signing.ts), with
 * a delivery record per event (shared/webhooks/deliveries.ts) and a manual retry
 * (shared/webhooks/retry.ts, apart so that only its function carries an SQS client).
 *
 * Status: `pending` from creation until the first successful delivery, then `enabled`;
 * deliveries are attempted in both. `disabled` (by PATCH, or by the dispatcher after
 * MAX_FAILED_DELIVERIES deliveries in a row ended `failed`) stops them; PATCH `status: enabled`
 * resumes them and resets the failure counters. Every change writes its
 * `webhook.endpoint.*` event in its own transaction (the outbox); `data.object` is the webhook
 * as the API shows it, never its secret.
 *
 * The signing secret (an `ed25519` webhook's private key) is stored sealed under the secrets key
 * (shared/platform/secrets.ts: only create and rotate seal, only the dispatcher opens) and shown
 * only by create and rotate (the private key never: its `public_key` is on the webhook). The
 * algorithm is chosen at creation and kept: a rotation makes a new secret or key pair of the same.
 * `include_content` (create, PATCH) makes the dispatcher add the message to `email.received`
 * deliveries (shared/webhooks/dispatch.ts).
 *
 * A project has at most MAX_WEBHOOKS_PER_PROJECT webhooks: each event is one POST per webhook,
 * so the cap bounds what one API call can make the dispatcher send. The count is a counter item
 * (keys.webhookCount) changed in the same transaction as the create (with a condition) and the
 * delete, so concurrent creates cannot pass it; no Scan (a project's first create Queries its
 * webhooks once, for those made before the counter existed). The same endpoint may be used by
 * several webhooks (other events, a secret of its own): the cap bounds that too.
 */
import { API_VERSION } from '../platform/http/api-version';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  isTransactionConflict,
  put,
  queryGsi1Page,
  queryPage,
  transact,
  update,
  type Item,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { conflict, notFound } from '../platform/errors';
import { eventWrite, withResendFields } from '../events/events';
import type { PlatformEvent } from '../events/model';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { openSecret, sealSecret } from '../platform/secrets';
import type { CreateWebhookInput, UpdateWebhookInput } from './operations';
import { toDeliveryRecord, type DeliveryItem } from './deliveries';
import type { DeliveryRecord, SignatureAlgorithm, Webhook, WebhookEvent } from './model';
import { newSigningKey, ROTATED_SECRET_TTL_MS, secretPrefix } from './signing';

/** This many deliveries in a row ending `failed` disable the webhook (DESIGN.md). */
export const MAX_FAILED_DELIVERIES = 30;

/** Webhooks per project unless MAX_WEBHOOKS_PER_PROJECT says otherwise (the create operation's description names it). */
export const DEFAULT_MAX_WEBHOOKS_PER_PROJECT = 20;
/** MAX_WEBHOOKS_PER_PROJECT when it is a whole number from 1, else the default. */
export function maxWebhooksPerProject(env: Record<string, string | undefined> = process.env): number {
  const configured = Number(env.MAX_WEBHOOKS_PER_PROJECT);
  return Number.isInteger(configured) && configured >= 1 ? configured : DEFAULT_MAX_WEBHOOKS_PER_PROJECT;
}

export interface WebhookItem
  extends Omit<Webhook, 'object' | 'api_version' | 'signature_algorithm' | 'public_key' | 'include_content'> {
  project_id: string;
  /** the mode of the key that created it; the events the dispatcher emits carry it */
  livemode: boolean;
  /** sealed (`sealSecret` for `secretPlace`); plain in items written before sealing */
  secret: string;
  /** absent on webhooks made before it existed: `hmac_sha256` */
  signature_algorithm?: SignatureAlgorithm;
  /** `ed25519`: the current key pair's public key (`whpk_...`) */
  public_key?: string | null;
  /** absent on webhooks made before it existed: false */
  include_content?: boolean;
  /** the secret before the last rotation (as stored), signing too until `previous_secret_expires_at` */
  previous_secret?: string;
  previous_secret_expires_at?: string;
  /** deliveries in a row that ended `failed` (`consecutive_failures` counts attempts) */
  failed_deliveries: number;
  /** failed attempts in a row that took SLOW_FAILURE_MS or more; from 3 the webhook is throttled (shared/webhooks/throttle.ts) */
  slow_failures?: number;
  /** a throttled webhook's next attempt slot (epoch ms; shared/webhooks/throttle.ts) */
  throttle_next_at?: number;
}

export const toWebhook = (item: WebhookItem): Webhook => ({
  object: 'webhook',
  id: item.id,
  api_version: API_VERSION,
  endpoint: item.endpoint,
  events: item.events,
  description: item.description,
  status: item.status,
  secret_prefix: item.secret_prefix,
  signature_algorithm: item.signature_algorithm ?? 'hmac_sha256',
  public_key: item.public_key ?? null,
  include_content: item.include_content ?? false,
  consecutive_failures: item.consecutive_failures,
  last_success_at: item.last_success_at,
  last_failure_at: item.last_failure_at,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

/** What a webhook's sealed secrets are bound to: a secret copied into another webhook's item does not open. */
const secretPlace = (projectId: string, webhookId: string) => `webhook:${projectId}:${webhookId}`;

/** The secrets that sign a delivery now: the current one, and the rotated-out one for its 24 h. */
export function signingSecrets(item: WebhookItem, now = clockNow()): Promise<string[]> {
  const stored =
    item.previous_secret && item.previous_secret_expires_at && Date.parse(item.previous_secret_expires_at) > now
      ? [item.secret, item.previous_secret]
      : [item.secret];
  return Promise.all(stored.map((secret) => openSecret(secret, secretPlace(item.project_id, item.id))));
}

const missing = () => notFound('Webhook', 'webhookId');
const missingDelivery = () => notFound('Webhook delivery', 'deliveryId');
const exists = { expression: 'attribute_exists(PK)' };
const unique = <T>(values: T[]) => [...new Set(values)];

export async function createWebhook(
  caller: Caller,
  input: CreateWebhookInput,
): Promise<Webhook & { signing_secret: string | null }> {
  const now = nowIso();
  const id = newId();
  const algorithm = input.signature_algorithm ?? 'hmac_sha256';
  const { secret, publicKey } = newSigningKey(algorithm);
  const item: WebhookItem = {
    id,
    project_id: caller.projectId,
    livemode: caller.livemode,
    endpoint: input.endpoint,
    events: unique(input.events),
    description: input.description ?? null,
    status: 'pending',
    secret: await sealSecret(secret, secretPlace(caller.projectId, id)),
    secret_prefix: secretPrefix(publicKey ?? secret),
    signature_algorithm: algorithm,
    public_key: publicKey,
    include_content: input.include_content ?? false,
    consecutive_failures: 0,
    failed_deliveries: 0,
    last_success_at: null,
    last_failure_at: null,
    created_at: now,
    updated_at: now,
  };
  const webhook = toWebhook(item);
  const max = maxWebhooksPerProject();
  await againOnRace(async () =>
    transact([
      await countCreate(caller.projectId, max),
      put(
        { ...keys.webhook(caller.projectId, item.id), type: 'webhook', ...item },
        { ifAbsent: () => new Error(`webhook id ${item.id} exists`) },
      ),
      eventWrite(caller, 'webhook.endpoint.created', webhook),
    ]),
  );
  return { ...webhook, signing_secret: publicKey ? null : secret };
}

const COUNT = 'webhook_count';
const limitReached = (max: number) =>
  conflict(
    'webhook_limit_reached',
    `A project has at most ${max} webhooks (MAX_WEBHOOKS_PER_PROJECT); delete one, or subscribe an existing webhook to more events`,
  );

const counter = (projectId: string) => getItem(keys.webhookCount(projectId));

/**
 * The create's write to the counter: one more, on condition it stays within `max`. A project
 * without a counter yet (none made, or all made before the counter existed) gets one holding
 * its webhooks as a Query counts them, once. The Query's first page is read beside the counter,
 * so a create makes one read round trip either way (a project has at most `max` webhooks: a small page).
 */
async function countCreate(projectId: string, max: number): Promise<WriteAction> {
  const [count, first] = await Promise.all([
    counter(projectId),
    queryPage<Item>(keys.webhooks(projectId), { limit: 100 }),
  ]);
  if (count) {
    const withinMax = { expression: '#count < :max', names: { '#count': COUNT }, values: { ':max': max } };
    return update(keys.webhookCount(projectId), { add: { [COUNT]: 1 }, condition: withinMax }, () => limitReached(max));
  }
  let existing = first.items.length;
  for (let after = first.items.at(-1)?.id as string | undefined, more = first.hasMore; more; ) {
    const page = await queryPage<Item>(keys.webhooks(projectId), { limit: 100, after });
    existing += page.items.length;
    after = page.items.at(-1)?.id as string | undefined;
    more = page.hasMore;
  }
  if (existing >= max) throw limitReached(max);
  return put(
    { ...keys.webhookCount(projectId), type: 'webhook_count', project_id: projectId, [COUNT]: existing + 1 },
    { ifAbsent: { tag: COUNTER_CREATED } },
  );
}

const COUNTER_CREATED = 'webhook counter created meanwhile';

/** Runs `write` again (reading the counter anew) while another create or delete of the project's webhooks wins the race for the counter. */
async function againOnRace(write: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= 8 || !(isConditionFailed(error, COUNTER_CREATED) || isTransactionConflict(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

/** The delete's write to the counter: one less. Without a counter there is nothing to take from (the first create counts what is left). */
async function countDelete(projectId: string): Promise<WriteAction[]> {
  return (await counter(projectId)) ? [update(keys.webhookCount(projectId), { add: { [COUNT]: -1 } })] : [];
}

async function readWebhook(caller: Pick<Caller, 'projectId'>, webhookId: string): Promise<WebhookItem> {
  const item = await getItem<WebhookItem & Item>(keys.webhook(caller.projectId, webhookId));
  if (!item) throw missing();
  return item;
}

export const getWebhook = async (caller: Caller, webhookId: string): Promise<Webhook> =>
  toWebhook(await readWebhook(caller, webhookId));

export async function listWebhooks(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage<WebhookItem & Item>(keys.webhooks(caller.projectId), page);
  return { records: items.map(toWebhook), hasMore };
}

export async function updateWebhook(caller: Caller, webhookId: string, input: UpdateWebhookInput): Promise<Webhook> {
  const item = await readWebhook(caller, webhookId);
  const set: Partial<WebhookItem> = { updated_at: nowIso() };
  if (input.endpoint !== undefined) set.endpoint = input.endpoint;
  if (input.endpoint !== undefined && input.endpoint !== item.endpoint) set.slow_failures = 0; // a new endpoint is not throttled for the old one's failures
  if (input.events !== undefined) set.events = unique(input.events);
  if (input.description !== undefined) set.description = input.description;
  if (input.include_content !== undefined) set.include_content = input.include_content;
  const statusChanged = input.status !== undefined && input.status !== item.status;
  if (statusChanged) set.status = input.status;
  if (statusChanged && input.status === 'enabled')
    Object.assign(set, { consecutive_failures: 0, failed_deliveries: 0, slow_failures: 0 });
  const next = toWebhook({ ...item, ...set });
  const events: WriteAction[] = [];
  if (statusChanged && input.status === 'disabled') events.push(eventWrite(caller, 'webhook.endpoint.disabled', next));
  if (
    Object.keys(set).some((k) => ['endpoint', 'events', 'description', 'include_content'].includes(k)) ||
    (statusChanged && input.status === 'enabled')
  ) {
    events.push(eventWrite(caller, 'webhook.endpoint.updated', next));
  }
  await transact([update(keys.webhook(caller.projectId, webhookId), { set, condition: exists }, missing), ...events]);
  return next;
}

export async function deleteWebhook(caller: Caller, webhookId: string): Promise<void> {
  // the webhook and the counter side by side: one read round trip before the write
  const [item, firstCount] = await Promise.all([readWebhook(caller, webhookId), countDelete(caller.projectId)]);
  let counted: WriteAction[] | undefined = firstCount;
  await againOnRace(async () => {
    const countWrites = counted ?? (await countDelete(caller.projectId)); // a retry reads the counter anew
    counted = undefined;
    await transact([
      del(keys.webhook(caller.projectId, webhookId), { ifExists: missing }), // a concurrent delete loses here, so the count drops once
      ...countWrites,
      eventWrite(caller, 'webhook.endpoint.deleted', toWebhook(item)),
    ]);
  });
}

export async function rotateSecret(
  caller: Caller,
  webhookId: string,
): Promise<Webhook & { signing_secret: string | null }> {
  const item = await readWebhook(caller, webhookId);
  const now = clockNow();
  const { secret, publicKey } = newSigningKey(item.signature_algorithm ?? 'hmac_sha256');
  const set = {
    secret: await sealSecret(secret, secretPlace(caller.projectId, webhookId)),
    secret_prefix: secretPrefix(publicKey ?? secret),
    ...(publicKey ? { public_key: publicKey } : {}),
    previous_secret: item.secret,
    previous_secret_expires_at: new Date(now + ROTATED_SECRET_TTL_MS).toISOString(),
    updated_at: new Date(now).toISOString(),
  };
  const webhook = toWebhook({ ...item, ...set });
  const rotated = () =>
    conflict('concurrent_rotation', 'The signing secret was rotated at the same time; rotate again');
  await transact([
    update(
      keys.webhook(caller.projectId, webhookId),
      {
        set,
        condition: { expression: '#secret = :old', names: { '#secret': 'secret' }, values: { ':old': item.secret } },
      },
      rotated,
    ),
    eventWrite(caller, 'webhook.endpoint.updated', webhook),
  ]);
  return { ...webhook, signing_secret: publicKey ? null : secret };
}

export async function listDeliveries(caller: Caller, webhookId: string, page: PageRequest) {
  const [, { items, hasMore }] = await Promise.all([
    readWebhook(caller, webhookId),
    queryPage<DeliveryItem & Item>(keys.webhookDeliveries(caller.projectId, webhookId), page),
  ]);
  return { records: items.map(toDeliveryRecord), hasMore };
}

/** The webhook and one of its deliveries, in one round trip; 404 names whichever is missing (`onMissingDelivery`: as the route names it). */
export async function readDelivery(
  caller: Caller,
  webhookId: string,
  deliveryId: string,
  onMissingDelivery: () => Error = missingDelivery,
): Promise<{ webhook: WebhookItem; delivery: DeliveryItem }> {
  const found = await batchGet<Item>([
    keys.webhook(caller.projectId, webhookId),
    keys.webhookDelivery(caller.projectId, webhookId, deliveryId),
  ]);
  const webhook = found.find((i) => i.type === 'webhook') as WebhookItem | undefined;
  const delivery = found.find((i) => i.type === 'webhook_delivery') as DeliveryItem | undefined;
  if (!webhook) throw missing();
  if (!delivery) throw onMissingDelivery();
  return { webhook, delivery };
}

export const getDelivery = async (caller: Caller, webhookId: string, deliveryId: string): Promise<DeliveryRecord> =>
  toDeliveryRecord((await readDelivery(caller, webhookId, deliveryId)).delivery);

/** GET /webhook-events: the project's deliveries, newest event first (GSI1), each with its event (one BatchGet). */
export async function listWebhookEvents(caller: Caller, page: { limit: number; after?: string }) {
  const { items, hasMore } = await queryGsi1Page<DeliveryItem & Item>(
    keys.webhookEventsPartitions(caller.projectId),
    page,
  );
  const eventIds = unique(items.map((d) => d.event_id));
  const events = await batchGet<Item>(eventIds.map((id) => keys.event(caller.projectId, id)));
  const byId = new Map(events.map((e) => [(e.event as PlatformEvent).id, withResendFields(e.event as PlatformEvent)]));
  const records: WebhookEvent[] = items.map((d) => {
    const event = byId.get(d.event_id);
    return {
      id: d.id,
      webhook_id: d.webhook_id,
      type: d.event_type,
      data: (event?.data as Record<string, unknown> | undefined) ?? {},
      created_at: event?.created_at ?? d.created_at,
      attempt:
        d.attempt_count > 0 && d.last_attempt_at
          ? {
              number: d.attempt_count,
              status: d.last_attempt_status ?? 'failed',
              response_code: d.response_code,
              at: d.last_attempt_at,
            }
          : null,
    };
  });
  return { records, hasMore };
}
