/**
 * Structured JSON logs, one line per entry, always with the request id.
 * DESIGN.md names Powertools' logger as the ecosystem's choice "unless it breaks the bundle
 * budget", and its own measurement puts a typical handler with it at 460 KB, over the 450 KB
 * budget; these few lines give the same JSON shape instead (`npm run bench` shows the sizes).
 */
import { nowIso } from './clock';

type Level = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
const order: Record<Level, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40 };
const threshold = order[(process.env.LOG_LEVEL?.toUpperCase() as Level) ?? 'INFO'] ?? order.INFO;

export interface Logger {
  debug(message: string, extra?: Record<string, unknown>): void;
  info(message: string, extra?: Record<string, unknown>): void;
  warn(message: string, extra?: Record<string, unknown>): void;
  error(message: string, extra?: Record<string, unknown>): void;
  child(context: Record<string, unknown>): Logger;
}

function errorFields(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

export function createLogger(context: Record<string, unknown> = {}): Logger {
  const write = (level: Level, message: string, extra: Record<string, unknown> = {}) => {
    if (order[level] < threshold) return;
    const entry: Record<string, unknown> = { level, message, timestamp: nowIso(), ...context };
    for (const [k, v] of Object.entries(extra)) entry[k] = errorFields(v);
    (level === 'ERROR' ? process.stderr : process.stdout).write(`${JSON.stringify(entry)}\n`);
  };
  return {
    debug: (m, e) => write('DEBUG', m, e),
    info: (m, e) => write('INFO', m, e),
    warn: (m, e) => write('WARN', m, e),
    error: (m, e) => write('ERROR', m, e),
    child: (more) => createLogger({ ...context, ...more }),
  };
}

export const logger = createLogger({ service: 'email-service', function: process.env.AWS_LAMBDA_FUNCTION_NAME });
