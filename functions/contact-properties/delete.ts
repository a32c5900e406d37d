import { api, ok } from '#shared/access/api';
import { deleteContactProperty } from '#shared/audience/contact-properties';
import * as propertyOps from '#shared/audience/operations/contact-properties';

export const handler = api(propertyOps.remove, async ({ params, caller }) => {
  await deleteContactProperty(caller, params.contact_property_id);
  return ok({ object: 'contact_property', id: params.contact_property_id, deleted: true });
});
