/**
 * `npm run stack-trace -- <handler> < trace.txt`: a stack trace of a deployed function (from its
 * CloudWatch log) mapped to our TypeScript (lib/stack-trace.ts). `<handler>` is the function's
 * module under functions/ (`emails/send`, `workers/sender`: the route table's and the workers'
 * `handler`). Run it on the commit that was deployed.
 */
import { readFileSync } from 'node:fs';
import { bundleSourceMap, mapTrace } from '../lib/stack-trace';
import { failed, parseCli, usageError } from './cli';

const cli = {
  name: 'npm run stack-trace',
  usage: `usage: npm run stack-trace -- <handler, e.g. workers/sender> < trace.txt
maps a deployed function's stack trace (from its CloudWatch log, on stdin) to the TypeScript of this checkout
<handler>: the function's module under functions/ (the route table's and the workers' \`handler\`); run it on the commit that was deployed`,
};

const { positionals } = parseCli(cli, {});
const handler = positionals[0];
if (!handler) usageError(cli, 'a handler is needed, e.g. workers/sender');
if (positionals.length > 1) usageError(cli, `unexpected argument "${positionals[1]}"`);
bundleSourceMap(handler).then((map) => process.stdout.write(mapTrace(readFileSync(0, 'utf8'), map)), failed(cli));
