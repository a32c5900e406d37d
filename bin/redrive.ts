/**
 * `npm run redrive -- <queue> [--stack EmailService]`: every message of the queue's DLQ back to the
 * queue (lib/redrive.ts), after its cause is fixed (README "Operating"). Without --stack: the running
 * `npm start` (DATA_DIR/runtime.json); with it: the deployed stack, with the AWS credentials and
 * region of the environment.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { deadLetterQueueUrl, redrive } from '../lib/redrive';
import { readStandInCredentials } from '../local/aws/credentials';
import { failed, parseCli, usageError } from './cli';
import { cliRegion } from '../lib/region';
import { LOCAL_REGION } from '../local/settings';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const cli = {
  name: 'npm run redrive',
  usage: `usage: npm run redrive -- <queue, e.g. ses-suppression> [--stack EmailService]
moves every message of the queue's dead-letter queue back to the queue
without --stack: the running \`npm start\` of DATA_DIR (default .data); with it: the deployed stack (AWS credentials and region from the environment)`,
};

async function main(): Promise<number> {
  const { positionals, values } = parseCli(cli, { stack: { type: 'string' } });
  const queue = positionals[0];
  if (!queue) usageError(cli, 'a queue is needed, e.g. ses-suppression');
  if (positionals.length > 1) usageError(cli, `unexpected argument "${positionals[1]}"`);
  let sqs: SQSClient;
  if (values.stack) {
    sqs = new SQSClient({ region: cliRegion() }); // the stack's region: AWS_REGION, else the saved context (lib/region.ts)
  } else {
    const runtimeFile = join(resolve(process.env.DATA_DIR || '.data'), 'runtime.json');
    if (!existsSync(runtimeFile)) {
      console.error(
        `no local runtime running (${runtimeFile} not found): run npm start, or give --stack for the deployed one`,
      );
      return 2;
    }
    const runtime = JSON.parse(readFileSync(runtimeFile, 'utf8'));
    // signed with the runtime's own credentials, which its SQS checks (local/aws/credentials.ts)
    sqs = new SQSClient({
      endpoint: runtime.sqsEndpoint,
      region: LOCAL_REGION,
      credentials: readStandInCredentials(dirname(runtimeFile)),
    });
  }
  const dlqUrl = await deadLetterQueueUrl(sqs, queue, values.stack ? { stackName: values.stack } : { local: true });
  const result = await redrive(sqs, queue, dlqUrl);
  console.log(JSON.stringify(result, null, 2));
  return result.status === 'COMPLETED' || result.status === 'NOTHING_TO_MOVE' ? 0 : 1;
}

main().then((code) => process.exit(code), failed(cli));
