import { api, ok } from '#shared/access/api';
import { getContactProperty } from '#shared/audience/contact-properties';
import * as propertyOps from '#shared/audience/operations/contact-properties';

export const handler = api(propertyOps.get, async ({ params, caller }) =>
  ok(await getContactProperty(caller, params.contact_property_id)),
);
