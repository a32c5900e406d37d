import { api, ok } from '#shared/access/api';
import * as topicOps from '#shared/audience/operations/topics';
import { getTopic } from '#shared/audience/topics';

export const handler = api(topicOps.get, async ({ params, caller }) => ok(await getTopic(caller, params.topic_id)));
