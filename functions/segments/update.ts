import { api, ok } from '#shared/access/api';
import * as segmentOps from '#shared/audience/operations/segments';
import { updateSegment } from '#shared/audience/segments';

export const handler = api(segmentOps.update, async ({ params, body, caller }) =>
  ok(await updateSegment(caller, params.segment_id, body)),
);
