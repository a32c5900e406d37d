/**
 * How every Lambda is bundled, shared by the CDK stack (NodejsFunction) and the bundle-size
 * benchmark, so the benchmark measures exactly what is deployed.
 * - ESM output with a `createRequire` banner (some dependencies still call `require`);
 * - `mainFields: ['module', 'main']`: esbuild's default for node picks the SDK's CommonJS
 *   builds, which are 35-40% larger and load ~30 ms slower (DESIGN.md);
 * - the AWS SDK clients are bundled (no externals): a bundled client beats the runtime's copy on cold start.
 */
export const BUNDLE_TARGET = 'node22';
export const BUNDLE_MAIN_FIELDS = ['module', 'main'];
export const BUNDLE_BANNER = "import{createRequire as __cr}from'module';const require=__cr(import.meta.url);";

/** Module initialisation and size budgets per function (DESIGN.md), checked by `npm run bench`. */
export const BUNDLE_BUDGET_BYTES = 450 * 1024;
export const INIT_BUDGET_MS = 70;
