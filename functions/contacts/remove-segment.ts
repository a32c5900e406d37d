import { removeContactFromSegment } from '#shared/contacts';
import { api, ok } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.removeSegment, async ({ params, caller }) => ok(await removeContactFromSegment(caller, params.contact_id, params.segment_id)));
