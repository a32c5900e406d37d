/**
 * `npm run preflight`: before the first `cdk deploy`, what the account lacks (lib/preflight.ts),
 * with the operator's AWS credentials (the SDK's default chain: environment, profile, SSO) and
 * read-only calls. Exits 1 when a check failed. Give it the `-c name=value` values you will deploy
 * with (`npm run preflight -- -c alarmEmail=oncall@example.com`): it checks the context as cdk would read it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { PROJECT_ROOT } from '../lib/api-function';
import { STACK_NAME } from '../lib/email-service-stack';
import { formatPreflight, preflight } from '../lib/preflight';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// the SDK's default credential chain, as any client of it resolves it
const credentials = new SESv2Client({ region: 'ap-southeast-2' }).config.credentials;

/** The context `cdk deploy` would use: cdk.json's, then cdk.context.json's, then each `-c name=value` (or `--context`) given here. */
function deployContext(args: string[]): Record<string, unknown> {
  const read = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {});
  const context: Record<string, unknown> = { ...read(join(PROJECT_ROOT, 'cdk.json')).context, ...read(join(PROJECT_ROOT, 'cdk.context.json')) };
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '-c' && args[i] !== '--context') continue;
    const [name, ...value] = (args[++i] ?? '').split('=');
    if (name) context[name] = value.join('=');
  }
  return context;
}

preflight({ region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION, credentials, stackName: STACK_NAME, context: deployContext(process.argv.slice(2)) }).then(
  (checks) => {
    console.log(formatPreflight(checks));
    process.exit(checks.some((c) => c.status === 'fail') ? 1 : 0);
  },
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
