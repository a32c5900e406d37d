/**
 * `npm start`: the whole service on this machine (see lib/local/runtime.ts for what stands in
 * for what). Ctrl-C or SIGTERM stops every child, DynamoDB Local's JVM included.
 */
import { JavaMissingError } from '../lib/local/dynamodb-local';
import { startLocalRuntime } from '../lib/local/runtime';
import { readSettings } from '../lib/local/settings';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

async function main(): Promise<void> {
  const settings = readSettings();
  const runtime = await startLocalRuntime(settings);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGHUP', () => shutdown('SIGHUP'));

  console.log(`Project ${runtime.projectId}`);
  if (runtime.apiKey) console.log(`API key ${runtime.apiKey}${settings.localApiKey ? ' (LOCAL_API_KEY)' : '  <- shown once; only its hash is stored'}`);
  else console.log('API key: the one printed on the first start (or `npm run api-key -- create --local`)');
  console.log(`Mail viewer ${runtime.mailViewerUrl}`);
  console.log(`DynamoDB Local ${runtime.dynamoDbEndpoint} (table ${runtime.tableName}, data ${settings.inMemory ? 'in memory' : settings.dataDir})`);
  console.log(`Inbound SMTP 127.0.0.1:${runtime.smtpPort} (mail to receiving-enabled domains)`);
  console.log(`API ${runtime.apiUrl}`);
}

main().catch((error) => {
  if (error instanceof JavaMissingError) console.error(error.message);
  else console.error('The local runtime failed to start:', error);
  process.exit(1);
});
