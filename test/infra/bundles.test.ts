/**
 * Every function's bundle as the stack deploys it, from one esbuild build of every handler module
 * with the options the stack gives NodejsFunction (test/infra/function-bundles.ts says why one
 * build, not CDK's process per function). The template tests skip bundling; this file is what
 * proves the `#shared/*` imports and the bundling settings on every run, and it is the one infra
 * file `npm run test:fast` leaves out. That CDK's own bundling makes these same bundles is
 * test/deep/bundled-synth.test.ts's (`npm run test:deep`).
 */
import { bundleEveryHandler, bundleShape, deployable, stackFunctions } from './function-bundles';

let bundles: Map<string, string>;
// one esbuild build of ~185 entries: about 45 s on a busy 2-core machine
beforeAll(async () => {
  bundles = await bundleEveryHandler();
}, 180_000);

it.each(stackFunctions.map((fn) => [fn.id, fn] as const))(
  '%s: an ESM bundle with the shared imports and the AWS SDK inlined, credentials from the environment when it calls AWS',
  (id, fn) => {
    expect({ id, ...bundleShape(bundles.get(fn.handler)!) }).toEqual({ id, ...deployable(fn) });
  },
);
