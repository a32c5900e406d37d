import { getContact } from '#shared/audience/contacts';
import { contactInFormat } from '#shared/audience/contact-properties';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.get, async ({ params, query, caller }) =>
  ok(contactInFormat(await getContact(caller, params.contact_id), query.properties_format)),
);
