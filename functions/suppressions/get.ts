import { api, ok } from '#shared/http/api';
import * as suppressionOps from '#shared/operations/suppressions';
import { getSuppression } from '#shared/suppressions';

export const handler = api(suppressionOps.get, async ({ params, caller }) => ok(await getSuppression(caller, params.id_or_email)));
