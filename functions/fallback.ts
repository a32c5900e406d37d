import { methodNotAllowed, notFound } from '#shared/platform/errors';
import { publicApi } from '#shared/platform/http/public-api';
import { matchPath } from '#shared/platform/http/paths';
import * as serviceOps from '#shared/platform/http/service-operations';
import { routes } from './routes';

/** The `$default` route: a request no entry of the route table matches. */
export const handler = publicApi(serviceOps.fallback, async ({ method, path }) => {
  const allowed = routes.filter((r) => matchPath(r.path, path)).map((r) => r.method);
  if (allowed.length > 0) throw methodNotAllowed(method, path, [...new Set(allowed)]);
  throw notFound(`Route ${method} ${path}`);
});
