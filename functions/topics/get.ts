import { api, ok } from '#shared/http/api';
import * as topicOps from '#shared/operations/topics';
import { getTopic } from '#shared/topics';

export const handler = api(topicOps.get, async ({ params, caller }) => ok(await getTopic(caller, params.topic_id)));
