/**
 * A production stack trace in our TypeScript. The functions are deployed minified and without
 * source maps (a map doubles the package and `--enable-source-maps` slows every cold start), so a
 * trace from CloudWatch names `index.mjs:1:53211`. The bundle of a commit is reproducible (the
 * same esbuild, the same options: lib/bundling.ts `bundleOptions`), so this rebuilds the
 * function's bundle with a source map, in memory, and maps each position back:
 * `npm run stack-trace -- <handler> < trace.txt` (bin/stack-trace.ts), on the deployed commit.
 */
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from './bundling';

const ROOT = join(__dirname, '..');

/** The source map of the bundle of `functions/<handler>.ts`, as deployed. */
export async function bundleSourceMap(handler: string): Promise<SourceMap> {
  const result = await build({
    ...bundleOptions(ROOT, join(ROOT, 'functions', `${handler}.ts`)),
    sourcemap: 'external',
    sourcesContent: false,
    write: false,
    outfile: join(ROOT, 'index.mjs'),
  });
  const map = result.outputFiles.find((file) => file.path.endsWith('.map'));
  if (!map) throw new Error(`esbuild made no source map for ${handler}`);
  return new SourceMap(JSON.parse(map.text));
}

/** `trace` with every `index.mjs:<line>:<column>` position replaced by its TypeScript source, line and column. */
export function mapTrace(trace: string, map: SourceMap): string {
  return trace.replace(
    /(?:file:\/\/)?(?:\/var\/task\/)?index\.mjs:(\d+):(\d+)/g,
    (whole, line: string, column: string) => {
      const entry = map.findEntry(Number(line) - 1, Number(column) - 1) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      if (!entry.originalSource) return whole;
      const source = entry.originalSource.startsWith('file://')
        ? new URL(entry.originalSource).pathname
        : join(ROOT, entry.originalSource);
      return `${relative(ROOT, source)}:${(entry.originalLine ?? 0) + 1}:${(entry.originalColumn ?? 0) + 1}`;
    },
  );
}
