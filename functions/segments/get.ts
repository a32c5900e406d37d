import { api, ok } from '#shared/access/api';
import * as segmentOps from '#shared/audience/operations/segments';
import { getSegment } from '#shared/audience/segments';

export const handler = api(segmentOps.get, async ({ params, caller }) =>
  ok(await getSegment(caller, params.segment_id)),
);
