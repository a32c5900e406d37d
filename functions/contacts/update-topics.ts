import { updateContactTopics } from '#shared/contacts';
import { api, ok } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.updateTopics, async ({ params, body, caller }) => ok(await updateContactTopics(caller, params.contact_id, body)));
