/**
 * `npm run stack-trace` (lib/stack-trace.ts): a stack trace of the deployed, minified bundle maps back
 * to the TypeScript line that threw. The bundle is built as deployed, run in a process of its own
 * like Lambda would, made to throw, and its logged trace mapped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from '../../lib/bundling';
import { bundleSourceMap, mapTrace } from '../../lib/stack-trace';

const root = join(__dirname, '..', '..');

it("maps a minified bundle's stack trace to the TypeScript that threw", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'stack-trace-'));
  try {
    const bundle = join(dir, 'index.mjs');
    await build({
      ...bundleOptions(root, join(root, 'functions', 'workers', 'webhook-dispatcher.ts')),
      outfile: bundle,
    });
    // a message that is not a delivery: parse() throws, and the handler logs the error with its stack
    const run = `import(${JSON.stringify(bundle)}).then((m) => m.handler({ Records: [{ messageId: 'm-1', receiptHandle: 'r', body: '{"project_id":1}' }] }))`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', run], {
      env: {
        ...process.env,
        AWS_REGION: 'ap-southeast-2',
        TABLE_NAME: 't',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      encoding: 'utf8',
    });
    const logged = out.stderr.split('\n').find((line) => line.includes('not a webhook delivery message'));
    const trace: string = JSON.parse(logged!).error.stack;
    expect(trace).toMatch(/index\.mjs:\d+:\d+/); // minified: nothing a reader can use
    const mapped = mapTrace(trace, await bundleSourceMap('workers/webhook-dispatcher'));
    // the `throw` in parse(): its line in the source
    const throwLine =
      readFileSync(join(__dirname, '..', '..', 'functions', 'workers', 'webhook-dispatcher.ts'), 'utf8')
        .split('\n')
        .findIndex((line) => line.includes("throw new Error('not a webhook delivery message')")) + 1;
    expect(throwLine).toBeGreaterThan(0);
    expect(mapped).toContain(`functions/workers/webhook-dispatcher.ts:${throwLine}:`);
    expect(mapped).toMatch(/shared\/platform\/aws\/batch\.ts:\d+:\d+/);
    expect(mapped).not.toMatch(/index\.mjs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
