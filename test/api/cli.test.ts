/** The API-key CLI against the running local runtime (it finds it through DATA_DIR/runtime.json). */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api } from '../support/http';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

async function cli(...args: string[]) {
  return run(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'bin', 'api-key.ts'), ...args], {
    env: { ...process.env, DATA_DIR: process.env.TEST_DATA_DIR },
  });
}

it('creates a new project and key that work over HTTP, lists it, and revokes it', async () => {
  const created = await cli('create', '--new-project', '--name', 'from-cli');
  const key = /API key (es_live_\w{32})/.exec(created.stdout)![1];
  const projectId = /project (\S+)/.exec(created.stdout)![1];
  const keyId = /key id\s+(\S+)/.exec(created.stdout)![1];
  expect((await api.get('/segments', { key })).body).toEqual({ object: 'list', data: [], has_more: false });

  const listed = await cli('list', '--project', projectId);
  expect(listed.stdout).toContain(keyId);
  expect(listed.stdout).not.toContain(key);

  await cli('revoke', '--project', projectId, '--key', keyId);
  expect((await api.get('/segments', { key })).status).toBe(401);
}, 60_000);

it('says in one line what is wrong with a wrong command, and where the usage is', async () => {
  await expect(cli('frobnicate')).rejects.toMatchObject({
    code: 2,
    stderr: 'npm run api-key: unknown command "frobnicate" (npm run api-key -- --help for usage)\n',
  });
}, 30_000);
