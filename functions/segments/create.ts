import { api, created } from '#shared/http/api';
import * as segmentOps from '#shared/operations/segments';
import { createSegment } from '#shared/segments';

export const handler = api(segmentOps.create, async ({ body, caller }) => created(await createSegment(caller, body)));
