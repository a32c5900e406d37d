import { updateContact } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.update, async ({ params, body, caller }) =>
  ok(await updateContact(caller, params.contact_id, body)),
);
