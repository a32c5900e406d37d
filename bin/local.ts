/**
 * `npm start`: the whole service on this machine (see lib/local/runtime.ts for what stands in
 * for what). SIGINT, SIGTERM or SIGHUP, to this process or to npm, or the end of the process
 * that started it, stops every child, DynamoDB Local's JVM included, and frees DATA_DIR
 * (lib/local/process-tree.ts has the whole tree and how each part ends).
 */
import { DataDirInUseError } from '../lib/local/data-dir-lock';
import { JavaMissingError } from '../lib/local/aws/dynamodb';
import { followParent } from '../lib/local/process-tree';
import { startLocalRuntime, type LocalRuntime } from '../lib/local/runtime';
import { readSettings } from '../lib/local/settings';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** A stop that takes longer than this exits anyway; the JVM's watchdog still stops it (< 10 s in all). */
const STOP_DEADLINE_MS = 7000;

let runtime: LocalRuntime | undefined;
let stopping: string | undefined;

/**
 * The first signal stops the runtime (one during the start waits for it) and exits 0. Later ones
 * change nothing: Ctrl-C sends SIGINT to npm, which forwards it, and to this process directly.
 */
function shutdown(reason: string): void {
  if (stopping) return;
  stopping = reason;
  console.log(`${reason}: stopping`);
  setTimeout(() => {
    console.error(`the local runtime did not stop within ${STOP_DEADLINE_MS / 1000} s; exiting`);
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  if (runtime)
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
}

// Before anything starts, so that no signal finds the default action (exit without cleanup).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
followParent(() => shutdown('parent process ended'));

async function main(): Promise<void> {
  const settings = readSettings();
  runtime = await startLocalRuntime(settings);
  if (stopping) {
    await runtime.stop();
    process.exit(0);
  }

  console.log(`Project ${runtime.projectId}`);
  if (runtime.apiKey) console.log(`API key ${runtime.apiKey}${settings.localApiKey ? ' (LOCAL_API_KEY)' : '  <- shown once; only its hash is stored'}`);
  else console.log('API key: the one printed on the first start (or `npm run api-key -- create --local`)');
  console.log(`Mail viewer ${runtime.mailViewerUrl}`);
  console.log(`DynamoDB Local ${runtime.dynamoDbEndpoint} (table ${runtime.tableName}, data ${settings.inMemory ? 'in memory' : settings.dataDir})`);
  console.log(`Inbound SMTP 127.0.0.1:${runtime.smtpPort} (mail to receiving-enabled domains)`);
  console.log(`API ${runtime.apiUrl}`);
  console.log(`Dashboard ${runtime.apiUrl}/dashboard/`);
}

main().catch((error) => {
  if (error instanceof JavaMissingError || error instanceof DataDirInUseError) console.error(error.message);
  else console.error('The local runtime failed to start:', error);
  process.exit(1);
});
