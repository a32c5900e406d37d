/**
 * Share links of emails (POST/DELETE /emails/{id}/share, GET /share/{token}): a URL that shows one
 * email (subject, from, date, its html in a sandboxed frame) to anyone who has it, until it expires.
 *
 * The token is the credential, and no table item is made per link: it names the project (a mode byte
 * says whether it is the project's test twin, shared/project/test-mode.ts), the email, the expiry
 * (epoch seconds) and the email's share version, under an HMAC-SHA256 (truncated to 128 bits) with a
 * deployment-wide key sealed as the unsubscribe links' key is (shared/platform/link-key.ts): base64url
 * of 1 + 16 + 16 + 4 + 4 + 16 bytes, 76 characters.
 *
 * Revocation: the email item's `share_version` (0 when absent). DELETE /emails/{id}/share adds one,
 * so every link signed before no longer matches; links made after it work. The page answers the same
 * plain 404 for a token that is malformed, tampered with, expired, revoked or whose email is gone
 * (past its retention), so a link tells nothing about why it does not open.
 *
 * Expiry (`expires_in`, a duration in words: shared/platform/duration.ts): default 7 days, at least 1
 * minute, at most 30 days (422 `invalid_expires_in`). A link never outlives its email: `expires_at` is
 * the earlier of now + `expires_in` and the end of the email's retention (its TTL,
 * shared/emails/retention.ts). Cut rather than refused: the default retention is 30 days too, so
 * "30 days" would be refused for any email older than a second, and past its retention the email is
 * gone anyway; the answer's `expires_at` says when the link ends.
 *
 * What the page shows: the subject, the From address, the date (`scheduled_at`, else `created_at`) and
 * the html (else the text) as stored; never the recipients or any other field. A broadcast email's html
 * holds its recipient's unsubscribe link: the page replaces this service's unsubscribe links with `#`,
 * so whoever has the share link cannot unsubscribe the recipient. Test-mode emails can be shared as
 * live ones (their page says the email was a test and never sent).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import * as keys from '../platform/db/keys';
import { getItem, type Item, update, updateItem } from '../platform/db/table';
import { now as clockNow } from '../platform/clock';
import type { Caller } from '../platform/caller';
import { parseDuration } from '../platform/duration';
import { notFound, unprocessable } from '../platform/errors';
import { UUID_PATTERN } from '../platform/ids';
import { linkKey, type LinkKey } from '../platform/link-key';
import { isTestProject, liveProjectId, testProjectId } from '../project/test-mode';
import { escapeHtml } from '../templates/render';
import { getEmailContent } from './content';
import type { EmailItem } from './item';

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
export const DEFAULT_SHARE_MS = 7 * DAY_MS;
export const MIN_SHARE_MS = MINUTE_MS;
export const MAX_SHARE_MS = 30 * DAY_MS;

const SHARE_KEY: LinkKey = { item: keys.shareLinkSecret(), place: 'share-link-key' };
const MAC_BYTES = 16;
const PAYLOAD_BYTES = 1 + 16 + 16 + 4 + 4;
const TEST_MODE = 0x01;

const uuidBytes = (id: string) => Buffer.from(id.replace(/-/g, ''), 'hex');
const uuidText = (bytes: Buffer) => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const mac = (key: Buffer, payload: Buffer) => createHmac('sha256', key).update(payload).digest().subarray(0, MAC_BYTES);

interface ShareTarget {
  projectId: string;
  emailId: string;
  /** epoch seconds */
  expiresAt: number;
  version: number;
}

async function signToken(target: ShareTarget): Promise<string> {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload[0] = isTestProject(target.projectId) ? TEST_MODE : 0;
  uuidBytes(liveProjectId(target.projectId)).copy(payload, 1);
  uuidBytes(target.emailId).copy(payload, 17);
  payload.writeUInt32BE(target.expiresAt, 33);
  payload.writeUInt32BE(target.version, 37);
  const key = (await linkKey(SHARE_KEY, true)) as Buffer;
  return Buffer.concat([payload, mac(key, payload)]).toString('base64url');
}

/** What a token names, or undefined for anything that is not a token we signed. */
async function readToken(token: string): Promise<ShareTarget | undefined> {
  if (!/^[A-Za-z0-9_-]{76}$/.test(token)) return undefined;
  const raw = Buffer.from(token, 'base64url');
  if (raw.length !== PAYLOAD_BYTES + MAC_BYTES || raw[0] > TEST_MODE) return undefined;
  const payload = raw.subarray(0, PAYLOAD_BYTES);
  const key = await linkKey(SHARE_KEY, false);
  if (!key || !timingSafeEqual(raw.subarray(PAYLOAD_BYTES), mac(key, payload))) return undefined;
  const projectId = uuidText(payload.subarray(1, 17));
  return {
    projectId: payload[0] === TEST_MODE ? testProjectId(projectId) : projectId,
    emailId: uuidText(payload.subarray(17, 33)),
    expiresAt: payload.readUInt32BE(33),
    version: payload.readUInt32BE(37),
  };
}

/** The email item, unless it is past its retention (DynamoDB's TTL deletes expired items within days, not at once). */
async function liveEmail(projectId: string, emailId: string): Promise<EmailItem | undefined> {
  const item = (await getItem(keys.email(projectId, emailId))) as EmailItem | undefined;
  return item && !(typeof item.expires_at === 'number' && item.expires_at * 1000 <= clockNow()) ? item : undefined;
}

