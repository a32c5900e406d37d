import { api, created } from '#shared/access/api';
import * as topicOps from '#shared/audience/operations/topics';
import { createTopic } from '#shared/audience/topics';

export const handler = api(topicOps.create, async ({ body, caller }) => created(await createTopic(caller, body)));
