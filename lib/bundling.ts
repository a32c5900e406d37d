/**
 * How every Lambda is bundled, shared by the CDK stack (NodejsFunction), the bundle test
 * (test/infra/bundles.test.ts) and the bundle-size benchmark, so they check and measure exactly
 * what is deployed.
 * - ESM output with a `createRequire` banner (some dependencies still call `require`);
 * - `mainFields: ['module', 'main']`: esbuild's default for node picks the SDK's CommonJS
 *   builds, which are 35-40% larger and load ~30 ms slower (DESIGN.md);
 * - the AWS SDK clients are bundled (no externals): a bundled client beats the runtime's copy on cold start;
 * - the SDK's default credential chain is replaced by the environment's credentials, which is where
 *   Lambda puts the role's (shared/platform/aws/lambda-credentials.ts says why).
 */
export const BUNDLE_TARGET = 'node22';
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];
/** Import paths replaced when bundling (esbuild's `alias`), resolved from the repository root. */
export const BUNDLE_ALIAS: Record<string, string> = {
  '@aws-sdk/credential-provider-node': './shared/platform/aws/lambda-credentials.ts',
};
export const BUNDLE_BANNER = "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);";

/** Module initialisation and size budgets per function (DESIGN.md), checked by `npm run bench`. */
export const BUNDLE_BUDGET_BYTES = 450 * 1024;
export const INIT_BUDGET_MS = 70;

/**
 * esbuild's options for one function's bundle, as NodejsFunction builds it for the stack
 * (lib/api-function.ts gives NodejsFunction these): the bundle test, the bundle benchmark and the
 * stack-trace tool (lib/stack-trace.ts) build with them, so what they build is what is deployed.
 */
export function bundleOptions(root: string, entry: string) {
  return {
    entryPoints: [entry],
    absWorkingDir: root,
    bundle: true,
    platform: 'node' as const,
    format: 'esm' as const,
    minify: true,
    target: BUNDLE_TARGET,
    mainFields: BUNDLE_MAIN_FIELDS,
    alias: BUNDLE_ALIAS,
    banner: { js: BUNDLE_BANNER },
    logLevel: 'error' as const,
  };
}
