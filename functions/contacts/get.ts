import { getContact } from '#shared/contacts';
import { api, ok } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.get, async ({ params, caller }) => ok(await getContact(caller, params.contact_id)));
