import { api, ok } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { getTemplate } from '#shared/templates';

export const handler = api(templateOps.get, async ({ params, caller }) => ok(await getTemplate(caller, params.id_or_alias)));
