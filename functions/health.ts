import { ok, publicApi } from '#shared/platform/http/public-api';
import * as serviceOps from '#shared/platform/http/service-operations';

export const handler = publicApi(serviceOps.health, async () => ok({ status: 'ok' }));
