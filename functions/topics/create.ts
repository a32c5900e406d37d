import { api, created } from '#shared/http/api';
import * as topicOps from '#shared/operations/topics';
import { createTopic } from '#shared/topics';

export const handler = api(topicOps.create, async ({ body, caller }) => created(await createTopic(caller, body)));
