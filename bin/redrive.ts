/**
 * `npm run redrive -- <queue> [--stack EmailService]`: every message of the queue's DLQ back to the
 * queue (lib/redrive.ts), after its cause is fixed (README "Operating"). Without --stack: the running
 * `npm start` (DATA_DIR/runtime.json); with it: the deployed stack, with the AWS credentials and
 * region of the environment.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterQueueUrl, redrive } from '../lib/redrive';
import { readStandInCredentials } from '../lib/local/aws/credentials';
import { cliRegion } from '../lib/region';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { stack: { type: 'string' } } });
  const queue = positionals[0];
  if (!queue) {
    console.error('usage: npm run redrive -- <queue, e.g. ses-suppression> [--stack EmailService]');
    return 2;
  }
  let sqs: SQSClient;
  if (values.stack) {
    sqs = new SQSClient({ region: cliRegion() }); // the stack's region: AWS_REGION, else the saved context (lib/region.ts)
  } else {
    const runtimeFile = join(resolve(process.env.DATA_DIR || '.data'), 'runtime.json');
    if (!existsSync(runtimeFile)) {
      console.error(`no local runtime running (${runtimeFile} not found): run npm start, or give --stack for the deployed one`);
      return 2;
    }
    const runtime = JSON.parse(readFileSync(runtimeFile, 'utf8'));
    // signed with the runtime's own credentials, which its SQS checks (lib/local/aws/credentials.ts)
    sqs = new SQSClient({ endpoint: runtime.sqsEndpoint, region: 'ap-southeast-2', credentials: readStandInCredentials(dirname(runtimeFile)) });
  }
  const dlqUrl = await deadLetterQueueUrl(sqs, queue, values.stack ? { stackName: values.stack } : { local: true });
  const result = await redrive(sqs, queue, dlqUrl);
  console.log(JSON.stringify(result, null, 2));
  return result.status === 'COMPLETED' || result.status === 'NOTHING_TO_MOVE' ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(String(error));
    process.exit(1);
  },
);
