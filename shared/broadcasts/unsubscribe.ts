/**
 * One-click unsubscribe links (RFC 8058) for broadcast emails.
 *
 * A token names the project, the contact and, for a broadcast with a topic, the topic, and
 * carries an HMAC-SHA256 (truncated to 128 bits) under a deployment-wide secret: unguessable and
 * unforgeable without a table item per recipient. base64url of the 16-byte ids and the MAC:
 * 54 characters, 75 with a topic. A token of a test-mode broadcast names the project's test twin
 * (shared/project/test-mode.ts), whose id is no UUID: a mode byte (1) before the ids, under the MAC,
 * says so (55 or 76 characters), so its link unsubscribes the twin's contact in the sandbox (it
 * named the live project, where the contact is not, and did nothing). Live tokens are unchanged. The secret is an item of the table, sealed under the secrets key
 * (shared/platform/secrets.ts), created by the fan-out's first link with a condition (so concurrent
 * first uses agree).
 *
 * POST unsubscribes: from the topic (`opt_out`) when the token has one, else from everything
 * (`unsubscribed: true`). GET only shows what POST would do, because mail scanners follow links.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { grantScope } from '../platform/aws/call-guard';
import * as keys from '../platform/db/keys';
import {
  getItem,
  isConditionFailed,
  put,
  putItem,
  transact,
  update,
  type Item,
  type WriteAction,
} from '../platform/db/table';
import { toContact, topicsUpdatedEvent, type ContactItem } from '../audience/contacts';
import { eventWrite } from '../events/events';
import { notFound } from '../platform/errors';
import { nowIso } from '../platform/ids';
import { openSecret, sealSecret } from '../platform/secrets';
import { escapeHtml } from '../templates/render';
import { isTestProject, liveProjectId, testProjectId } from '../project/test-mode';

const MAC_BYTES = 16;
/** The first byte of a test twin's token. */
const TEST_MODE = 0x01;

/** What the sealed key is bound to (shared/platform/secrets.ts). */
const KEY_PLACE = 'unsubscribe-key';

/** The key once loaded, per function locally (platform/aws/call-guard.ts `grantScope`). */
const loadedKeys = new Map<string, Promise<Buffer | undefined>>();

const keyOf = async (item: Item) => Buffer.from(await openSecret(item.secret as string, KEY_PLACE), 'base64');

/** The key, made (sealed) by the first caller that may make it; undefined when there is none and `create` is false. */
async function loadSecret(create: boolean): Promise<Buffer | undefined> {
  const existing = await getItem(keys.unsubscribeSecret());
  if (existing) return keyOf(existing);
  if (!create) return undefined;
  const fresh = randomBytes(32);
  try {
    const sealed = await sealSecret(fresh.toString('base64'), KEY_PLACE);
    await putItem(
      put(
        { ...keys.unsubscribeSecret(), type: 'unsubscribe_secret', project_id: '-', secret: sealed },
        { ifAbsent: { tag: 'secret exists', withItem: true } },
      ),
    );
    return fresh;
  } catch (error) {
    if (!isConditionFailed(error, 'secret exists') || !error.item) throw error;
    return keyOf(error.item); // another process created it first: theirs, as the failed put found it
  }
}

/**
 * The links' key. The fan-out (`create`) makes it before it signs the first link; the unsubscribe
 * routes only read it: without one, no link we signed can exist and every token is refused.
 */
async function unsubscribeKey(create: boolean): Promise<Buffer | undefined> {
  const scope = grantScope();
  let loading = loadedKeys.get(scope);
  if (!loading) {
    loading = loadSecret(create);
    loadedKeys.set(scope, loading);
    const forget = () => loadedKeys.get(scope) === loading && loadedKeys.delete(scope); // none yet, or failed: try again next time
    loading.then((key) => key || forget(), forget);
  }
  const key = await loading;
  return key || !create ? key : unsubscribeKey(create); // a read that found none was in flight
}

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidText = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const mac = (key: Buffer, payload: Buffer) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);

export interface UnsubscribeTarget {
  projectId: string;
  contactId: string;
  topicId: string | null;
}

export async function unsubscribeToken(target: UnsubscribeTarget): Promise<string> {
  const ids = [
    uuidBytes(liveProjectId(target.projectId)),
    uuidBytes(target.contactId),
    ...(target.topicId ? [uuidBytes(target.topicId)] : []),
  ];
  const payload = Buffer.concat([...(isTestProject(target.projectId) ? [Buffer.of(TEST_MODE)] : []), ...ids]);
  const key = (await unsubscribeKey(true)) as Buffer;
  return Buffer.concat([payload, mac(key, payload)]).toString('base64url');
}

