import { api, ok } from '#shared/access/api';
import { updateContactProperty } from '#shared/audience/contact-properties';
import * as propertyOps from '#shared/audience/operations/contact-properties';

export const handler = api(propertyOps.update, async ({ params, body, caller }) =>
  ok(await updateContactProperty(caller, params.contact_property_id, body)),
);
