import { ok, publicApi } from '#shared/http/public-api';
import * as serviceOps from '#shared/operations/service';

export const handler = publicApi(serviceOps.health, async () => ok({ status: 'ok' }));
