/**
 * Bundle size and module initialisation time of every function, built exactly as the stack
 * deploys it (lib/bundling.ts), against DESIGN.md's budgets (450 KB, 70 ms). Init time is the
 * median over BENCH_RUNS fresh `node` processes importing the bundle (cold start's module part).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { fallbackRoute, functionName, routes } from '../functions/routes';
import { workers } from '../functions/workers';
import { BUNDLE_ALIAS, BUNDLE_BUDGET_BYTES, bundleOptions, INIT_BUDGET_MS } from '../lib/bundling';

const root = join(__dirname, '..');

export interface BundleRow {
  name: string;
  handler: string;
  bytes: number;
  initMs: { min: number; median: number; max: number };
}

export interface BundleResults {
  rows: BundleRow[];
  /** the machine's speed in this run: a DynamoDB document client alone, built and loaded like the functions */
  reference: BundleRow;
}

/**
 * DESIGN.md measured "lib-dynamodb alone" at 51 ms on this kind of machine; that figure is what the
 * 70 ms budget was set against. Loading the same thing in the same run shows how fast the machine
 * is today, so a reader can tell a slow machine (everything slower, the reference too) from a
 * heavy function. The budget is still applied to the raw figures.
 */
export const REFERENCE_DESIGN_MS = 51;
const REFERENCE_SOURCE =
  "import { DynamoDBClient } from '@aws-sdk/client-dynamodb'; import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb'; export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One fresh process: import the bundle, print how long it took. */
const LOADER = `const t=process.hrtime.bigint();import(process.argv[1]).then(()=>{process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))})`;

export async function benchBundles(runs = Number(process.env.BENCH_RUNS ?? 7)): Promise<BundleResults> {
  const dir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
  const reference = { name: 'reference', handler: '(lib-dynamodb document client alone)' };
  const functions = [
    reference,
    ...routes.map((r) => ({ name: functionName(r), handler: r.handler })),
    { name: functionName(fallbackRoute), handler: fallbackRoute.handler },
    ...workers.map((w) => ({ name: `${functionName({ handler: w.name })}Worker`, handler: w.handler })),
  ];
  const rows: BundleRow[] = [];
  try {
    for (const fn of functions) {
      const outfile = join(dir, `${fn.name}.mjs`);
      const { entryPoints, ...options } = bundleOptions(root, join(root, 'functions', `${fn.handler}.ts`));
      await build({
        ...options,
        ...(fn === reference
          ? { stdin: { contents: REFERENCE_SOURCE, resolveDir: root, loader: 'ts' as const } }
          : { entryPoints }),
        // The reference stays the SDK's own build, as DESIGN.md measured it.
        alias: fn === reference ? {} : BUNDLE_ALIAS,
        outfile,
      });
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const out = spawnSync(process.execPath, ['--input-type=module', '-e', LOADER, outfile], {
          env: {
            ...process.env,
            AWS_REGION: 'ap-southeast-2',
            TABLE_NAME: 'bench',
            AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
          },
          encoding: 'utf8',
        });
        if (out.status !== 0) throw new Error(`${fn.handler} failed to load: ${out.stderr}`);
        times.push(Number(out.stdout));
      }
      rows.push({
        ...fn,
        bytes: statSync(outfile).size,
        initMs: { min: Math.min(...times), median: median(times), max: Math.max(...times) },
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { reference: rows[0], rows: rows.slice(1) };
}

export function formatBundles({ rows, reference }: BundleResults): string {
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  const lines = [
    `Reference, the machine's speed in this run: ${reference.handler} loads in ${reference.initMs.median.toFixed(1)} ms (${kb(reference.bytes)} KB); DESIGN.md measured ${REFERENCE_DESIGN_MS} ms when it set the ${INIT_BUDGET_MS} ms budget (${machineSpeed(reference)}).`,
    '',
    `| function | handler | bundle KB (budget ${kb(BUNDLE_BUDGET_BYTES)}) | init ms median (min-max; budget ${INIT_BUDGET_MS}) | budget |`,
    '|---|---|---:|---:|---|',
  ];
  for (const r of rows) {
    const met = r.bytes <= BUNDLE_BUDGET_BYTES && r.initMs.median <= INIT_BUDGET_MS;
    lines.push(
      `| ${r.name} | ${r.handler} | ${kb(r.bytes)} | ${r.initMs.median.toFixed(1)} (${r.initMs.min.toFixed(1)}-${r.initMs.max.toFixed(1)}) | ${met ? 'MET' : 'OVER'} |`,
    );
  }
  return lines.join('\n');
}

/** "1.0x DESIGN.md's machine": above 1 this machine is slower today than when the budgets were set. */
export const machineSpeed = (reference: BundleRow) =>
  `${(reference.initMs.median / REFERENCE_DESIGN_MS).toFixed(1)}x the time DESIGN.md measured`;
