/**
 * The local SQS in a process of its own, for the worker benchmarks (bench/worker-backends.ts):
 * in the benchmark's process its queues' messages (100,000 of a broadcast's emails, never
 * consumed there) would count in the memory the benchmark reports for the function it measures.
 * Run as a script it starts the stand-in and prints its endpoint on one line; it stops when its
 * parent closes its stdin.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startLocalSqs } from '../local/aws/sqs';

const READY = 'LOCAL_SQS ';

export async function startLocalSqsProcess(options: {
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
}): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [join(__dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs'), __filename, JSON.stringify(options)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the local SQS process ended (${code}) before it was ready`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith(READY)) resolve(line.slice(READY.length));
    });
  });
  return {
    endpoint,
    close: async () => {
      child.stdin?.end();
      await exited;
    },
  };
}

if (require.main === module) {
  const options = JSON.parse(process.argv[2]);
  startLocalSqs(options).then(
    (sqs) => {
      process.stdout.write(`${READY}${sqs.endpoint}\n`);
      process.stdin.resume();
      process.stdin.on('end', () => sqs.close().then(() => process.exit(0)));
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
