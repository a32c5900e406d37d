/**
 * `npm start`: the whole service on this machine (see local/runtime.ts for what stands in
 * for what). SIGINT, SIGTERM or SIGHUP, to this process or to npm, or the end of the process
 * that started it, stops every child, DynamoDB Local's JVM included, and frees DATA_DIR
 * (local/process-tree.ts has the whole tree and how each part ends).
 *
 * Its settings are environment variables (local/settings.ts); its only argument is --help.
 * What it prints and where its JSON log goes: local/terminal-log.ts. The key made on the first
 * start is printed once and kept in DATA_DIR/first-key.txt (0600), the one place it can be read
 * again: only its hash is in the table.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DataDirInUseError } from '../local/data-dir-lock';
import { JavaMissingError } from '../local/aws/dynamodb';
import { followParent } from '../local/process-tree';
import { startLocalRuntime, type LocalRuntime } from '../local/runtime';
import { readSettings, SettingsError, type LocalSettings } from '../local/settings';
import { startTerminalLog, type TerminalLog } from '../local/terminal-log';
import { parseCli } from './cli';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const cli = {
  name: 'npm start',
  usage: `usage: npm start
the whole service on this machine: the API, the console (/dashboard/), the mail viewer, inbound SMTP
settings are environment variables, e.g. DATA_DIR (default .data), PORT (3000), LOCAL_API_KEY,
API_RATE_LIMIT_PER_SECOND (1000 here), LOCAL_TERMINAL_LOG (human|json), LOG_LEVEL; docs/local-runtime.md lists them all
the terminal shows one line per request; the JSON log is in DATA_DIR/logs/runtime.log; Ctrl-C stops everything`,
};
const { positionals } = parseCli(cli, {});
if (positionals.length > 0) {
  console.error(`npm start: unexpected argument "${positionals[0]}" (npm start -- --help for usage)`);
  process.exit(2);
}

/** Where the first start's key is kept for the user who missed it (mode 0600: it is a live key). */
const FIRST_KEY_FILE = 'first-key.txt';

/** A stop that takes longer than this exits anyway; the JVM's watchdog still stops it (< 10 s in all). */
const STOP_DEADLINE_MS = 7000;

let runtime: LocalRuntime | undefined;
let stopping: string | undefined;
let terminal: TerminalLog | undefined;

/**
 * The first signal stops the runtime (one during the start waits for it) and exits 0. Later ones
 * change nothing: Ctrl-C sends SIGINT to npm, which forwards it, and to this process directly.
 */
function shutdown(reason: string): void {
  if (stopping) return;
  stopping = reason;
  console.log(`${reason}: stopping`);
  setTimeout(() => {
    console.error(`the local runtime did not stop within ${STOP_DEADLINE_MS / 1000} s; exiting`);
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  if (runtime)
    runtime.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
}

// Before anything starts, so that no signal finds the default action (exit without cleanup).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => shutdown(signal));
followParent(() => shutdown('parent process ended'));

/** The command that makes another key of the default project, as the user can paste it: DATA_DIR named unless it is the default. */
function createKeyCommand(dataDir: string): string {
  if (dataDir === resolve('.data')) return 'npm run api-key -- create';
  const quoted = /^[\w@%+=:,./-]+$/.test(dataDir) ? dataDir : `'${dataDir.replaceAll("'", `'\\''`)}'`;
  return `DATA_DIR=${quoted} npm run api-key -- create`;
}

/** The banner's key lines: the new key (and where it is kept), LOCAL_API_KEY's, or how to get one. */
function printKey(settings: LocalSettings, apiKey: string | undefined): void {
  const keyFile = join(settings.dataDir, FIRST_KEY_FILE);
  if (apiKey && settings.localApiKey) console.log(`API key ${apiKey} (LOCAL_API_KEY)`);
  else if (apiKey) {
    writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600); // a file left by an earlier start keeps its mode otherwise
    console.log(`API key ${apiKey}  <- shown once here; also in ${keyFile}`);
  } else {
    const kept = existsSync(keyFile) ? `, also in ${keyFile}` : '';
    console.log(`API key: the one printed on the first start${kept}; another: ${createKeyCommand(settings.dataDir)}`);
  }
}

async function main(): Promise<void> {
  const settings = readSettings();
  terminal = startTerminalLog(settings.dataDir, settings.terminalLog);
  runtime = await startLocalRuntime(settings, console.log, { onRequest: terminal.request });
  if (stopping) {
    await runtime.stop();
    process.exit(0);
  }

  console.log(`Project ${runtime.projectId}`);
  printKey(settings, runtime.apiKey);
  console.log(
    `Log ${terminal.file} (JSON; the terminal shows ${settings.terminalLog === 'human' ? 'one line per request' : 'every line'})`,
  );
  console.log(`Mail viewer ${runtime.mailViewerUrl}`);
  console.log(
    `DynamoDB Local ${runtime.dynamoDbEndpoint} (table ${runtime.tableName}, data ${settings.inMemory ? 'in memory' : settings.dataDir})`,
  );
  console.log(`Inbound SMTP 127.0.0.1:${runtime.smtpPort} (mail to receiving-enabled domains)`);
  console.log(`API ${runtime.apiUrl}`);
  console.log(`Dashboard ${runtime.apiUrl}/dashboard/`);
}

main().catch((error) => {
  terminal?.close(); // the failure on the terminal, whatever the format
  if (error instanceof JavaMissingError || error instanceof DataDirInUseError || error instanceof SettingsError)
    console.error(error.message);
  else console.error('The local runtime failed to start:', error);
  process.exit(1);
});