const versionOf = (item: Item) => (typeof item.share_version === 'number' ? item.share_version : 0);

/** The link for a token: `PUBLIC_API_URL` is the API's base URL (the stack and the local runtime set it). */
const apiBase = () => (process.env.PUBLIC_API_URL ?? '').replace(/\/+$/, '');

const invalidExpiresIn = (message: string) =>
  unprocessable([{ code: 'invalid_expires_in', message, path: 'expires_in' }]);

/** How long the link lives, in ms, from `expires_in` (undefined: the default). */
function lifetime(expiresIn: string | null | undefined): number | undefined {
  if (expiresIn === undefined || expiresIn === null) return undefined;
  const ms = parseDuration(expiresIn);
  if (ms === undefined)
    throw invalidExpiresIn('expires_in must be a duration in words, such as "1 hour", "7 days" or "90 minutes"');
  if (ms < MIN_SHARE_MS || ms > MAX_SHARE_MS) throw invalidExpiresIn('expires_in must be between 1 minute and 30 days');
  return ms;
}

export interface ShareLink {
  object: 'email';
  id: string;
  url: string;
  expires_at: string;
}

/** A new share link of the caller's email (earlier links stay valid until they expire or are revoked). */
export async function shareEmail(caller: Caller, emailId: string, expiresIn?: string | null): Promise<ShareLink> {
  const requested = lifetime(expiresIn); // bad input is 422 before anything is read
  const item = UUID_PATTERN.test(emailId) ? await liveEmail(caller.projectId, emailId) : undefined;
  if (!item) throw notFound('Email', 'email_id');
  const now = clockNow();
  const retentionEnd = typeof item.expires_at === 'number' ? item.expires_at * 1000 : Number.POSITIVE_INFINITY;
  const expiresAt = Math.floor(Math.min(now + (requested ?? DEFAULT_SHARE_MS), retentionEnd) / 1000);
  const token = await signToken({
    projectId: caller.projectId,
    emailId,
    expiresAt,
    version: versionOf(item),
  });
  return {
    object: 'email',
    id: emailId,
    url: `${apiBase()}/share/${token}`,
    expires_at: new Date(expiresAt * 1000).toISOString(),
  };
}

/** Revokes every share link of the email made so far (one UpdateItem: its share version moves on). */
export async function revokeShares(caller: Caller, emailId: string): Promise<void> {
  const missing = () => notFound('Email', 'email_id');
  if (!UUID_PATTERN.test(emailId)) throw missing();
  await updateItem(
    update(
      keys.email(caller.projectId, emailId),
      {
        add: { share_version: 1 },
        condition: {
          expression: 'attribute_exists(PK) AND (attribute_not_exists(#expires) OR #expires > :now)',
          names: { '#expires': 'expires_at' },
          values: { ':now': Math.floor(clockNow() / 1000) },
        },
      },
      missing,
    ),
  );
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#111}' +
  'h1{font-size:1.4rem;margin:0 0 .5rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}' +
  'dt{color:#555}dd{margin:0}.note{color:#7a4b00}' +
  'iframe,pre{width:100%;border:1px solid #ddd;border-radius:4px;box-sizing:border-box}iframe{height:75vh;background:#fff}' +
  'pre{white-space:pre-wrap;padding:1rem}';

function page(title: string, body: string): string {
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
  );
}

/** The one page every link that does not open gets: no detail of why. */
export const notFoundPage = (): string =>
  page('Not found', '<h1>Not found</h1><p>This link does not exist or has expired.</p>');

/** This service's unsubscribe links (a broadcast recipient's own), which a shared copy must not carry. */
function withoutUnsubscribeLinks(html: string): string {
  const base = apiBase();
  if (!base) return html;
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return html.replace(new RegExp(`${escaped}/unsubscribe/[A-Za-z0-9_-]+`, 'g'), '#');
}

/** The page behind a share link; undefined when the link does not open (the caller answers notFoundPage). */
export async function sharedEmailPage(token: string): Promise<string | undefined> {
  const target = await readToken(token);
  if (!target || target.expiresAt * 1000 <= clockNow()) return undefined;
  const item = await liveEmail(target.projectId, target.emailId);
  if (!item || versionOf(item) !== target.version) return undefined;
  const content = await getEmailContent(target.projectId, target.emailId);
  const subject = String(item.subject ?? '');
  const date = String(item.scheduled_at ?? item.created_at);
  const shown = content?.html
    ? `<iframe title="The email" sandbox="" referrerpolicy="no-referrer" srcdoc="${escapeHtml(withoutUnsubscribeLinks(content.html))}"></iframe>`
    : `<pre>${escapeHtml(withoutUnsubscribeLinks(content?.text ?? ''))}</pre>`;
  return page(
    subject || '(no subject)',
    `<h1>${escapeHtml(subject || '(no subject)')}</h1>` +
      (item.livemode === false ? '<p class="note">A test-mode email: it was never sent.</p>' : '') +
      `<dl><dt>From</dt><dd>${escapeHtml(String(item.from))}</dd>` +
      `<dt>Date</dt><dd><time datetime="${escapeHtml(date)}">${escapeHtml(new Date(date).toUTCString())}</time></dd></dl>` +
      shown,
  );
}
