import { api, created } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { createTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.create, async ({ body, caller }) => created(await createTemplate(caller, body)));
