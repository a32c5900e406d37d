/**
 * The local runtime's AWS credentials: the one access key every stand-in (s3.ts, kms.ts, sqs.ts,
 * ses-front.ts) checks each request's SigV4 signature against (./sigv4.ts), and that the functions
 * sign with, handed to them as Lambda hands a function its role's credentials (AWS_ACCESS_KEY_ID
 * and AWS_SECRET_ACCESS_KEY in their environment).
 *
 * Made on a DATA_DIR's first start (a random 20-character key id starting `LKIA` and a random
 * 40-character secret), kept in `DATA_DIR/credentials.json` with mode 0600 and reused on every later
 * start, so presigned URLs handed out before a restart still work until they expire. Scripts and
 * test suites that call a stand-in themselves read them from that file (`readStandInCredentials`).
 * Delete the file to rotate them (the next start makes new ones; URLs signed before stop working).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StandInCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export const CREDENTIALS_FILE = 'credentials.json';

const KEY_ID = /^LKIA[A-Z2-7]{16}$/;
const SECRET = /^[A-Za-z0-9+/]{40}$/;
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function generate(): StandInCredentials {
  const id = [...randomBytes(16)].map((byte) => BASE32[byte % 32]).join('');
  return { accessKeyId: `LKIA${id}`, secretAccessKey: randomBytes(30).toString('base64') };
}

/** The credentials a runtime on `dataDir` uses; throws when there are none (no runtime ever started there). */
export function readStandInCredentials(dataDir: string): StandInCredentials {
  const stored = JSON.parse(readFileSync(join(dataDir, CREDENTIALS_FILE), 'utf8')) as Partial<StandInCredentials>;
  if (!KEY_ID.test(stored.accessKeyId ?? '') || !SECRET.test(stored.secretAccessKey ?? ''))
    throw new Error(`${join(dataDir, CREDENTIALS_FILE)} does not hold this runtime's credentials`);
  return { accessKeyId: stored.accessKeyId!, secretAccessKey: stored.secretAccessKey! };
}

/** The credentials kept under `dataDir`, made (mode 0600) when there are none yet or the file is not one of ours. */
export function standInCredentials(dataDir: string): StandInCredentials {
  const file = join(dataDir, CREDENTIALS_FILE);
  if (existsSync(file)) {
    try {
      const kept = readStandInCredentials(dataDir);
      chmodSync(file, 0o600);
      return kept;
    } catch {
      // unreadable or not ours: made again below
    }
  }
  const made = generate();
  rmSync(file, { force: true }); // a link or a file of another mode is not written through
  writeFileSync(file, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return made;
}
