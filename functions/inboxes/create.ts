import { api, created } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { createInbox } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.create, async ({ body, caller }) => created(await createInbox(caller, body)));
