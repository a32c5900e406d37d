import { api, ok } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { publishTemplate } from '#shared/templates';

export const handler = api(templateOps.publish, async ({ params, caller }) => ok(await publishTemplate(caller, params.id_or_alias)));
