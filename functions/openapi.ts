import { ok, publicApi } from '#shared/http/public-api';
import { openApiDocument } from '#shared/http/openapi';
import * as serviceOps from '#shared/operations/service';
import { routes } from './routes';

const document = openApiDocument(routes); // built once per container

export const handler = publicApi(serviceOps.openapi, async () => ok(document));
