import { api, created } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { duplicateTemplate } from '#shared/templates';

export const handler = api(templateOps.duplicate, async ({ params, caller }) => created(await duplicateTemplate(caller, params.id_or_alias)));
