import { api, ok } from '#shared/access/api';
import * as logOps from '#shared/logs/operations';
import { getLog } from '#shared/logs/request-log';

export const handler = api(logOps.get, async ({ params, caller }) => ok(await getLog(caller, params.log_id)));
