import { addContactToSegment } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.addSegment, async ({ params, caller }) =>
  ok(await addContactToSegment(caller, params.contact_id, params.segment_id)),
);
