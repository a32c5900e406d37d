import { api, ok } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { updateTemplate } from '#shared/templates';

export const handler = api(templateOps.update, async ({ params, body, caller }) => ok(await updateTemplate(caller, params.id_or_alias, body)));
