import { api, ok } from '#shared/access/api';
import * as projectOps from '#shared/project/operations';
import { projectUsage } from '#shared/project/usage';

export const handler = api(projectOps.usage, async ({ caller }) => ok(await projectUsage(caller)));
