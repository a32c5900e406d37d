import { updateContact } from '#shared/contacts';
import { api, ok } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.update, async ({ params, body, caller }) => ok(await updateContact(caller, params.contact_id, body)));
