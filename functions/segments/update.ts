import { api, ok } from '#shared/http/api';
import * as segmentOps from '#shared/operations/segments';
import { updateSegment } from '#shared/segments';

export const handler = api(segmentOps.update, async ({ params, body, caller }) => ok(await updateSegment(caller, params.segment_id, body)));
