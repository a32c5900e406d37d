/**
 * The layout of shared/ (DESIGN.md "Repository layout"; issue 15): what may import what.
 *
 * - shared/platform/ is what every feature stands on: DynamoDB (db/), the HTTP pipeline and
 *   operation definitions (http/), the AWS clients (aws/), errors, ids, logging. It imports no
 *   feature, so any feature can use it and none drags another in through it.
 * - Every other folder of shared/ is a feature (emails/, domains/, audience/, ...): its model,
 *   logic and operations. No file sits loose in shared/ itself.
 * - The features stand in one order, FEATURE_ORDER below (docs/architecture.md shows the same
 *   line): a feature imports the platform and the features before it, never one after it, so
 *   each can be read, tested and bundled with only what comes before it. No import cycle between
 *   files anywhere in shared/, functions/, lib/, local/ or bin/ (a cycle makes load order matter
 *   and hides which module is the base).
 * - The local runtime (local/) is what `npm start` runs: nothing deployed (shared/, functions/,
 *   the CDK app in lib/) imports it.
 * - Only shared/platform/ imports the AWS SDK (`@aws-sdk/*`, `@smithy/*`), of shared/ and functions/
 *   (lib/, the CDK app, and local/, the local runtime and its stand-ins, are not judged here). A feature or a handler
 *   reaches AWS through a platform/aws module, so the SDK stays out of what does not call AWS.
 * - Every feature has a model (`model.ts`): its item types and API shapes, the zod schemas with
 *   the TypeScript types derived from them (one definition). It imports zod, shared/platform/http/,
 *   shared/platform/mail/ (the address shapes), shared/platform/ids and other features' models only: no AWS SDK, no logic, so operations,
 *   logic and tests can all read it.
 * - A feature's operations (`operations.ts`, or `operations/*.ts` when it has several) are the
 *   zod definitions every consumer reads (route table, OpenAPI, hostile-input suite); they must
 *   not pull the AWS SDK into a bundle, not even through a model or a platform/aws module.
 *
 * - Every property test (fast-check's `assert`, `check`, `sample` anywhere under test/) takes its seed
 *   from seedFrom (test/support/depth.ts): `npm test` makes the same cases on every machine and every
 *   run, `npm run test:deep` new ones, and the printed seed replays a failure.
 *
 * Imports are read with a small parser (`import|export ... from '...'`, `import '...'`,
 * `import('...')`), relative and `#shared/...` ones followed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

/**
 * The features of shared/, each after everything it imports: the project (its settings, limits,
 * usage and test mode) under everything; the platform event log; request logs; then what mail is
 * made of (domains, templates, the audience), the emails, and what reacts to them or sends them in
 * bulk; access (keys, OAuth, the route wrapper every handler uses) on top. A new feature folder
 * goes where its imports put it.
 */
const FEATURE_ORDER = [
  'project',
  'events',
  'logs',
  'domains',
  'templates',
  'audience',
  'emails',
  'webhooks',
  'suppressions',
  'receiving',
  'broadcasts',
  'automations',
  'inboxes',
  'deliverability',
  'access',
];
const SHARED = 'shared';
const PLATFORM = 'shared/platform/';
const SDK = /^@(aws-sdk|smithy)\//;

/**
 * Files outside shared/platform/ allowed to import an SDK package, each with the reason. An entry
 * that is no longer needed fails the test too, so this list only shrinks.
 */
const SDK_EXCEPTIONS: Record<string, { packages: string[]; why: string }> = {};

interface Import {
  specifier: string;
  /** the repository file it names, for relative and `#shared/` imports */
  file?: string;
}

