import { api, ok } from '#shared/http/api';
import * as topicOps from '#shared/operations/topics';
import { updateTopic } from '#shared/topics';

export const handler = api(topicOps.update, async ({ params, body, caller }) => ok(await updateTopic(caller, params.topic_id, body)));
