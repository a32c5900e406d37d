import { getContact } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.get, async ({ params, caller }) => ok(await getContact(caller, params.contact_id)));