function walk(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return walk(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

function resolveFile(base: string): string | undefined {
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`])
    if (candidate.endsWith('.ts') && existsSync(join(ROOT, candidate))) return candidate;
  return undefined;
}

const PATTERNS = [
  /^\s*(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"\n]+)['"]/gm, // import x from '…', export { y } from '…', multi-line braces too
  /^\s*import\s*['"]([^'"\n]+)['"]/gm, // import '…'
  /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g, // import('…'), typeof import('…')
];

const cache = new Map<string, Import[]>();
function importsOf(file: string): Import[] {
  let found = cache.get(file);
  if (!found) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    found = PATTERNS.flatMap((pattern) => [...text.matchAll(pattern)].map((m) => m[1])).map((specifier) => {
      if (specifier.startsWith('.')) return { specifier, file: resolveFile(posix.join(dirname(file), specifier)) };
      if (specifier.startsWith('#shared/'))
        return { specifier, file: resolveFile(`shared/${specifier.slice('#shared/'.length)}`) };
      return { specifier };
    });
    cache.set(file, found);
  }
  return found;
}

const files = walk(SHARED);
const handlers = walk('functions');
const isPlatform = (file: string) => file.startsWith(PLATFORM);
const features = readdirSync(join(ROOT, SHARED), { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'platform')
  .map((e) => e.name);
const isModel = (file: string) => /^shared\/[^/]+\/model\.ts$/.test(file) && !isPlatform(file);
/** What a model may import: zod, the platform's HTTP schemas, ids and mail shapes, other features' models. */
const modelMayImport = (imp: Import) =>
  imp.file
    ? isModel(imp.file) ||
      imp.file.startsWith(`${PLATFORM}http/`) ||
      imp.file.startsWith(`${PLATFORM}mail/`) ||
      imp.file === `${PLATFORM}ids.ts`
    : /^zod(\/|$)/.test(imp.specifier);
const isOperations = (file: string) =>
  /^shared\/[^/]+\/(operations\.ts|operations\/[^/]+\.ts)$/.test(file) ||
  /^shared\/platform\/http\/[^/]*operations\.ts$/.test(file);

/** The first path from `file` to a file importing the SDK (through shared/ files), or undefined. */
function sdkPath(file: string, seen = new Set<string>()): string[] | undefined {
  if (seen.has(file)) return undefined;
  seen.add(file);
  for (const imp of importsOf(file)) {
    if (SDK.test(imp.specifier)) return [file, imp.specifier];
    if (imp.file?.startsWith(`${SHARED}/`)) {
      const rest = sdkPath(imp.file, seen);
      if (rest) return [file, ...rest];
    }
  }
  return undefined;
}

describe('the layout of shared/', () => {
  it('reads the files it judges', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter(isPlatform).length).toBeGreaterThan(5);
    expect(files.filter(isOperations).length).toBeGreaterThan(5);
    // every relative or alias import resolves: a parser that lost track would pass everything
    const lost = files.flatMap((f) =>
      importsOf(f)
        .filter((i) => (i.specifier.startsWith('.') || i.specifier.startsWith('#')) && !i.file)
        .map((i) => `${f}: '${i.specifier}'`),
    );
    expect(lost).toEqual([]);
  });

  it('puts every file of shared/ in shared/platform/ or in a feature folder', () => {
    const loose = files.filter((f) => !f.slice(SHARED.length + 1).includes('/'));
    if (loose.length)
      throw new Error(
        `${loose.join(', ')}: shared/ holds folders only. Put the file in the feature it belongs to ` +
          '(shared/<feature>/), or in shared/platform/ if every feature may use it and it imports no feature.',
      );
  });

  it('keeps shared/platform/ free of features', () => {
    const offences = files.filter(isPlatform).flatMap((f) =>
      importsOf(f)
        .filter((i) => i.file && !isPlatform(i.file))
        .map((i) => `${f} imports '${i.specifier}' (${i.file})`),
    );
    if (offences.length)
      throw new Error(
        `shared/platform/ must import no feature (nor functions/, lib/):\n  ${offences.join('\n  ')}\n` +
          'Move what the platform module needs from the feature into shared/platform/, or pass it in from the feature ' +
          '(as api() in shared/access/api.ts hands the key lookup to the platform pipeline).',
      );
  });

  it('keeps the AWS SDK inside shared/platform/', () => {
    const offences: string[] = [];
    const used = new Set<string>();
    for (const f of [...files.filter((file) => !isPlatform(file)), ...handlers]) {
      for (const imp of importsOf(f).filter((i) => SDK.test(i.specifier))) {
        const exception = SDK_EXCEPTIONS[f];
        if (exception?.packages.includes(imp.specifier)) used.add(`${f} ${imp.specifier}`);
        else offences.push(`${f} imports '${imp.specifier}'`);
      }
    }
    const stale = Object.entries(SDK_EXCEPTIONS).flatMap(([f, e]) =>
      e.packages.filter((p) => !used.has(`${f} ${p}`)).map((p) => `${f} (${p})`),
    );
    if (offences.length)
      throw new Error(
        `only shared/platform/ may import the AWS SDK (@aws-sdk/*, @smithy/*):\n  ${offences.join('\n  ')}\n` +
          'Call AWS through a module of shared/platform/aws/ (add the call there). Only if the feature cannot do without ' +
          'an SDK type, add the file to SDK_EXCEPTIONS in test/unit/layout.test.ts with a comment saying why.',
      );
    if (stale.length)
      throw new Error(
        `SDK_EXCEPTIONS lists imports that are gone; remove these entries from test/unit/layout.test.ts:\n  ${stale.join('\n  ')}`,
      );
  });

  it('gives every feature a model.ts', () => {
    expect(features.length).toBeGreaterThanOrEqual(10);
    const missing = features.filter((f) => !existsSync(join(ROOT, SHARED, f, 'model.ts')));
    if (missing.length)
      throw new Error(
        `${missing.map((f) => `shared/${f}/`).join(', ')}: a feature keeps its item types and API shapes (zod schemas, ` +
          'and the types derived from them) in model.ts.',
      );
  });

  it('keeps every model.ts to zod, platform/http, platform/mail, platform/ids and other models', () => {
    const models = files.filter(isModel);
    expect(models.length).toBeGreaterThan(0);
    const offences = models.flatMap((f) =>
      importsOf(f)
        .filter((i) => !modelMayImport(i))
        .map((i) => `${f} imports '${i.specifier}'${i.file ? ` (${i.file})` : ''}`),
    );
    if (offences.length)
      throw new Error(
        `a model holds shapes and types only (no AWS SDK, no logic):\n  ${offences.join('\n  ')}\n` +
          "Move the schema or type the model needs into a model (its own feature's or another's), or into shared/platform/http/schemas.ts.",
      );
  });

  it('keeps the AWS SDK out of every operations file, also through what it imports', () => {
    const offences = files
      .filter(isOperations)
      .map((f) => sdkPath(f))
      .filter((path): path is string[] => path !== undefined)
      .map((path) => `${path.slice(0, -1).join(' -> ')} imports '${path[path.length - 1]}'`);
    if (offences.length)
      throw new Error(
        `an operations file (zod definitions, read by the route table, OpenAPI and every handler) pulls in the AWS SDK:\n  ${offences.join('\n  ')}\n` +
          'Import what the definition needs from a module without AWS calls: split the shapes or constants it uses ' +
          'out of the module that calls AWS (a model file of the feature), and import that instead.',
      );
  });
});

/** The import cycles among `files`: each a list of files that import each other round (Tarjan's strongly connected components). */
function cycles(all: string[]): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const { file: to } of importsOf(file)) {
      if (!to || !all.includes(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || importsOf(file).some((i) => i.file === file)) found.push(component.sort());
    }
  };
  for (const file of all) if (!index.has(file)) visit(file);
  return found;
}

/** A file's feature (`shared/<feature>/...`), or undefined for the platform and files outside shared/. */
const featureOf = (file: string): string | undefined =>
  file.startsWith(`${SHARED}/`) && !isPlatform(file) ? file.split('/')[1] : undefined;

/** The imports that run against FEATURE_ORDER: a feature importing one that comes after it. */
function againstOrder(all: string[], order: readonly string[] = FEATURE_ORDER): string[] {
  return all.flatMap((file) => {
    const from = featureOf(file);
    if (!from) return [];
    return importsOf(file)
      .filter(
        (i) =>
          i.file &&
          featureOf(i.file) &&
          featureOf(i.file) !== from &&
          order.indexOf(featureOf(i.file)!) > order.indexOf(from),
      )
      .map((i) => `${file} (${from}) imports ${i.file} (${featureOf(i.file!)}, after it)`);
  });
}

describe('the feature order and the import graph', () => {
  const everything = [...files, ...handlers, ...walk('lib'), ...walk('local'), ...walk('bin')];

  it('places every feature of shared/ in FEATURE_ORDER, and only those', () => {
    expect([...FEATURE_ORDER].sort()).toEqual([...features].sort());
  });

  it('shows the same order in docs/architecture.md', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(doc).toContain(`Feature order: ${['platform', ...FEATURE_ORDER].map((f) => `\`${f}\``).join(' → ')}`);
  });

  it('has no feature importing one after it', () => {
    const offences = againstOrder(files);
    if (offences.length)
      throw new Error(
        `imports against the feature order (test/unit/layout.test.ts FEATURE_ORDER):\n  ${offences.join('\n  ')}\n` +
          'Move what the earlier feature needs down into it (or into shared/platform/), or move the importing code up into a later feature.',
      );
  });

  it('finds a planted import against the order (the check can fail)', () => {
    // emails comes after domains: a domains file importing emails runs against it
    const emailsFile = files.find((f) => f.startsWith('shared/emails/'))!;
    const planted = 'shared/domains/__planted__.ts';
    cache.set(planted, [{ specifier: '../emails/x', file: emailsFile }]);
    try {
      expect(againstOrder([planted])).toEqual([`${planted} (domains) imports ${emailsFile} (emails, after it)`]);
    } finally {
      cache.delete(planted);
    }
  });

  it('has no import cycle between files of shared/, functions/, lib/, local/ or bin/', () => {
    const found = cycles(everything);
    if (found.length)
      throw new Error(
        `import cycles:\n  ${found.map((c) => c.join(' <-> ')).join('\n  ')}\n` +
          'Move what both need (often a type) into a module of its own that neither imports back, as shared/emails/item.ts holds EmailItem.',
      );
  });

  it('finds a planted cycle (the check can fail)', () => {
    const [a, b] = ['shared/emails/__a__.ts', 'shared/emails/__b__.ts'];
    cache.set(a, [{ specifier: './__b__', file: b }]);
    cache.set(b, [{ specifier: './__a__', file: a }]);
    try {
      expect(cycles([a, b])).toEqual([[a, b]]);
    } finally {
      cache.delete(a);
      cache.delete(b);
    }
  });

  it('keeps the local runtime out of everything deployed (shared/, functions/, lib/)', () => {
    const offences = [...files, ...handlers, ...walk('lib')].flatMap((f) =>
      importsOf(f)
        .filter((i) => i.file?.startsWith('local/'))
        .map((i) => `${f} imports ${i.file}`),
    );
    expect(offences).toEqual([]);
  });
});

/** fast-check's calls that run a property or draw cases: each draws from a seed. */
const PROPERTY_RUNS = new Set(['assert', 'check', 'sample']);

/**
 * The property runs of `file` (its `text`) that do not take their seed from seedFrom
 * (test/support/depth.ts), as `file:line: why`. Each run names a `seed` in its options (a value, not a
 * number written there), unless the file gives one to fast-check's `configureGlobal`; and the file
 * calls seedFrom. `npm test` then makes the same cases everywhere, and `test:deep` new ones.
 */
function unseededRuns(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  // the names fast-check goes by here: `fc` (default or namespace import), or `assert` & co. imported by name
  const namespaces = new Set<string>();
  const named = new Map<string, string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || (statement.moduleSpecifier as ts.StringLiteral).text !== 'fast-check')
      continue;
    const clause = statement.importClause;
    if (clause?.name) namespaces.add(clause.name.text);
    const bindings = clause?.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements)
        named.set(element.name.text, (element.propertyName ?? element.name).text);
  }
  const calls: { name: string; call: ts.CallExpression }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name =
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        namespaces.has(callee.expression.text)
          ? callee.name.text
          : ts.isIdentifier(callee)
            ? (named.get(callee.text) ?? (callee.text === 'seedFrom' ? 'seedFrom' : undefined))
            : undefined;
      if (name) calls.push({ name, call: node });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const seedOf = (options: ts.Expression | undefined) =>
    options && ts.isObjectLiteralExpression(options)
      ? options.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'seed')
      : undefined;
  const written = (seed: ts.ObjectLiteralElementLike) =>
    ts.isPropertyAssignment(seed) && ts.isNumericLiteral(seed.initializer);
  const where = (node: ts.Node) => `${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
  const global = calls.find((c) => c.name === 'configureGlobal' && seedOf(c.call.arguments[0]));
  const runs = calls.filter((c) => PROPERTY_RUNS.has(c.name));
  const offences = runs.flatMap(({ name, call }) => {
    const seed = seedOf(call.arguments[1]) ?? seedOf(global?.call.arguments[0]);
    if (!seed) return [`${where(call)}: ${name}() without a seed`];
    return written(seed)
      ? [`${where(seed)}: ${name}()'s seed is a number written there, the same under test:deep`]
      : [];
  });
  if (runs.length > 0 && !calls.some((c) => c.name === 'seedFrom'))
    offences.push(`${file}: runs properties and never calls seedFrom`);
  return offences;
}

describe('the property tests', () => {
  const tests = walk('test').filter((f) => importsOf(f).some((i) => i.specifier === 'fast-check'));

  it('reads the files that use fast-check', () => {
    expect(tests).toEqual(expect.arrayContaining(['test/api/hostile-input.test.ts', 'test/unit/dns-wire.test.ts']));
  });

  it('take every seed from seedFrom: the same cases in every `npm test`, new ones under test:deep', () => {
    const offences = tests.flatMap((f) => unseededRuns(f, readFileSync(join(ROOT, f), 'utf8')));
    if (offences.length)
      throw new Error(
        `property runs without a seed from seedFrom:\n  ${offences.join('\n  ')}\n` +
          "Give each run `{ seed: SEED }` with `const SEED = seedFrom('PROPERTY_SEED', <a fixed number>)` (test/support/depth.ts), " +
          'as test/unit/dns-wire.test.ts does: unseeded, `npm test` tries other cases on every run and a failure cannot be had again.',
      );
  });

  it('finds a planted unseeded run and a written seed (the check can fail)', () => {
    const planted = [
      "import fc from 'fast-check';",
      "import { seedFrom } from '../support/depth';",
      "const SEED = seedFrom('PROPERTY_SEED', 1);",
      'fc.assert(fc.property(fc.nat(), () => true), { seed: SEED });',
      'fc.assert(fc.property(fc.nat(), () => true), { numRuns: 10 });',
      'fc.sample(fc.nat(), { seed: 42 });',
    ].join('\n');
    expect(unseededRuns('planted.ts', planted)).toEqual([
      'planted.ts:5: assert() without a seed',
      "planted.ts:6: sample()'s seed is a number written there, the same under test:deep",
    ]);
    const noSeedFrom =
      "import { assert, property, nat } from 'fast-check';\nassert(property(nat(), () => true), { seed: s });";
    expect(unseededRuns('planted.ts', noSeedFrom)).toEqual(['planted.ts: runs properties and never calls seedFrom']);
  });
});
