import { api, ok } from '#shared/access/api';
import * as projectOps from '#shared/access/operations/project';
import { describeProject } from '#shared/access/project-settings';

export const handler = api(projectOps.get, async ({ caller }) => ok(await describeProject(caller)));
