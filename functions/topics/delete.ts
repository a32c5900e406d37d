import { api, ok } from '#shared/http/api';
import * as topicOps from '#shared/operations/topics';
import { deleteTopic } from '#shared/topics';

export const handler = api(topicOps.remove, async ({ params, caller }) => {
  await deleteTopic(caller, params.topic_id);
  return ok({ object: 'topic', id: params.topic_id, deleted: true });
});
