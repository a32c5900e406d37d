/**
 * GET /broadcasts/{id}/clicked-links (the `resend` SDK's `broadcasts.clickedLinks`): how often each
 * link of a broadcast was clicked, from SES's Click events (on AWS only when the domain tracks
 * clicks; locally the local SES's `click@simulator.amazonses.com`). The email-status worker adds
 * each click to its link's counter (keys.broadcastLink, sharded by email id) in the event's
 * transaction; `unique_clicks` counts a recipient's first click on the link (shared/emails/status.ts).
 * Here the shards are read whole and merged by link, most clicked first; `id` (the link's hash) is
 * the cursor.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, queryBetween, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { pageInOrder } from '../platform/list-page';

export interface ClickedLink {
  id: string;
  url: string;
  clicks: number;
  unique_clicks: number;
}

export async function listClickedLinks(
  caller: Caller,
  broadcastId: string,
  page: PageRequest,
): Promise<{ records: ClickedLink[]; hasMore: boolean }> {
  const [broadcast, items] = await Promise.all([
    getItem(keys.broadcast(caller.projectId, broadcastId)),
    queryBetween(keys.broadcastLinks(caller.projectId, broadcastId), '0', 'g'),
  ]);
  if (!broadcast) throw notFound('Broadcast', 'broadcast_id');
  const links = new Map<string, ClickedLink>();
  for (const item of items) {
    const id = String(item.SK).slice('LINK#'.length);
    const link = links.get(id) ?? { id, url: String(item.url), clicks: 0, unique_clicks: 0 };
    link.clicks += Number(item.clicks ?? 0);
    link.unique_clicks += Number(item.unique_clicks ?? 0);
    links.set(id, link);
  }
  const ordered = [...links.values()].sort((a, b) => b.clicks - a.clicks || a.id.localeCompare(b.id));
  const { slice, hasMore } = pageInOrder(ordered, page, 'a link of this broadcast');
  return { records: slice, hasMore };
}
