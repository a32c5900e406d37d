import { api, ok } from '#shared/access/api';
import * as projectOps from '#shared/project/operations';
import { describeProject } from '#shared/emails/project-view';

export const handler = api(projectOps.get, async ({ caller }) => ok(await describeProject(caller)));
