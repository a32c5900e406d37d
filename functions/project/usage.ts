import { api, ok } from '#shared/access/api';
import * as projectOps from '#shared/access/operations/project';
import { projectUsage } from '#shared/access/usage';

export const handler = api(projectOps.usage, async ({ caller }) => ok(await projectUsage(caller)));
