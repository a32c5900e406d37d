/**
 * CDK's own bundled synth, as `cdk synth` and `cdk deploy` bundle: NodejsFunction spawns esbuild
 * once per function (185 processes, about three minutes on 2 cores), so only `npm run test:deep`
 * runs it. What only the real bundling shows: that CDK stages an asset per function from the
 * stack's options (lib/api-function.ts), whose index.mjs is byte for byte the bundle that
 * test/infra/bundles.test.ts builds in one esbuild build and checks on every run (so its claims are
 * claims about what is deployed); that the staged bundles themselves are deployable; that the
 * console's files are staged beside the dashboard's bundle (the bundling's afterBundling hook);
 * and where the bundled app's functions are.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { routes } from '../../functions/routes';
import { workers } from '../../functions/workers';
import { bundleEveryHandler, bundleShape, deployable, stackFunctions } from '../infra/function-bundles';
import { type Synthesized, synth } from '../support/synth';

describe('EmailService stack (bundled by CDK with esbuild)', () => {
  let bundled: Synthesized;
  /** The directory of each function's staged asset, by function id. */
  const assets = new Map<string, string>();
  /** The bundles of the one esbuild build, by handler. */
  let oneBuild: Map<string, string>;

  beforeAll(async () => {
    bundled = synth({ bundle: true });
    const assemblyDir = bundled.app.synth().directory;
    for (const [id, fn] of bundled.stack.functions) {
      const code = bundled.resources[Stack.of(fn).getLogicalId(fn.node.defaultChild as CfnElement)].Properties.Code;
      assets.set(id, path.join(assemblyDir, `asset.${String(code.S3Key).replace(/\.zip$/, '')}`));
    }
    oneBuild = await bundleEveryHandler();
  }, 600_000);

  const staged = (id: string) => fs.readFileSync(path.join(assets.get(id)!, 'index.mjs'), 'utf8');

  it('stages a bundle per function, the one the bundle test checks byte for byte', () => {
    expect([...assets.keys()].sort()).toEqual(stackFunctions.map((fn) => fn.id).sort());
    for (const fn of stackFunctions)
      expect({ id: fn.id, sameAsOneBuild: staged(fn.id) === oneBuild.get(fn.handler) }).toEqual({
        id: fn.id,
        sameAsOneBuild: true,
      });
  });

  it('builds an ESM bundle per function with the shared imports and the AWS SDK inlined', () => {
    for (const fn of stackFunctions)
      expect({ id: fn.id, ...bundleShape(staged(fn.id)) }).toEqual({ id: fn.id, ...deployable(fn) });
  });

  it("stages the console's files beside the dashboard's bundle, and no other function's", () => {
    const serving = routes.filter((r) => r.consoleAssets).map((r) => r.handler);
    expect(serving.length).toBeGreaterThan(0);
    for (const fn of stackFunctions)
      expect({ id: fn.id, console: fs.existsSync(path.join(assets.get(fn.id)!, 'dashboard', 'index.html')) }).toEqual({
        id: fn.id,
        console: serving.includes(fn.handler),
      });
  });

  it('has a function per route, the fallback and the workers: the routes in the nested stacks, the rest in the parent', () => {
    const functions = Object.values(bundled.resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(functions).toHaveLength(routes.length + 1 + workers.length);
    bundled.template.resourceCountIs('AWS::Lambda::Function', 1 + workers.length);
  });
});
