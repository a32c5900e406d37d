import { api, created } from '#shared/access/api';
import { createContactProperty } from '#shared/audience/contact-properties';
import * as propertyOps from '#shared/audience/operations/contact-properties';

export const handler = api(propertyOps.create, async ({ body, caller }) =>
  created(await createContactProperty(caller, body)),
);
