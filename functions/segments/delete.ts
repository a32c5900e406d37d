import { api, ok } from '#shared/http/api';
import * as segmentOps from '#shared/operations/segments';
import { deleteSegment } from '#shared/segments';

export const handler = api(segmentOps.remove, async ({ params, caller, deadline }) => {
  await deleteSegment(caller, params.segment_id, deadline);
  return ok({ object: 'segment', id: params.segment_id, deleted: true });
});
