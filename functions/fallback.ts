import { methodNotAllowed, notFound } from '#shared/errors';
import { publicApi } from '#shared/http/public-api';
import { matchPath } from '#shared/http/paths';
import * as serviceOps from '#shared/operations/service';
import { routes } from './routes';

/** The `$default` route: a request no entry of the route table matches. */
export const handler = publicApi(serviceOps.fallback, async ({ method, path }) => {
  const allowed = routes.filter((r) => matchPath(r.path, path)).map((r) => r.method);
  if (allowed.length > 0) throw methodNotAllowed(method, path, [...new Set(allowed)]);
  throw notFound(`Route ${method} ${path}`);
});
