import { api, ok } from '#shared/access/api';
import * as topicOps from '#shared/audience/operations/topics';
import { updateTopic } from '#shared/audience/topics';

export const handler = api(topicOps.update, async ({ params, body, caller }) =>
  ok(await updateTopic(caller, params.topic_id, body)),
);
