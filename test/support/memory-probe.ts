/**
 * An invocation that holds 120 MB in a function deployed with 128 MB, in a process of its own
 * (test/unit/memory-watch.test.ts runs it): in a jest worker, what earlier suites left running in
 * the same process moves its memory under the watch. Prints the watch's log lines as JSON.
 */
import { invoke } from '../../lib/local/lambda/invocation';
import { setMemoryLog } from '../../lib/local/memory-watch';

const MB = 2 ** 20;
const lines: string[] = [];
setMemoryLog((line) => lines.push(line));
const tick = () => new Promise((resolve) => setTimeout(resolve, 50));

void (async () => {
  const held = await invoke(
    { name: 'MemoryProbe', needs: {}, timeoutMs: 30_000, memoryMb: 128 },
    async () => {
      const buffers = Array.from({ length: 6 }, () => Buffer.alloc(20 * MB, 1));
      await tick();
      await tick();
      return buffers;
    },
    { Records: [{}, {}, {}] },
  );
  process.stdout.write(JSON.stringify({ held: (held as Buffer[]).length, lines }));
})();
