import { updateContactTopics } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.updateTopics, async ({ params, body, caller }) =>
  ok(await updateContactTopics(caller, params.contact_id, body)),
);
