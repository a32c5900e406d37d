/**
 * What `npm start` prints, and where its JSON log goes. Everything of the runtime runs in one
 * process and logs JSON lines to stdout and stderr (the handlers' logger, shared/platform/log.ts,
 * and the runtime's own entries), so this sits in front of both streams:
 *
 * - every JSON line is appended to DATA_DIR/logs/runtime.log (0600: entries name addresses), across
 *   starts; past LOG_FILE_MAX_BYTES at a start the file becomes runtime.1.log and a new one begins;
 * - `human` (the default when stdout is a terminal): the terminal gets one short line per API
 *   request (time, method, path, status, ms), WARN and worse as one short line each, and every
 *   line that is not JSON (the banner) as it is; the key printed at the first start stays in view;
 * - `json` (the default otherwise, LOCAL_TERMINAL_LOG=json): the streams carry every line as before,
 *   which is what scripts and the test suites read (test/support/runtime-log.ts parses them).
 */
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type TerminalFormat = 'human' | 'json';

/** At a start, a log file larger than this is kept as runtime.1.log (replacing the one before) and a new one begins. */
const LOG_FILE_MAX_BYTES = 20 * 1024 * 1024;
/** A WARN or ERROR line on the terminal is cut here; the file has the whole entry. */
const TERMINAL_LINE_MAX = 240;

export interface TerminalLog {
  /** DATA_DIR/logs/runtime.log */
  file: string;
  /** one finished API request: its line on the terminal (human) */
  request(method: string, path: string, status: number, ms: number): void;
  /** the streams as they were; the file closed */
  close(): void;
}

interface Entry {
  level?: string;
  message?: string;
  function?: string;
  worker?: string;
  error?: unknown;
}

const time = () => new Date().toTimeString().slice(0, 8);

/** A WARN or worse entry as one terminal line; undefined for what only the file keeps. */
function shortLine(line: string): string | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(line) as Entry;
  } catch {
    return undefined;
  }
  if (!['WARN', 'ERROR', 'FATAL'].includes(String(entry.level))) return undefined;
  const where = entry.function ?? entry.worker;
  const error =
    entry.error === undefined
      ? ''
      : `: ${typeof entry.error === 'string' ? entry.error : ((entry.error as { message?: string }).message ?? JSON.stringify(entry.error))}`;
  const text = `${time()} ${entry.level} ${entry.message ?? ''}${where ? ` [${where}]` : ''}${error}`.replace(
    /\s+/g,
    ' ',
  );
  return text.length > TERMINAL_LINE_MAX ? `${text.slice(0, TERMINAL_LINE_MAX - 1)}…` : text;
}

export function startTerminalLog(dataDir: string, format: TerminalFormat): TerminalLog {
  const dir = join(dataDir, 'logs');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'runtime.log');
  if (existsSync(file) && statSync(file).size > LOG_FILE_MAX_BYTES) renameSync(file, join(dir, 'runtime.1.log'));
  const fd = openSync(file, 'a', 0o600);

  const streams = [process.stdout, process.stderr] as const;
  const originals = streams.map((stream) => stream.write.bind(stream));
  const partial = ['', ''];
  streams.forEach((stream, i) => {
    const write = originals[i];
    // Lines are whole when they reach the file and the terminal: a chunk's unfinished tail waits for the rest.
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = partial[i] + (typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const lines = text.split('\n');
      partial[i] = lines.pop() ?? '';
      let out = '';
      for (const line of lines) {
        if (!line.startsWith('{')) {
          out += `${line}\n`;
          continue;
        }
        writeSync(fd, `${line}\n`);
        if (format === 'json') out += `${line}\n`;
        else {
          const short = shortLine(line);
          if (short) out += `${short}\n`;
        }
      }
      const callback = rest.find((arg): arg is () => void => typeof arg === 'function');
      if (out) return write(out, callback);
      callback?.();
      return true;
    }) as typeof stream.write;
  });

  return {
    file,
    request(method, path, status, ms) {
      if (format === 'human') originals[0](`${time()} ${method} ${path} ${status} ${ms} ms\n`);
    },
    close() {
      streams.forEach((stream, i) => {
        stream.write = originals[i] as typeof stream.write;
        if (partial[i]) originals[i](partial[i]);
      });
      closeSync(fd);
    },
  };
}
