import { api, ok } from '#shared/http/api';
import * as serviceOps from '#shared/operations/service';

export const handler = api(serviceOps.health, async () => ok({ status: 'ok' }));
