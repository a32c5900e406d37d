/**
 * jest's transform for our TypeScript (and for middy, which ships ESM only): esbuild, already the
 * bundler of every function, turns each file into CommonJS at a fraction of the CPU ts-jest spent
 * (it ran TypeScript's compiler on every file). Type errors are `npm run typecheck`'s job either way.
 *
 * One difference from tsc's CommonJS that tests must know: a module's exports are getters (ES live
 * bindings), so `jest.spyOn(module, 'export')` cannot replace them. Inject faults at a seam the
 * code already has instead (test/integration/broadcast-fanout.test.ts goes through the AWS call guard).
 */
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const { transformSync, version } = require('esbuild');

// Part of every cache key: a change to this file must not reuse output cached by the old one.
const OWN_SOURCE = readFileSync(__filename, 'utf8');

const options = (path) => ({
  loader: path.endsWith('.ts') ? 'ts' : 'js',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  sourcefile: path,
  // import() becomes require(), as ts-jest made it: jest's module registry loads no ES modules
  supported: { 'dynamic-import': false },
  // class fields as tsc emits them for this project's target (ES2022)
  tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true } },
});

module.exports = {
  process(source, path) {
    const { code, map } = transformSync(source, options(path));
    return { code, map };
  },
  /**
   * jest caches what it finally runs across runs, keyed by this alone (plus its own version): so
   * everything that shapes that code is in it: esbuild's version, this file, the file's path (its
   * loader) and source, and whether jest instruments the output for coverage afterwards.
   */
  getCacheKey(source, path, { instrument }) {
    return createHash('sha256')
      .update(`${version}\0${OWN_SOURCE}\0${path}\0${instrument ? 'instrument' : ''}\0`)
      .update(source)
      .digest('hex');
  },
};
