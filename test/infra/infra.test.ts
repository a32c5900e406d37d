/**
 * The infra project's template tests, in one jest test file: each topic is a module of its own
 * (`test/infra/<topic>.infra.ts`, not a test file) that registers its describe blocks when this
 * file loads it. One file, because jest gives every test file its own module registry, so the
 * memos of test/support/synth.ts (`synthesized()`, `synthesizedTuned()`) share an app only within
 * a file: as seven test files they synthesized the same default app seven times, each in a cold
 * registry (13.3 s of CPU cold, 4.5 s warm). Here each configuration is synthesized once for the
 * whole project; a topic that needs another app (other context, or one it adds functions to)
 * still builds its own.
 *
 * Every `*.infra.ts` of this folder is loaded, each under a describe named by its file:
 * `npm run test:infra -- -t cdk-nag` runs one topic. Every function's bundle is checked by
 * test/infra/bundles.test.ts (one esbuild build); CDK's own bundled synth is
 * test/deep/bundled-synth.test.ts (`npm run test:deep`).
 */
import * as fs from 'node:fs';
import { synthesized, synthesizedTuned } from '../support/synth';

// Both shared apps first, at collection: their synths are outside any one test's timeout.
synthesized();
synthesizedTuned();

// Every topic file of this folder, so a new one runs without being listed anywhere.
const topics = fs
  .readdirSync(__dirname)
  .filter((file) => file.endsWith('.infra.ts'))
  .sort();
if (topics.length === 0) throw new Error(`no *.infra.ts topic files in ${__dirname}`);
for (const file of topics)
  describe(file, () => {
    require(`./${file}`);
  });
