import { addContactToSegment } from '#shared/contacts';
import { api, ok } from '#shared/http/api';
import * as contactOps from '#shared/operations/contacts';

export const handler = api(contactOps.addSegment, async ({ params, caller }) => ok(await addContactToSegment(caller, params.contact_id, params.segment_id)));
