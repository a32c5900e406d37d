/**
 * `npm run bench`: every benchmark in turn, each printing a markdown table. Benchmarks print
 * figures; they never fail the build (a budget that is not met says OVER / NOT MET).
 * BENCH_ONLY=bundles|send|suppression|webhooks|broadcast runs one of them.
 */
import { cpus } from 'node:os';
import { benchBroadcastFanOut, formatBroadcastFanOut } from './broadcast-fanout';
import { benchBundles, formatBundles } from './bundles';
import { benchSendPipeline, formatSendPipeline } from './send-pipeline';
import { benchSuppressionWriter, formatSuppressionWriter } from './suppression-writer';
import { benchWebhooks, formatWebhooks } from './webhooks';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  console.log(`# Benchmarks\n\nNode ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, ${new Date().toISOString()}\n`);
  if (!only || only === 'bundles') {
    console.log(`## Bundle size and module initialisation per function (median of ${process.env.BENCH_RUNS ?? 7} fresh processes)\n`);
    console.log(formatBundles(await benchBundles()), '\n');
  }
  if (!only || only === 'send') {
    console.log('## Send pipeline: 2,000 emails at a configured 50/s (counted where SES receives them)\n');
    console.log(formatSendPipeline(await benchSendPipeline()), '\n');
  }
  if (!only || only === 'suppression') {
    console.log('## Suppression writer: 10,000 bounce notifications beside the raw DynamoDB Local write rate\n');
    console.log(formatSuppressionWriter(await benchSuppressionWriter()), '\n');
  }
  if (!only || only === 'broadcast') {
    console.log('## Broadcast fan-out: 100,000 contacts beside the raw DynamoDB Local write rate\n');
    console.log(formatBroadcastFanOut(await benchBroadcastFanOut()), '\n');
  }
  if (!only || only === 'webhooks') {
    console.log('## Webhook delivery: 5,000 events, then 500 at 25/s, to a local receiver (stream, fan-out, queue, dispatcher)\n');
    console.log(formatWebhooks(await benchWebhooks()), '\n');
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
