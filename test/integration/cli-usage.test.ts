/**
 * The command-line tools as a user meets them, spawned as npm runs them: `--help` and `-h` print the
 * usage and exit 0; a wrong argument is one line on stderr, exit 2, no stack trace; `api-key create`
 * without --project adds a key to the running runtime's default project (the shared runtime's).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { api } from '../support/http';

const run = promisify(execFile);
const root = join(__dirname, '..', '..');

/** Every tool a user runs: the package's scripts that start a bin/*.ts, `npm start` (bin/local.ts) among them. */
const scripts = Object.entries(
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts as Record<string, string>,
)
  .map(([script, command]) => ({ script, file: /\bbin\/([\w-]+\.ts)\b/.exec(command)?.[1] }))
  .filter((entry): entry is { script: string; file: string } => entry.file !== undefined)
  .filter(({ script }) => script !== 'deploy'); // preflight, then cdk deploy: preflight is its own script
/** preflight takes cdk deploy's arguments too (npm run deploy passes it the same): it refuses none. */
const strict = scripts.filter(({ file }) => file !== 'preflight.ts');

async function tool(file: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', join(root, 'bin', file), ...args], {
      cwd: root,
      env: { ...process.env, DATA_DIR: process.env.TEST_DATA_DIR, TABLE_NAME: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

it('finds the tools', () => {
  expect(scripts.map((s) => s.file).sort()).toEqual([
    'api-key.ts',
    'local.ts',
    'preflight.ts',
    'project.ts',
    'redrive.ts',
    'ses-reconcile.ts',
    'stack-trace.ts',
  ]);
});

describe.each(scripts)('npm run $script ($file)', ({ file }) => {
  it.each(['--help', '-h'])(
    'prints its usage for %s and exits 0',
    async (flag) => {
      const { code, stdout, stderr } = await tool(file, flag);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(/^usage: /);
    },
    30_000,
  );
});

describe.each(strict)('npm run $script ($file)', ({ file }) => {
  it('answers an unknown option with one line on stderr and exit 2', async () => {
    const { code, stdout, stderr } = await tool(file, '--bogus');
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/unknown option '--bogus' \(npm (run [\w-]+|start) -- --help for usage\)$/),
    ]);
  }, 30_000);
});

describe('npm run api-key', () => {
  it("creates a key of the running runtime's default project without --project", async () => {
    const { code, stdout } = await tool('api-key.ts', 'create', '--name', 'recovered');
    expect(code).toBe(0);
    const key = /API key (es_live_\w{32})/.exec(stdout)![1];
    const runtimeFile = JSON.parse(readFileSync(join(process.env.TEST_DATA_DIR!, 'runtime.json'), 'utf8'));
    expect(stdout).toContain(`project ${runtimeFile.projectId} (the local runtime's default project)`);
    expect((await api.get('/project', { key })).body.id).toBe(runtimeFile.projectId);
    // the runtime's own key sees the new one among its project's keys
    expect((await api.get('/api-keys')).body.data.map((k: { name: string }) => k.name)).toContain('recovered');
  }, 60_000);

  it('answers a value it does not take with one line and exit 2', async () => {
    const { code, stderr } = await tool('api-key.ts', 'create', '--mode', 'staging');
    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toEqual([
      'npm run api-key: --mode must be live or test (npm run api-key -- --help for usage)',
    ]);
  }, 30_000);
});
