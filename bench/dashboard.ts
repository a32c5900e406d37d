/**
 * The web console's first load (issue 24): the app built as the service serves it
 * (functions/dashboard/build.ts), and the sizes of what a browser fetches before the first screen:
 * raw, gzip and brotli (at their highest levels, as a CDN or the browser's cache would hold them).
 * The budget: under 100 KB of compressed JavaScript. `BENCH_ONLY=dashboard npm run bench` runs it alone.
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildDashboard } from '../functions/dashboard/build';

export const DASHBOARD_JS_BUDGET_BYTES = 100 * 1024;

export interface DashboardSizes {
  buildMs: number;
  files: { name: string; raw: number; gzip: number; brotli: number }[];
  /** the first load's JavaScript (every .js file: the app is one bundle) */
  js: { raw: number; gzip: number; brotli: number };
}

export async function benchDashboard(): Promise<DashboardSizes> {
  const started = performance.now();
  const built = await buildDashboard();
  const buildMs = performance.now() - started;
  const files = built.map((file) => ({
    name: file.name.replace(/-[A-Z0-9]{8}\./, '-<hash>.'),
    raw: file.contents.length,
    gzip: gzipSync(file.contents, { level: 9 }).length,
    brotli: brotliCompressSync(file.contents, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  }));
  const scripts = files.filter((f) => f.name.endsWith('.js'));
  const sum = (key: 'raw' | 'gzip' | 'brotli') => scripts.reduce((total, f) => total + f[key], 0);
  return { buildMs, files, js: { raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli') } };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

export function formatDashboard(result: DashboardSizes): string {
  return [
    `Built in ${result.buildMs.toFixed(0)} ms (esbuild, minified, browser target). Every file of the first load:`,
    '',
    '| file | raw | gzip | brotli |',
    '|---|---|---|---|',
    ...result.files.map((f) => `| ${f.name} | ${kb(f.raw)} | ${kb(f.gzip)} | ${kb(f.brotli)} |`),
    `| **JavaScript, first load** | ${kb(result.js.raw)} | ${kb(result.js.gzip)} | ${kb(result.js.brotli)} |`,
  ].join('\n');
}
