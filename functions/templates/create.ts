import { api, created } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { createTemplate } from '#shared/templates';

export const handler = api(templateOps.create, async ({ body, caller }) => created(await createTemplate(caller, body)));
