/**
 * Runs one benchmark in a process of its own and prints its result as JSON on the last line
 * (bench/all.ts reads it). Each benchmark starts its own DynamoDB Local or runtime, and the
 * handlers' module-level clients keep the first endpoint they see, so two benchmarks must never
 * share a process.
 */
export const RESULT_MARK = 'BENCH_RESULT ';

const benchmarks: Record<string, () => Promise<unknown>> = {
  bundles: () => import('./bundles').then((m) => m.benchBundles()),
  calls: () => import('./dynamodb-calls').then((m) => m.benchDynamoDbCalls()),
  api: () => import('./api-throughput').then((m) => m.benchApiThroughput()),
  send: () => import('./send-pipeline').then((m) => m.benchSendPipeline()),
  due: () => import('./due-backlog').then((m) => m.benchDueBacklog()),
  sendscale: () => import('./send-path-scale').then((m) => m.benchSendPathScale()),
  suppression: () => import('./suppression-writer').then((m) => m.benchSuppressionWriter()),
  broadcast: () => import('./broadcast-fanout').then((m) => m.benchBroadcastFanOut()),
  webhooks: () => import('./webhooks').then((m) => m.benchWebhooks()),
  automations: () => import('./automations').then((m) => m.benchAutomations()),
  automationcost: () => import('./automation-cost').then((m) => m.benchAutomationCost()),
  inboxes: () => import('./inboxes').then((m) => m.benchInboxes()),
  cost: () => import('./send-path-cost').then((m) => m.benchSendPathCost()),
  cpu: () => import('./cpu-per-request').then((m) => m.benchCpuPerRequest()),
  compliance: () => import('./compliance').then((m) => m.benchCompliance()),
  latency: () => import('./transactional-latency').then((m) => m.benchTransactionalLatency()),
  memory: () => import('./function-memory').then((m) => m.benchFunctionMemory()),
  inbound: () => import('./inbound-memory').then((m) => m.benchInboundMemory()),
  ratelimit: () => import('./rate-limit').then((m) => m.benchRateLimit()),
  requestlog: () => import('./request-log').then((m) => m.benchRequestLog()),
  imports: () => import('./contact-imports').then((m) => m.benchContactImports()),
  sender: () => import('./sender-memory').then((m) => m.benchSenderMemory()),
};
export const BENCHMARK_NAMES = Object.keys(benchmarks);

if (require.main === module) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const run = benchmarks[process.argv[2]];
  if (!run) {
    console.error(`unknown benchmark ${process.argv[2]}; one of ${BENCHMARK_NAMES.join(', ')}`);
    process.exit(2);
  }
  run().then(
    (result) => {
      process.stdout.write(`\n${RESULT_MARK}${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
