import { api, ok } from '#shared/access/api';
import * as topicOps from '#shared/audience/operations/topics';
import { deleteTopic } from '#shared/audience/topics';

export const handler = api(topicOps.remove, async ({ params, caller }) => {
  await deleteTopic(caller, params.topic_id);
  return ok({ object: 'topic', id: params.topic_id, deleted: true });
});
