/**
 * Every function of the stack with the handler module it bundles, every handler module bundled in
 * one esbuild build with the options the stack gives NodejsFunction (lib/bundling.ts
 * `bundleOptions`, which lib/api-function.ts passes on), and what a deployable bundle is. Read by
 * test/infra/bundles.test.ts (these bundles, on every run) and test/deep/bundled-synth.test.ts
 * (CDK's own bundles, which must be these byte for byte).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { grantedActions } from '../../functions/needs';
import { fallbackRoute, functionName, routeNeeds, routes } from '../../functions/routes';
import { workerFunctionName, workers } from '../../functions/workers';
import { BUNDLE_BANNER, bundleOptions } from '../../lib/bundling';

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Each function of the stack: its id (`EmailServiceStack.functions`), its handler module under
 * functions/, and whether it calls AWS (every worker; a route when its needs grant anything).
 */
export const stackFunctions = [
  ...routes.map((route) => ({
    id: functionName(route),
    handler: route.handler,
    callsAws: grantedActions(routeNeeds(route)).length > 0,
  })),
  { id: functionName(fallbackRoute), handler: fallbackRoute.handler, callsAws: false },
  ...workers.map((worker) => ({ id: workerFunctionName(worker.name), handler: worker.handler, callsAws: true })),
];

/**
 * Every handler module of `stackFunctions` bundled by one esbuild build, by handler. One build,
 * not one per function: esbuild reads and parses each module the functions share (the SDK, shared/)
 * once for all of them, and without code splitting each entry's output is the whole bundle of
 * that entry, as a build of it alone makes it. CDK's bundling spawns an esbuild process per
 * function (185 of them: about 165 s of a synth on 2 cores against about 44 s for this build).
 */
export async function bundleEveryHandler(): Promise<Map<string, string>> {
  const handlers = [...new Set(stackFunctions.map((f) => f.handler))];
  const outdir = path.join(os.tmpdir(), 'email-service-bundles'); // nothing is written: `write: false`
  const { outputFiles } = await build({
    ...bundleOptions(ROOT, ''), // the one entry replaced by all of them:
    entryPoints: Object.fromEntries(handlers.map((h) => [h, path.join(ROOT, 'functions', `${h}.ts`)])),
    outdir,
    write: false,
  });
  const bundles = new Map(
    outputFiles.map((file) => [path.relative(outdir, file.path).replace(/\.js$/, ''), file.text]),
  );
  const missing = handlers.filter((h) => !bundles.has(h));
  if (missing.length > 0) throw new Error(`esbuild made no bundle for ${missing.join(', ')}`);
  return bundles;
}

/**
 * What a bundle is, as the fields a deployable one must have (`deployable`): the banner first,
 * `#shared/*` imports resolved at build time, not left for Node to find, the AWS SDK bundled, not
 * imported from the runtime, `handler` exported from an ES module, and credentials from Lambda's
 * environment only: none of the SDK's default chain (lib/bundling.ts, BUNDLE_ALIAS).
 */
export const bundleShape = (bundle: string) => ({
  startsWithBanner: bundle.startsWith(BUNDLE_BANNER),
  sharedImportsLeft: /["']#shared\//.test(bundle),
  sdkImportsLeft: /from\s*["']@aws-sdk\//.test(bundle),
  exportsHandler: /export\s*\{[^}]*\bhandler\b/.test(bundle),
  webIdentityCredentials: bundle.includes('AWS_WEB_IDENTITY_TOKEN_FILE'),
  ssoCredentials: bundle.includes('sso_start_url'),
  environmentCredentials: bundle.includes('AWS_SESSION_TOKEN'),
});

/** The shape of a deployable bundle of a function: it reads Lambda's environment credentials exactly when it calls AWS. */
export const deployable = (fn: { callsAws: boolean }): ReturnType<typeof bundleShape> => ({
  startsWithBanner: true,
  sharedImportsLeft: false,
  sdkImportsLeft: false,
  exportsHandler: true,
  webIdentityCredentials: false,
  ssoCredentials: false,
  environmentCredentials: fn.callsAws,
});
