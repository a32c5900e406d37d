import { api, ok } from '#shared/access/api';
import * as segmentOps from '#shared/audience/operations/segments';
import { deleteSegment } from '#shared/audience/segments';

export const handler = api(segmentOps.remove, async ({ params, caller, deadline }) => {
  await deleteSegment(caller, params.segment_id, deadline);
  return ok({ object: 'segment', id: params.segment_id, deleted: true });
});
