import { deleteContact } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.remove, async ({ params, caller }) => {
  const { id } = await deleteContact(caller, params.contact_id);
  return ok({ object: 'contact', id, contact: id, deleted: true });
});