/** The target of a token, or undefined for anything that is not a token we signed. */
export async function readUnsubscribeToken(token: string): Promise<UnsubscribeTarget | undefined> {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  const test = raw.length % 16 === 1;
  if (![32, 48].includes(raw.length - MAC_BYTES - (test ? 1 : 0)) || (test && raw[0] !== TEST_MODE)) return undefined;
  const payload = raw.subarray(0, raw.length - MAC_BYTES);
  const key = await unsubscribeKey(false);
  if (!key || !timingSafeEqual(raw.subarray(payload.length), mac(key, payload))) return undefined;
  const ids = test ? payload.subarray(1) : payload;
  const projectId = uuidText(ids.subarray(0, 16));
  return {
    projectId: test ? testProjectId(projectId) : projectId,
    contactId: uuidText(ids.subarray(16, 32)),
    topicId: ids.length === 48 ? uuidText(ids.subarray(32, 48)) : null,
  };
}

/** The link for an email: `PUBLIC_API_URL` is the API's base URL (the stack and the local runtime set it). */
export function unsubscribeUrl(token: string): string {
  const base = (process.env.PUBLIC_API_URL ?? '').replace(/\/+$/, '');
  return `${base}/unsubscribe/${token}`;
}

const invalidLink = () => notFound('Unsubscribe link');

async function resolve(token: string) {
  const target = await readUnsubscribeToken(token);
  if (!target) throw invalidLink();
  const [contact, topic] = await Promise.all([
    getItem(keys.contact(target.projectId, target.contactId)),
    target.topicId ? getItem(keys.topic(target.projectId, target.topicId)) : Promise.resolve(undefined),
  ]);
  return { target, contact, topic };
}

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;line-height:1.5}` +
    'button{font:inherit;padding:.5rem 1rem;cursor:pointer}</style></head>' +
    `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

const what = (topic: Item | undefined) =>
  topic ? `emails about “${escapeHtml(String(topic.name))}”` : 'all emails from this sender';

/** GET: what a POST would do, and a button that does it. */
export async function unsubscribePageHtml(token: string): Promise<string> {
  const { contact, topic } = await resolve(token);
  if (!contact) return page('Unsubscribed', '<p>This address is not on the list any more.</p>');
  return page(
    'Unsubscribe',
    `<p>Stop sending ${what(topic)} to <strong>${escapeHtml(String(contact.email))}</strong>?</p>` +
      '<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>',
  );
}

/**
 * POST: the change, once (repeating it changes nothing). A deleted contact or topic is nothing to
 * unsubscribe from: the answer is the same confirmation, so the link reveals nothing.
 */
export async function unsubscribeByToken(token: string): Promise<string> {
  const { target, contact, topic } = await resolve(token);
  if (contact && (!target.topicId || topic)) {
    const key = keys.contact(target.projectId, target.contactId);
    const deleted = { tag: 'contact deleted or unchanged' };
    const change: WriteAction = target.topicId
      ? {
          kind: 'Update',
          params: {
            Key: key,
            UpdateExpression: 'SET #topics.#topic = :opt_out, #updated = :at', // a map entry: one placeholder per path part
            // only a change is written (and heard of): a second click finds the opt-out there
            ConditionExpression:
              'attribute_exists(PK) AND (attribute_not_exists(#topics.#topic) OR #topics.#topic <> :opt_out)',
            ExpressionAttributeNames: { '#topics': 'topics', '#topic': target.topicId, '#updated': 'updated_at' },
            ExpressionAttributeValues: { ':opt_out': 'opt_out', ':at': nowIso() },
          },
          onConditionFailed: deleted,
        }
      : update(
          key,
          {
            set: { unsubscribed: true, updated_at: nowIso() },
            condition: { expression: 'attribute_exists(PK) AND unsubscribed <> :yes', values: { ':yes': true } },
          },
          deleted,
        );
    // the project hears of it as of any change of the contact: in the same transaction
    const caller = { projectId: target.projectId, livemode: !isTestProject(target.projectId) }; // a test twin's contact: a test-mode event
    const next = toContact({
      ...(contact as ContactItem),
      ...(target.topicId ? { topics: { ...contact.topics, [target.topicId]: 'opt_out' } } : { unsubscribed: true }),
      updated_at: nowIso(),
    });
    const event = target.topicId
      ? topicsUpdatedEvent(caller, next, [{ id: target.topicId, subscription: 'opt_out' }])
      : eventWrite(caller, 'contact.updated', next);
    await transact([change, event]).catch((error: unknown) => {
      if (!isConditionFailed(error, deleted.tag)) throw error; // deleted meanwhile, or unsubscribed already: nothing to do
    });
  }
  return page('Unsubscribed', `<p>You will not receive ${what(topic)} any more.</p>`);
}
