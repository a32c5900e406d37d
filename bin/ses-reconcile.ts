/**
 * `npm run ses-reconcile -- [--topic-arn <arn>]`: every configuration set of the service (`es-*`)
 * publishing its SES events to the stack's topic again (lib/ses-reconcile.ts). With --topic-arn (the
 * stack's `SesEventsTopicArn` output): the deployed service, with the AWS credentials and region of the
 * environment (README "Deploying": run after every deploy that may have replaced the topic; it changes
 * nothing when all is in place). Without it: the running `npm start` (DATA_DIR/runtime.json) and its topic.
 * Prints each set's outcome; exits 0 once every set publishes to the topic.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { readStandInCredentials } from '../local/aws/credentials';
import { LOCAL_SES_EVENTS_TOPIC_ARN } from '../local/aws/ses-events';
import { reconcileSesEventDestinations } from '../lib/ses-reconcile';
import { failed, parseCli, usageError } from './cli';
import { cliRegion } from '../lib/region';
import { LOCAL_REGION } from '../local/settings';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const cli = {
  name: 'npm run ses-reconcile',
  usage: `usage: npm run ses-reconcile -- [--topic-arn ARN]
points every configuration set of the service (es-*) at the SES events topic again
--topic-arn: the deployed stack's SesEventsTopicArn output (AWS credentials and region from the environment);
without it: the running \`npm start\` of DATA_DIR (default .data)`,
};

async function main(): Promise<number> {
  const { values, positionals } = parseCli(cli, { 'topic-arn': { type: 'string' } });
  if (positionals.length > 0) usageError(cli, `unexpected argument "${positionals[0]}"`);
  let ses: SESv2Client;
  let topicArn: string;
  if (values['topic-arn']) {
    topicArn = values['topic-arn'];
    // the topic's own region is the stack's (arn:aws:sns:<region>:...); SES's configuration-set APIs throttle at a few calls a second
    ses = new SESv2Client({ region: topicArn.split(':')[3] || cliRegion(), maxAttempts: 8 });
  } else {
    const runtimeFile = join(resolve(process.env.DATA_DIR || '.data'), 'runtime.json');
    if (!existsSync(runtimeFile)) {
      console.error(
        `no local runtime running (${runtimeFile} not found): run npm start, or give --topic-arn (the stack's SesEventsTopicArn output) for the deployed one`,
      );
      return 2;
    }
    const runtime = JSON.parse(readFileSync(runtimeFile, 'utf8'));
    // signed with the runtime's own credentials, which its SES front checks (local/aws/credentials.ts)
    ses = new SESv2Client({
      endpoint: runtime.sesEndpoint,
      region: LOCAL_REGION,
      credentials: readStandInCredentials(dirname(runtimeFile)),
    });
    topicArn = LOCAL_SES_EVENTS_TOPIC_ARN;
  }
  const results = await reconcileSesEventDestinations(ses, topicArn);
  for (const r of results)
    console.log(
      `${r.outcome.padEnd(9)} ${r.configurationSet}${r.previousTopicArn ? ` (was ${r.previousTopicArn})` : ''}`,
    );
  const changed = results.filter((r) => r.outcome !== 'unchanged').length;
  console.log(`${results.length} configuration set(s), ${changed} changed: all publish to ${topicArn}`);
  return 0;
}

main().then((code) => process.exit(code), failed(cli));
