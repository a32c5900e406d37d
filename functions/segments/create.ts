import { api, created } from '#shared/access/api';
import * as segmentOps from '#shared/audience/operations/segments';
import { createSegment } from '#shared/audience/segments';

export const handler = api(segmentOps.create, async ({ body, caller }) => created(await createSegment(caller, body)));
