/**
 * Inboxes: one address of a verified, receiving-enabled domain of the project, whose mail is kept
 * as threaded conversations (./threads.ts, filed on arrival by ./filing.ts) and answered from
 * (./outbound.ts). Routes name an inbox by its id or its address (`{inbox}`), as the SDK does.
 *
 * The inbox item holds the counters the list shows (`unread` threads, `drafts`), ADDed in the
 * transactions that change them, and the agent settings. Its address is claimed once per project
 * (keys.inboxAddress, attribute_not_exists: 409 `inbox_exists`); with `forwarding`, a
 * `receiving_address` on the deployment's forwarding domain (INBOX_FORWARDING_DOMAIN) is claimed
 * deployment-wide (keys.inboxForward), so mail forwarded there from an existing mailbox lands here.
 *
 * Deleting an inbox deletes the inbox and its address claims in one transaction (it is gone for the
 * API at once); its threads, messages, labels and drafts (its own partition) are removed after, by
 * the inbox cleanup worker from the table's stream (./cleanup.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, put, queryPage, transact, update, type Item, type PageRequest } from '../platform/db/table';
import { conflict, notFound, unprocessable } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { domainClaimKey } from '../domains/domains';
import type { AgentSettings, CreateInboxInput, Inbox, InboxSummary, UpdateAgentInput, UpdateInboxInput } from './model';

export const missingInbox = () => notFound('Inbox', 'inbox');

/** The deployment's domain for forwarding addresses (its MX at SES's inbound endpoint, like a receiving domain's). */
export const forwardingDomain = (): string | undefined =>
  process.env.INBOX_FORWARDING_DOMAIN?.toLowerCase() || undefined;

export const toInboxSummary = (item: Item): InboxSummary => ({
  id: item.id,
  name: item.name ?? null,
  email_address: item.email_address,
  from_name: item.from_name ?? null,
  unread: Math.max(0, Number(item.unread ?? 0)),
  last_received: item.last_received ?? null,
  created_at: item.created_at,
  updated_at: item.updated_at,
});

export const toInbox = (item: Item): Inbox => ({
  object: 'inbox',
  ...toInboxSummary(item),
  domain_id: item.domain_id,
  receiving_address: item.receiving_address ?? null,
  drafts: Math.max(0, Number(item.drafts ?? 0)),
});

export const toAgent = (item: Item): AgentSettings => ({
  object: 'inbox_agent',
  instructions: item.agent?.instructions ?? null,
  tone: item.agent?.tone ?? null,
  actions: item.agent?.actions ?? [],
});

/** The agent settings a webhook payload carries: null while none is set (no instructions, tone or actions). */
export function agentOf(item: Item): AgentSettings | null {
  const agent = toAgent(item);
  return agent.instructions === null && agent.tone === null && agent.actions.length === 0 ? null : agent;
}

/** The inbox a route names by id or address (`{inbox}`); 404 when the project has none such. */
export async function readInbox(caller: Pick<Caller, 'projectId'>, idOrAddress: string): Promise<Item> {
  let inboxId = idOrAddress;
  if (idOrAddress.includes('@')) {
    const claim = await getItem(keys.inboxAddress(caller.projectId, idOrAddress));
    if (!claim) throw missingInbox();
    inboxId = claim.inbox_id;
  }
  const item = await getItem(keys.inbox(caller.projectId, inboxId));
  if (!item) throw missingInbox();
  return item;
}

const domainPart = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** The domain an inbox's address must be on: the project's, verified, receiving enabled; else 422 naming what is missing. */
async function receivingDomainOf(caller: Caller, address: string): Promise<Item> {
  const name = domainPart(address);
  const refuse = (message: string) => unprocessable([{ code: 'invalid_inbox_domain', message, path: 'email_address' }]);
  const claim = await getItem(domainClaimKey(caller.projectId, name));
  if (!claim || claim.state !== 'active' || claim.project_id !== caller.projectId)
    throw refuse(`${name} is not a domain of this project: add it with POST /domains first`);
  const domain = await getItem(keys.domain(caller.projectId, claim.domain_id));
  if (!domain) throw refuse(`${name} is not a domain of this project: add it with POST /domains first`);
  if (domain.status !== 'verified') throw refuse(`the domain ${name} is not verified yet (status ${domain.status})`);
  if (domain.capabilities?.receiving !== 'enabled')
    throw refuse(`the domain ${name} does not receive mail: enable capabilities.receiving (PATCH /domains/{id}) first`);
  return domain;
}

