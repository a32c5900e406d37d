/**
 * jest's transform for our TypeScript (and for middy, which ships ESM only): esbuild, already the
 * bundler of every function, turns each file into CommonJS. ts-jest did the same with TypeScript's
 * compiler in transpile-only mode at several times the CPU; type errors are `npm run typecheck`'s
 * job either way. Class fields follow ES2022 as tsc emits them for this project's target.
 */
const { createHash } = require('node:crypto');
const { transformSync, version } = require('esbuild');

const options = (path) => ({
  loader: path.endsWith('.ts') ? 'ts' : 'js',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  sourcefile: path,
  tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true } },
});

module.exports = {
  process(source, path) {
    return { code: transformSync(source, options(path)).code };
  },
  getCacheKey(source, path) {
    return createHash('sha256').update(version).update('\0').update(path).update('\0').update(source).digest('hex');
  },
};
