/**
 * Invocations measured by the memory watch, each run in a process of its own
 * (test/unit/memory-watch.test.ts runs this file with the scenario's name): in a jest worker, what
 * earlier suites left running in the same process moves its memory under the watch (an in-process
 * check failed now and then beside other suites). Prints what the handler returned and the watch's
 * log lines as JSON.
 * - `over`: holds 120 MB across an await in a function deployed with 128 MB;
 * - `under`: holds 8 MB in the same function;
 * - `undeclared`: holds 200 MB in a function with no declared memory (a test consumer);
 * - `garbage`: rounds of about 50 MB of small objects, each held across an await, then dropped: the
 *   used heap grows past the 64 MB above the baseline as garbage V8 has not collected yet.
 */
import { invoke, type FunctionIdentity } from '../../local/lambda/invocation';
import { setMemoryLog } from '../../local/memory-watch';

const MB = 2 ** 20;
const lines: string[] = [];
setMemoryLog((line) => lines.push(line));
const tick = () => new Promise((resolve) => setTimeout(resolve, 50));
const declared: FunctionIdentity = { name: 'MemoryProbe', needs: {}, timeoutMs: 30_000, memoryMb: 128 };

const scenarios: Record<string, () => Promise<unknown>> = {
  over: () =>
    invoke(
      declared,
      async () => {
        const buffers = Array.from({ length: 6 }, () => Buffer.alloc(20 * MB, 1));
        await tick();
        await tick();
        return buffers.length;
      },
      { Records: [{}, {}, {}] },
    ),
  under: () =>
    invoke(
      declared,
      async () => {
        const held = Buffer.alloc(8 * MB, 1);
        await tick();
        return held.length;
      },
      {},
    ),
  undeclared: () =>
    invoke(
      { name: 'Undeclared', needs: {}, timeoutMs: 30_000 },
      async () => {
        const held = Buffer.alloc(200 * MB, 1);
        await tick();
        return held.length;
      },
      {},
    ),
  garbage: () =>
    invoke(
      declared,
      async () => {
        let total = 0;
        for (let round = 0; round < 8; round++) {
          // held across an await, so V8 keeps them (in its old space), then dropped
          let held: { round: number; i: number; tag: string }[] | undefined = Array.from(
            { length: 600_000 },
            (_, i) => ({ round, i, tag: `r${round}-${i}` }),
          );
          await tick();
          total += held.length;
          held = undefined;
        }
        return total;
      },
      {},
    ),
};

void (async () => {
  const scenario = scenarios[process.argv[2] ?? ''];
  if (!scenario) throw new Error(`memory-probe: a scenario of ${Object.keys(scenarios).join(', ')}`);
  const returned = await scenario();
  process.stdout.write(JSON.stringify({ returned, lines }));
})();