export async function createInbox(caller: Caller, input: CreateInboxInput): Promise<Inbox> {
  const address = input.email_address.trim().toLowerCase();
  const domain = await receivingDomainOf(caller, address);
  let receivingAddress: string | null = null;
  let forwardKey: string | null = null;
  if (input.forwarding) {
    const domainName = forwardingDomain();
    if (!domainName)
      throw unprocessable([
        {
          code: 'forwarding_unavailable',
          message: 'this deployment has no forwarding domain (INBOX_FORWARDING_DOMAIN): forwarding addresses are off',
          path: 'forwarding',
        },
      ]);
    forwardKey = `in-${randomBytes(10).toString('hex')}`;
    receivingAddress = `${forwardKey}@${domainName}`;
  }
  const now = nowIso();
  const id = newId();
  const item: Item = {
    ...keys.inbox(caller.projectId, id),
    type: 'inbox',
    project_id: caller.projectId,
    id,
    email_address: address,
    domain_id: domain.id,
    name: input.name ?? null,
    from_name: input.from_name ?? null,
    receiving_address: receivingAddress,
    forward_key: forwardKey,
    unread: 0,
    drafts: 0,
    last_received: null,
    agent: { instructions: null, tone: null, actions: [] },
    created_at: now,
    updated_at: now,
  };
  const taken = () => conflict('inbox_exists', `An inbox for ${address} already exists`, 'email_address');
  await transact([
    put(item),
    put(
      {
        ...keys.inboxAddress(caller.projectId, address),
        type: 'inbox_address',
        inbox_id: id,
        project_id: caller.projectId,
      },
      { ifAbsent: taken },
    ),
    ...(forwardKey
      ? [
          put(
            {
              ...keys.inboxForward(forwardKey),
              type: 'inbox_forward',
              project_id: caller.projectId,
              inbox_id: id,
              livemode: caller.livemode,
            },
            { ifAbsent: () => new Error('forwarding address collision') },
          ),
        ]
      : []),
  ]);
  return toInbox(item);
}

export async function listInboxes(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.inboxes(caller.projectId), page);
  return { records: items.map(toInboxSummary), hasMore };
}

export async function updateInbox(caller: Caller, idOrAddress: string, input: UpdateInboxInput): Promise<Inbox> {
  const item = await readInbox(caller, idOrAddress);
  const set: Item = { updated_at: nowIso() };
  if (input.name !== undefined) set.name = input.name;
  if (input.from_name !== undefined) set.from_name = input.from_name;
  await transact([
    update(
      keys.inbox(caller.projectId, item.id),
      { set, condition: { expression: 'attribute_exists(PK)' } },
      missingInbox,
    ),
  ]);
  return toInbox({ ...item, ...set });
}

export async function deleteInbox(caller: Caller, idOrAddress: string): Promise<string> {
  const item = await readInbox(caller, idOrAddress);
  await transact([
    del(keys.inbox(caller.projectId, item.id), { ifExists: missingInbox }),
    del(keys.inboxAddress(caller.projectId, item.email_address)),
    ...(item.forward_key ? [del(keys.inboxForward(item.forward_key))] : []),
  ]);
  return item.id;
}

export async function updateAgent(
  caller: Caller,
  idOrAddress: string,
  input: UpdateAgentInput,
): Promise<AgentSettings & { id: string }> {
  const item = await readInbox(caller, idOrAddress);
  const agent = { ...toAgent(item) };
  if (input.instructions !== undefined) agent.instructions = input.instructions;
  if (input.tone !== undefined) agent.tone = input.tone;
  if (input.actions !== undefined) agent.actions = [...new Set(input.actions)];
  await transact([
    update(
      keys.inbox(caller.projectId, item.id),
      {
        set: {
          agent: { instructions: agent.instructions, tone: agent.tone, actions: agent.actions },
          updated_at: nowIso(),
        },
        condition: { expression: 'attribute_exists(PK)' },
      },
      missingInbox,
    ),
  ]);
  return { ...agent, id: item.id };
}
