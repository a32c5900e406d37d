/**
 * `npm run preflight`: before the first `cdk deploy`, what the account lacks (lib/preflight.ts),
 * with the operator's AWS credentials (the SDK's default chain: environment, profile, SSO) and
 * read-only calls. Exits 1 when a check failed.
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { STACK_NAME } from '../lib/email-service-stack';
import { formatPreflight, preflight } from '../lib/preflight';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

// the SDK's default credential chain, as any client of it resolves it
const credentials = new SESv2Client({ region: 'ap-southeast-2' }).config.credentials;

preflight({ region: process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION, credentials, stackName: STACK_NAME }).then(
  (checks) => {
    console.log(formatPreflight(checks));
    process.exit(checks.some((c) => c.status === 'fail') ? 1 : 0);
  },
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
