/**
 * `npm run stack-trace -- <handler> < trace.txt`: a stack trace of a deployed function (from its
 * CloudWatch log) mapped to our TypeScript (lib/stack-trace.ts). `<handler>` is the function's
 * module under functions/ (`emails/send`, `workers/sender`: the route table's and the workers'
 * `handler`). Run it on the commit that was deployed.
 */
import { readFileSync } from 'node:fs';
import { bundleSourceMap, mapTrace } from '../lib/stack-trace';

const handler = process.argv[2];
if (!handler) {
  console.error('usage: npm run stack-trace -- <handler, e.g. workers/sender> < trace.txt');
  process.exit(2);
}
bundleSourceMap(handler).then(
  (map) => process.stdout.write(mapTrace(readFileSync(0, 'utf8'), map)),
  (error) => {
    console.error(String(error));
    process.exit(1);
  },
);
