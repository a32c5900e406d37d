/**
 * `npm run api-key -- <command>`: API keys straight in the table, for the first key of a project
 * (after `cdk deploy` nobody has a key yet to call POST /api-keys with).
 *
 *   create [--project ID | --new-project] [--name NAME] [--mode live|test] [--permission full_access|sending_access]
 *          prints the key once. Without --project: the running `npm start`'s default project (the one
 *          its first start made, DATA_DIR/runtime.json names it), so a lost first key is replaced by
 *          this command alone; on a deployed table (which has no default project) a new project, as
 *          with --new-project (named by --name)
 *          --mode test: a test-mode key (es_test_) of the project: it works in the project's
 *          sandbox (shared/project/test-mode.ts), never sees live data and never reaches SES
 *   list   [--project ID] [--mode live|test]   (the keys of that mode; default live)
 *   revoke [--project ID] --key KEY_ID [--mode live|test]
 *          list and revoke without --project: the running `npm start`'s default project too
 *
 * Where: `--local` (default when DATA_DIR/runtime.json exists, i.e. `npm start` is running) uses
 * the local runtime's DynamoDB Local; `--table NAME` (or TABLE_NAME) uses a deployed table with
 * the AWS credentials and region of the environment (the stack's TableName output).
 */
import { commandOf, failed, parseCli, usageError } from './cli';
import { TARGET_OPTIONS, useTargetTable } from './table-target';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const cli = {
  name: 'npm run api-key',
  usage: `usage: npm run api-key -- create [--project ID | --new-project] [--name NAME] [--mode live|test] [--permission full_access|sending_access]
       npm run api-key -- list [--project ID] [--mode live|test]
       npm run api-key -- revoke [--project ID] --key KEY_ID [--mode live|test]
without --project: the running \`npm start\`'s default project; on a deployed table create makes a new project (as --new-project)
where: --local (the running \`npm start\` of DATA_DIR, default .data; the default when DATA_DIR/runtime.json exists)
       --table NAME (a deployed table, the stack's TableName output; AWS credentials and region from the environment)`,
};
function fail(message: string): never {
  return usageError(cli, message);
}

async function main(): Promise<void> {
  const { values, positionals } = parseCli(cli, {
    project: { type: 'string' },
    'new-project': { type: 'boolean' },
    name: { type: 'string' },
    mode: { type: 'string' },
    permission: { type: 'string' },
    key: { type: 'string' },
    ...TARGET_OPTIONS,
  });
  const command = commandOf(cli, positionals, ['create', 'list', 'revoke']);
  if (values.project && values['new-project']) fail('--project and --new-project exclude each other');
  if (values['new-project'] && command !== 'create') fail(`${command} takes no --new-project`);
  const target = useTargetTable(values);
  if (typeof target === 'string') fail(target);
  // Loaded after the target is set: the DynamoDB client reads its endpoint from the environment.
  const { createApiKey, listApiKeys, revokeApiKey } = await import('../shared/access/api-keys');
  const { createProject, getProject } = await import('../shared/project/projects');

  const mode = (values.mode ?? 'live') as 'live' | 'test';
  if (!['live', 'test'].includes(mode)) fail('--mode must be live or test');
  const permission = (values.permission ?? 'full_access') as 'full_access' | 'sending_access';
  if (!['full_access', 'sending_access'].includes(permission))
    fail('--permission must be full_access or sending_access');

  // without --project: the local runtime's default project (a deployed table has none: create makes a new project, as before)
  let projectId = values.project ?? (values['new-project'] ? undefined : target.defaultProjectId);
  if (command !== 'create' && !projectId) fail(`${command} needs --project (a deployed table has no default project)`);
  if (projectId && !(await getProject(projectId))) fail(`no project ${projectId} in table ${process.env.TABLE_NAME}`);
  const { modeProjectId } = await import('../shared/project/test-mode');
  // --mode test: the project's test-mode sandbox, where its test keys live (shared/project/test-mode.ts)
  const caller = (id: string) => ({
    projectId: modeProjectId(id, mode === 'live'),
    livemode: mode === 'live',
    permission: 'full_access' as const,
  });

  if (command === 'create') {
    let whose = '';
    if (!projectId) {
      projectId = (await createProject(values.name ?? 'default')).id;
      whose = ' (new)';
    } else if (!values.project) whose = " (the local runtime's default project)";
    const { token, record } = await createApiKey(caller(projectId), { name: values.name ?? 'cli', mode, permission });
    console.log(`key id  ${record.id}`);
    console.log(`project ${projectId}${whose}`);
    console.log(`API key ${token}   <- shown once; only its SHA-256 is stored`);
  } else if (command === 'list') {
    const { records } = await listApiKeys(caller(projectId!), { limit: 100 });
    for (const r of records) console.log(`${r.id}  ${r.mode}  ${r.permission}  ${r.created_at}  ${r.name}`);
    if (records.length === 0) console.log('(no keys)');
  } else {
    if (!values.key) fail('revoke needs --key KEY_ID');
    const record = await revokeApiKey(caller(projectId!), values.key);
    console.log(`revoked ${record.id} (${record.name})`);
  }
}

main().catch(failed(cli));
