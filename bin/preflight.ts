/**
 * `npm run preflight`: before the first `cdk deploy`, what the account lacks (lib/preflight.ts),
 * with the operator's AWS credentials (the SDK's default chain: environment, profile, SSO) and
 * read-only calls in the region the stack deploys to (`-c region=`, lib/region.ts). Exits 1 when a
 * check failed. Give it the `-c name=value` values you will deploy with
 * (`npm run preflight -- -c alarmEmail=oncall@example.com`): it checks the context as cdk would
 * read it. `npm run deploy` runs it with the arguments it gives `cdk deploy`.
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { STACK_NAME } from '../lib/email-service-stack';
import { formatPreflight, preflight } from '../lib/preflight';
import { cliRegion, savedContext } from '../lib/region';
import { failed, type Cli } from './cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** The context `cdk deploy` would use: cdk.json's, then cdk.context.json's, then each `-c name=value` (or `--context`) given here. */
function deployContext(args: string[]): Record<string, unknown> {
  const context = savedContext();
  for (let i = 0; i < args.length; i++) {
    if (args[i] !== '-c' && args[i] !== '--context') continue;
    const [name, ...value] = (args[++i] ?? '').split('=');
    if (name) context[name] = value.join('=');
  }
  return context;
}

const cli: Cli = {
  name: 'npm run preflight',
  usage: [
    'usage: npm run preflight -- [-c name=value ...]',
    '',
    "Checks, read-only, what the AWS account lacks before `cdk deploy`, in the stack's region (-c region=, default",
    'ap-southeast-2), with your AWS credentials. Give it the -c values you deploy with. Exit 1 when a check failed.',
    "Other arguments are cdk deploy's (npm run deploy passes the same arguments to both) and are not read here.",
  ].join('\n'),
};
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(cli.usage);
  process.exit(0);
}

// the SDK's default credential chain, as any client of it resolves it (the region plays no part in it)
const credentials = new SESv2Client({ region: cliRegion() }).config.credentials;

preflight({ cliRegion: cliRegion(), credentials, stackName: STACK_NAME, context: deployContext(args) }).then(
  (checks) => {
    console.log(formatPreflight(checks));
    process.exit(checks.some((c) => c.status === 'fail') ? 1 : 0);
  },
  failed(cli),
);
