import { api, listOk } from '#shared/access/api';
import * as topicOps from '#shared/audience/operations/topics';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listTopics } from '#shared/audience/topics';

export const handler = api(topicOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listTopics(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
