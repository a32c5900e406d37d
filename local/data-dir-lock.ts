/**
 * One local runtime per DATA_DIR. The lock is DATA_DIR/runtime.lock, a JSON record of who holds
 * it: the runtime's process and, once it runs, its DynamoDB Local JVM, each as pid plus identity
 * (its start time, local/process-tree.ts), so a later start can tell them from an unrelated
 * process that reuses the pid.
 *
 * 1. Acquire: write the record to a temporary file and hard-link it to runtime.lock. The link
 *    fails when the name exists, so the lock appears whole or not at all, and one starter wins.
 * 2. Held by a runtime that still runs (its pid, same identity): refuse, naming pid and DATA_DIR.
 * 3. Held by a runtime that is gone (killed hard, even one still a zombie its parent has not
 *    reaped; or its machine rebooted): its JVM, if it still runs with the recorded identity and
 *    command line, is provably the one that runtime started and holds DATA_DIR's files; stop it
 *    (SIGTERM, SIGKILL after 5 s). Then move the stale lock
 *    aside (rename: of two starters only one gets it; if what it got is no longer the stale
 *    record, it links it back) and go back to 1.
 * 4. Another DynamoDB Local on this DATA_DIR's database that no lock accounts for (one left by a
 *    version without this lock, or started by hand): refuse, naming its pid. It is not provably
 *    ours, so it is not killed.
 * 5. Once the JVM answers, its pid and identity go into the record (written aside, renamed over).
 * 6. Release, after everything else has stopped: remove the lock if it is still this one.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, processesMatching, processIdentity, terminate } from './process-tree';

export const LOCK_FILE = 'runtime.lock';

interface Holder {
  pid: number;
  identity: string;
}
interface LockRecord extends Holder {
  /** this acquisition (one process may take and release the lock more than once) */
  token: string;
  jvm?: Holder & { port: number };
}

export class DataDirInUseError extends Error {}

export interface DataDirLock {
  recordJvm(pid: number, port: number): void;
  release(): void;
}

const sameProcess = (holder: Holder) => processIdentity(holder.pid) === holder.identity;

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parse(text: string): LockRecord | undefined {
  try {
    const record = JSON.parse(text) as LockRecord;
    return typeof record.pid === 'number' ? record : undefined;
  } catch {
    return undefined; // not written by this module: nobody holds it
  }
}

/** Writes `text` beside `file` and hands it over in one step: link (fails if taken) or rename (replaces). */
function writeAtomically(file: string, text: string, how: 'link' | 'rename'): void {
  const temporary = `${file}.${process.pid}.${randomUUID()}`;
  writeFileSync(temporary, text);
  try {
    if (how === 'link') linkSync(temporary, file);
    else renameSync(temporary, file);
  } finally {
    if (how === 'link') unlinkSync(temporary);
  }
}

/**
 * Takes DATA_DIR for this process (see the protocol above). `databaseDir` is where DynamoDB
 * Local keeps its files (undefined when it runs in memory).
 */
export async function lockDataDir(
  dataDir: string,
  databaseDir: string | undefined,
  log: (line: string) => void,
): Promise<DataDirLock> {
  const file = join(dataDir, LOCK_FILE);
  const record: LockRecord = {
    pid: process.pid,
    identity: processIdentity(process.pid) ?? 'unknown',
    token: randomUUID(),
  };

  for (;;) {
    try {
      writeAtomically(file, JSON.stringify(record), 'link'); // 1
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const text = read(file);
    if (text === undefined) continue; // released meanwhile
    const holder = parse(text);
    if (holder && sameProcess(holder)) {
      throw new DataDirInUseError(
        `DATA_DIR ${dataDir} is in use by another local runtime (pid ${holder.pid}); stop it first or choose another DATA_DIR`,
      ); // 2
    }
    const jvm = holder?.jvm;
    if (jvm && sameProcess(jvm) && commandLine(jvm.pid).includes(`-port ${jvm.port}`)) {
      log(
        `DATA_DIR ${dataDir}: stopping DynamoDB Local (pid ${jvm.pid}), left running by a runtime that ended without stopping it (pid ${holder.pid})`,
      ); // 3
      await terminate(jvm.pid);
    }
    const aside = `${file}.stale.${process.pid}`;
    try {
      renameSync(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another starter moved it
      throw error;
    }
    if (read(aside) !== text) {
      try {
        linkSync(aside, file); // a fresh lock, taken since it was read: give it back
      } catch {
        // taken again meanwhile; step 1 sorts it out
      }
    }
    unlinkSync(aside);
  }

  if (databaseDir) {
    const jvmOnDatabase = (args: string) =>
      /^\S*java\s/.test(args) && args.includes('DynamoDBLocal.jar') && `${args} `.includes(` -dbPath ${databaseDir} `);
    const other = processesMatching(jvmOnDatabase)[0]; // 4 (the JVM itself, not the shell of its watchdog)
    if (other) {
      unlinkSync(file);
      throw new DataDirInUseError(
        `DATA_DIR ${dataDir} is in use by a DynamoDB Local this runtime did not start (pid ${other.pid}); stop it (kill ${other.pid}) and start again`,
      );
    }
  }

  const ours = () => parse(read(file) ?? '')?.token === record.token;
  return {
    recordJvm(pid, port) {
      if (!ours()) return;
      record.jvm = { pid, port, identity: processIdentity(pid) ?? 'unknown' }; // 5
      writeAtomically(file, JSON.stringify(record), 'rename');
    },
    release() {
      if (ours()) unlinkSync(file); // 6
    },
  };
}
