/**
 * GET /dashboard and GET /dashboard/{proxy+}: the web console's static files (built by ./build.ts),
 * served from the API's own origin so the app calls the API without CORS.
 *
 * - The files are read once per container from DASHBOARD_ASSETS_DIR (the local runtime's build) or
 *   `dashboard/` beside the bundle (on AWS the stack's bundling puts them there: lib/api-function.ts).
 * - `assets/*` are content-hashed: cached a year, immutable. `index.html` is never cached, so a
 *   deploy takes effect on the next load.
 * - Any other path that does not look like a file answers index.html (the app routes itself, e.g.
 *   /dashboard/emails/<id>, /dashboard/oauth/authorize?...); a file-like path that is not an asset is 404.
 * - Every answer carries CONSOLE_HEADERS: the CSP allows scripts, fetches and frames from this origin
 *   only, no inline script; styles also inline, for the email previews (a sandboxed `srcdoc` frame
 *   inherits this policy, and mail is styled inline); images from this origin and `data:` only, so a
 *   preview never loads a remote image (no tracking pixel fires when someone looks at an email).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { ApiError } from '#shared/platform/errors';
import { publicApi, type Reply } from '#shared/platform/http/public-api';
import * as serviceOps from '#shared/platform/http/service-operations';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
};

let files: Map<string, string> | undefined;

function load(): Map<string, string> {
  const root =
    process.env.DASHBOARD_ASSETS_DIR ?? path.join(process.env.LAMBDA_TASK_ROOT ?? process.cwd(), 'dashboard');
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else found.set(path.relative(root, full).split(path.sep).join('/'), readFileSync(full, 'utf8'));
    }
  };
  walk(root);
  return found;
}

const reply = (name: string, body: string, cache: string): Reply => ({
  statusCode: 200,
  body,
  raw: true,
  headers: {
    ...CONSOLE_HEADERS,
    'content-type': TYPES[path.extname(name)] ?? 'application/octet-stream',
    'cache-control': cache,
  },
});

export const handler = publicApi(serviceOps.dashboardFile, async ({ path: requestPath }) => {
  files ??= load();
  const rest = requestPath.replace(/^\/dashboard\/?/, '');
  const asset = files.get(rest);
  if (rest.startsWith('assets/') && asset !== undefined)
    return reply(rest, asset, 'public, max-age=31536000, immutable');
  if (/\.[A-Za-z0-9]+$/.test(rest))
    throw new ApiError(
      404,
      'not_found',
      'Console file not found',
      [{ code: 'not_found', message: 'Console file not found', path: '' }],
      CONSOLE_HEADERS,
    );
  return reply('index.html', files.get('index.html')!, 'no-cache');
});
