import { removeContactFromSegment } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';

export const handler = api(contactOps.removeSegment, async ({ params, caller }) =>
  ok(await removeContactFromSegment(caller, params.contact_id, params.segment_id)),
);
