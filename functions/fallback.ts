import { methodNotAllowed, notFound, notSupported } from '#shared/platform/errors';
import { publicApi } from '#shared/platform/http/public-api';
import { matchPath } from '#shared/platform/http/paths';
import * as serviceOps from '#shared/platform/http/service-operations';
import { routes, unsupportedRoutes } from './routes';

/** The `$default` route: a request no entry of the route table matches. A path of Resend's that we do not have says why. */
export const handler = publicApi(serviceOps.fallback, async ({ method, path }) => {
  const allowed = routes.filter((r) => matchPath(r.path, path)).map((r) => r.method);
  const reason = unsupportedRoutes.find((u) => matchPath(u.path, path))?.reason;
  if (allowed.length > 0) throw methodNotAllowed(method, path, [...new Set(allowed)], reason);
  if (reason) throw notSupported(method, path, reason);
  throw notFound(`Route ${method} ${path}`);
});
