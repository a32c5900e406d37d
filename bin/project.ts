/**
 * `npm run project -- <command>`: a project's limits, straight in the table (an operator's tool:
 * no API key may change its own project's limits).
 *
 *   show   --project ID
 *          the limits as stored and this UTC day's and month's usage
 *   limits --project ID [--rate N|default] [--daily N|none] [--monthly N|none] [--contacts N|default]
 *          API requests a second (default: API_RATE_LIMIT_PER_SECOND: the stack parameter's, 10 unless given;
 *          1,000 under `npm start` unless given), emails a UTC day
 *          and a UTC month (none: unlimited), contacts the project may hold (default:
 *          CONTACT_LIMIT_PER_PROJECT, else 1,000,000). Running functions apply a change within a minute.
 *   resume --project ID
 *          lifts the reputation guard's pause (shared/emails/reputation.ts) once its cause is fixed;
 *          the project's held mail goes at its next turn
 *   recount --project ID
 *          sets the project's contact counters (GET /usage) from a COUNT of its contacts: once after
 *          upgrading a table whose contacts were made before the counters existed
 *   wipe-test-data --project ID
 *          deletes everything the project's test keys made (its test-mode sandbox), keeping the test
 *          keys and OAuth clients and grants; live data is never touched (shared/project/test-data.ts)
 *
 * Where: as `npm run api-key` (bin/table-target.ts): `--table NAME` (or TABLE_NAME) for a deployed
 * table, else the running `npm start`.
 */
import { commandOf, failed, parseCli, usageError } from './cli';
import { TARGET_OPTIONS, useTargetTable } from './table-target';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const cli = {
  name: 'npm run project',
  usage: `usage: npm run project -- show [--project ID]
       npm run project -- limits [--project ID] [--rate N|default] [--daily N|none] [--monthly N|none] [--contacts N|default]
       npm run project -- resume [--project ID]
       npm run project -- recount [--project ID]
       npm run project -- wipe-test-data [--project ID]
--project: without it, the running \`npm start\`'s default project (a deployed table has none)
where: --local (the running \`npm start\` of DATA_DIR, default .data; the default when DATA_DIR/runtime.json exists)
       --table NAME (a deployed table, the stack's TableName output; AWS credentials and region from the environment)`,
};
function fail(message: string): never {
  return usageError(cli, message);
}

/** A whole number from 1, or null for the word that means "back to the default". */
function limitValue(name: string, value: string | undefined, reset: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === reset) return null;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) fail(`--${name} must be a whole number from 1, or ${reset}`);
  return n;
}

async function main(): Promise<void> {
  const { values, positionals } = parseCli(cli, {
    project: { type: 'string' },
    rate: { type: 'string' },
    daily: { type: 'string' },
    monthly: { type: 'string' },
    contacts: { type: 'string' },
    ...TARGET_OPTIONS,
  });
  const command = commandOf(cli, positionals, ['show', 'limits', 'resume', 'recount', 'wipe-test-data']);
  const change = {
    rate_limit: limitValue('rate', values.rate, 'default'),
    daily_quota: limitValue('daily', values.daily, 'none'),
    monthly_quota: limitValue('monthly', values.monthly, 'none'),
    contact_limit: limitValue('contacts', values.contacts, 'default'),
  };
  const target = useTargetTable(values);
  if (typeof target === 'string') fail(target);
  const projectId =
    values.project ??
    target.defaultProjectId ??
    fail(`${command} needs --project (a deployed table has no default project)`);
  // Loaded after the target is set: the DynamoDB client reads its endpoint from the environment.
  const { changeProjectSettings } = await import('../shared/project/settings-change');
  const { describeProject } = await import('../shared/emails/project-view');
  if (command === 'limits') await changeProjectSettings(projectId, change);
  if (command === 'resume') {
    const { resumeSending } = await import('../shared/emails/reputation');
    await resumeSending(projectId);
  }
  if (command === 'wipe-test-data') {
    const { wipeTestData } = await import('../shared/project/test-data');
    const wiped = await wipeTestData(projectId);
    console.log(`test data of ${projectId}: ${wiped.deleted} items deleted (${wiped.project_id}); test keys kept`);
    return;
  }
  if (command === 'recount') {
    const { recountContacts } = await import('../shared/project/contact-count');
    console.log(`contacts ${await recountContacts(projectId)} (counted)`);
  }
  const project = await describeProject({ projectId, livemode: true, permission: 'full_access' });
  console.log(`project  ${project.id} (${project.name})`);
  console.log(`rate     ${project.rate_limit.requests_per_second} requests a second`);
  console.log(
    `daily    ${project.usage.daily} of ${project.quotas.daily ?? 'unlimited'} emails (${project.usage.day}, UTC)`,
  );
  console.log(
    `monthly  ${project.usage.monthly} of ${project.quotas.monthly ?? 'unlimited'} emails (${project.usage.month}, UTC)`,
  );
  const { readProjectSettings } = await import('../shared/project/settings');
  const { contactCount } = await import('../shared/project/contact-count');
  console.log(`contacts ${await contactCount(projectId)} of ${(await readProjectSettings(projectId))?.contact_limit}`);
  const { reputation: r, sending } = project;
  console.log(
    `sending  ${sending.status}${sending.status === 'paused' ? ` since ${sending.since}: ${sending.reason}` : ''}`,
  );
  console.log(
    `last 24h ${r.sent} sent, ${r.bounced} bounced (${(r.bounce_rate * 100).toFixed(2)}%), ${r.complained} complained (${(r.complaint_rate * 100).toFixed(2)}%)`,
  );
}

main().catch(failed(cli));
