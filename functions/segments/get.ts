import { api, ok } from '#shared/http/api';
import * as segmentOps from '#shared/operations/segments';
import { getSegment } from '#shared/segments';

export const handler = api(segmentOps.get, async ({ params, caller }) => ok(await getSegment(caller, params.segment_id)));
