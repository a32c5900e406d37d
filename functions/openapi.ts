import { openApiDocument } from '#shared/platform/http/openapi';
import { ok, publicApi } from '#shared/platform/http/public-api';
import * as serviceOps from '#shared/platform/http/service-operations';
import { routes } from './routes';

// Built on the first request, not at module load: converting every schema costs ~20 ms of
// init that no other request should pay (npm run bench).
let document: ReturnType<typeof openApiDocument> | undefined;

export const handler = publicApi(serviceOps.openapi, async () => ok((document ??= openApiDocument(routes))));
