/**
 * `npm run api-key -- <command>`: API keys straight in the table, for the first key of a project
 * (after `cdk deploy` nobody has a key yet to call POST /api-keys with).
 *
 *   create [--project ID] [--name NAME] [--mode live|test] [--permission full_access|sending_access]
 *          without --project a new project is created; prints the key once
 *          --mode test: a test-mode key (es_test_) of the project: it works in the project's
 *          sandbox (shared/access/test-mode.ts), never sees live data and never reaches SES
 *   list   --project ID [--mode live|test]   (the keys of that mode; default live)
 *   revoke --project ID --key KEY_ID [--mode live|test]
 *
 * Where: `--local` (default when DATA_DIR/runtime.json exists, i.e. `npm start` is running) uses
 * the local runtime's DynamoDB Local; `--table NAME` (or TABLE_NAME) uses a deployed table with
 * the AWS credentials and region of the environment (the stack's TableName output).
 */
import { parseArgs } from 'node:util';
import { useTargetTable } from './table-target';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const USAGE = `usage: npm run api-key -- create [--project ID] [--name NAME] [--mode live|test] [--permission full_access|sending_access]
       npm run api-key -- list --project ID [--mode live|test]
       npm run api-key -- revoke --project ID --key KEY_ID [--mode live|test]
options: --local (the running \`npm start\`, the default when DATA_DIR/runtime.json exists) | --table NAME (a deployed table; AWS credentials from the environment)`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      project: { type: 'string' },
      name: { type: 'string' },
      mode: { type: 'string' },
      permission: { type: 'string' },
      key: { type: 'string' },
      table: { type: 'string' },
      local: { type: 'boolean' },
    },
  });
  const command = positionals[0];
  if (!command || !['create', 'list', 'revoke'].includes(command)) fail(`unknown command "${command ?? ''}"`);
  const noTable = useTargetTable(values);
  if (noTable) fail(noTable);
  // Loaded after the target is set: the DynamoDB client reads its endpoint from the environment.
  const { createApiKey, listApiKeys, revokeApiKey } = await import('../shared/access/api-keys');
  const { createProject, getProject } = await import('../shared/access/projects');

  const mode = (values.mode ?? 'live') as 'live' | 'test';
  if (!['live', 'test'].includes(mode)) fail('--mode must be live or test');
  const permission = (values.permission ?? 'full_access') as 'full_access' | 'sending_access';
  if (!['full_access', 'sending_access'].includes(permission)) fail('--permission must be full_access or sending_access');

  let projectId = values.project;
  if (command !== 'create' && !projectId) fail(`${command} needs --project`);
  if (projectId && !(await getProject(projectId))) fail(`no project ${projectId} in table ${process.env.TABLE_NAME}`);
  const { modeProjectId } = await import('../shared/access/test-mode');
  // --mode test: the project's test-mode sandbox, where its test keys live (shared/access/test-mode.ts)
  const caller = (id: string) => ({ projectId: modeProjectId(id, mode === 'live'), livemode: mode === 'live', permission: 'full_access' as const });

  if (command === 'create') {
    if (!projectId) {
      const project = await createProject(values.name ?? 'default');
      projectId = project.id;
      console.log(`project ${projectId} (new)`);
    }
    const { token, record } = await createApiKey(caller(projectId), { name: values.name ?? 'cli', mode, permission });
    console.log(`key id  ${record.id}`);
    console.log(`project ${projectId}`);
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

main().catch((error) => {
  console.error(error instanceof Error && 'toBody' in error ? (error as Error).message : error);
  process.exit(1);
});
