/**
 * Module-level schemas are built only in the bundles that use them (issue 39, cold start).
 *
 * A handler imports one operation of a module that defines thirty, and each operation's request
 * and response schemas, with the model's schemas behind them, were built at import: zod's
 * construction was a third of what a handler's cold start spent above the bare SDK client's.
 * esbuild drops a module-level value nobody reads only when it knows building it has no effect,
 * and it does not know that of a zod call made from another module (zod's own
 * `__NO_SIDE_EFFECTS__` annotations do not reach across modules, nor does esbuild's `pure` option
 * reach imported names). So every module-level `const` of a schema module whose value comes from a
 * call is written `/* @__PURE__ *\/ (() => ...)()`: the bundle keeps it only when something kept
 * reads it. This test holds every file under shared/ that imports zod to that.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** Whether evaluating `node` calls something (a function or class body is not evaluated where it is written). */
const makesCall = (node: ts.Node): boolean =>
  ts.isCallExpression(node) ||
  ts.isNewExpression(node) ||
  ts.isTaggedTemplateExpression(node) ||
  (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node) && (ts.forEachChild(node, makesCall) ?? false));

/** The module-level consts of `file` (its `text`) built by a call without the annotation, as `file: name`. */
function unannotated(file: string, text = readFileSync(file, 'utf8')): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) => {
    if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) return [];
    return statement.declarationList.declarations
      .filter(({ initializer }) => {
        if (!initializer || !makesCall(initializer)) return false;
        const leading = text.slice(initializer.pos, initializer.getStart(source));
        return !/@__PURE__/.test(leading);
      })
      .map((declaration) => `${relative(ROOT, file)}: ${declaration.name.getText(source)}`);
  });
}

const schemaModules = sourceFiles(join(ROOT, 'shared')).filter((file) =>
  /from 'zod\/mini'/.test(readFileSync(file, 'utf8')),
);

test('the schema modules are found (the check below reads something)', () => {
  expect(schemaModules.length).toBeGreaterThan(30);
  expect(schemaModules.map((file) => relative(ROOT, file))).toContain('shared/emails/operations.ts');
});

test('every module-level value a schema module builds by a call is marked pure, so unused ones leave the bundle', () => {
  expect(schemaModules.flatMap((file) => unannotated(file))).toEqual([]);
});

test('the check notices a schema built without the annotation', () => {
  const file = join(ROOT, 'shared/emails/operations.ts');
  const text = `${readFileSync(file, 'utf8')}\nexport const extra = z.string();\n`;
  expect(unannotated(file, text)).toEqual(['shared/emails/operations.ts: extra']);
});
