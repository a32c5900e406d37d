/**
 * Builds the web console (./app, a Preact + htm single-page app) into static files: `index.html`
 * and content-hashed assets under `assets/`. esbuild, browser target, minified, one JS and one CSS
 * file: the whole first load.
 *
 * Why the console lives in functions/dashboard/: it is what one route function serves (./serve.ts),
 * and functions/ is where route code lives; the app beside its handler keeps the one feature in one
 * folder. The app is browser code, so it has its own tsconfig (DOM lib) and the main tsconfig leaves
 * ./app out; nothing under functions/ imports ./app, so no Lambda bundle carries it.
 *
 * Three callers, one build: the local runtime at start (local/runtime.ts, in process, ~100 ms),
 * the CDK stack after bundling the serving function (lib/api-function.ts: the files go into the
 * function's asset, beside its index.mjs), and `npm run bench` (its `dashboard` section prints sizes).
 * Run as a script it writes the files to the folder given: `tsx functions/dashboard/build.ts <dir>`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { build } from 'esbuild';

const APP = path.join(__dirname, 'app');

/** Browsers the console supports: the last two years of evergreen ones. */
export const BROWSER_TARGET = ['chrome111', 'firefox111', 'safari16'];

export interface DashboardFile {
  /** path under /dashboard/ (`index.html`, `assets/app-XXXX.js`) */
  name: string;
  contents: Uint8Array;
}

/** The console's files, in memory. */
export async function buildDashboard(): Promise<DashboardFile[]> {
  const result = await build({
    entryPoints: { app: path.join(APP, 'main.ts'), styles: path.join(APP, 'styles.css') },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: BROWSER_TARGET,
    entryNames: '[name]-[hash]',
    outdir: '/assets',
    write: false,
    legalComments: 'none',
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  const assets = result.outputFiles.map((file) => ({
    name: `assets/${path.basename(file.path)}`,
    contents: file.contents,
  }));
  const script = assets.find((a) => a.name.endsWith('.js'))!.name;
  const style = assets.find((a) => a.name.endsWith('.css'))!.name;
  return [{ name: 'index.html', contents: new TextEncoder().encode(indexHtml(script, style)) }, ...assets];
}

/** The one page: no inline script or style (the CSP allows neither), the app mounts on #app. */
function indexHtml(script: string, style: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Email service console</title>',
    `<link rel="stylesheet" href="/dashboard/${style}">`,
    `<script type="module" src="/dashboard/${script}"></script>`,
    '</head>',
    '<body><div id="app"></div><noscript>The console needs JavaScript.</noscript></body>',
    '</html>',
    '',
  ].join('\n');
}

/** Writes the console's files under `dir` (created if missing). */
export async function writeDashboard(dir: string): Promise<DashboardFile[]> {
  const files = await buildDashboard();
  for (const file of files) {
    mkdirSync(path.dirname(path.join(dir, file.name)), { recursive: true });
    writeFileSync(path.join(dir, file.name), file.contents);
  }
  return files;
}

if (require.main === module) {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: tsx functions/dashboard/build.ts <output dir>');
  writeDashboard(dir).catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
