/**
 * The local runtime's settings, all from the environment (README lists them). Scripts and tests
 * rely on these names.
 */
import { resolve } from 'node:path';
import { API_KEY_PATTERN } from '../shared/access/api-key-token';
import type { ClockMode } from './clock';
import type { TerminalFormat } from './terminal-log';
import { DEFAULT_REGION } from '../lib/region';

/** The region the local runtime and its stand-ins are in (ARNs, SigV4 scopes, SES's hosts): the stack's default. */
export const LOCAL_REGION = DEFAULT_REGION;

export interface LocalSettings {
  host: string;
  /** 0 picks a free port (tests) */
  port: number;
  dataDir: string;
  /** keep DynamoDB in memory instead of under DATA_DIR (tests) */
  inMemory: boolean;
  localApiKey?: string;
  sesPort: number;
  /** the inbound SMTP server (stands in for SES email receiving), on loopback only */
  smtpPort: number;
  /** LOCAL_SMTP_PORT was given: a port in use is an error (the default 2525 falls back to a free port instead) */
  smtpPortRequired: boolean;
  /** how long a new SES identity stays PENDING before it verifies */
  sesVerifyDelayMs: number;
  /** the SES account's maximum send rate that GetAccount reports and sends are throttled to */
  sesMaxSendRate: number;
  sesMax24HourSend: number;
  sqsPort: number;
  dynamoDbPort: number;
  /** run every scheduled worker this often instead of its own interval (tests) */
  scheduleIntervalSeconds?: number;
  /**
   * ALLOW_HTTP_LOOPBACK_WEBHOOKS: webhooks may use plain http to loopback receivers (true unless
   * set to `false`). The runtime's own ports are refused either way (shared/platform/net/endpoint.ts).
   */
  allowHttpLoopbackWebhooks: boolean;
  /**
   * API_RATE_LIMIT_PER_SECOND: every project's API requests a second unless it has a limit of its own.
   * 1,000 locally unless given (AWS's default stays the stack parameter's 10): a script run against
   * `npm start` is one developer's, and 10 stopped a sequential SDK script at its 11th call.
   */
  apiRateLimitPerSecond: number;
  /**
   * LOCAL_TERMINAL_LOG: `human` (one line per request on the terminal, the JSON log only in
   * DATA_DIR/logs) or `json` (every JSON line on stdout/stderr too). Unset: `human` when stdout is a
   * terminal, else `json`, so pipes and the test suites keep reading the JSON (local/terminal-log.ts).
   */
  terminalLog: TerminalFormat;
  /**
   * LOCAL_CLOCK: `real` (the machine's clock; the default) or `manual` (the service's time stands
   * still until the control API moves it: POST /_local/clock, local/clock.ts).
   */
  clock: ClockMode;
}

/** A setting that cannot be used: `npm start` prints its message alone (one line) and exits 1. */
export class SettingsError extends Error {}

/** The local runtime's API rate limit unless API_RATE_LIMIT_PER_SECOND says otherwise (LocalSettings says why). */
export const LOCAL_API_RATE_LIMIT_PER_SECOND = 1000;
/** The domain of the inboxes' forwarding addresses locally, unless INBOX_FORWARDING_DOMAIN names another. */
export const LOCAL_INBOX_FORWARDING_DOMAIN = 'inboxes.localhost';
/** The domain of the domains' DMARC and TLS report addresses locally, unless REPORTS_DOMAIN names another. */
export const LOCAL_REPORTS_DOMAIN = 'reports.localhost';

function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new SettingsError(`${name} must be true or false, got "${value}"`);
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new SettingsError(`${name} must be a port number (0-65535), got "${value}"`);
  return n;
}

function wholeFromOne(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new SettingsError(`${name} must be a whole number from 1, got "${value}"`);
  return n;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new SettingsError(`${name} must be a non-negative number, got "${value}"`);
  return n;
}

function terminalFormat(value: string | undefined, stdoutIsTerminal: boolean): TerminalFormat {
  if (value === undefined || value === '') return stdoutIsTerminal ? 'human' : 'json';
  if (value === 'human' || value === 'json') return value;
  throw new SettingsError(`LOCAL_TERMINAL_LOG must be human or json, got "${value}"`);
}

function clockMode(value: string | undefined): ClockMode {
  if (value === undefined || value === '') return 'real';
  if (value === 'real' || value === 'manual') return value;
  throw new SettingsError(`LOCAL_CLOCK must be real or manual, got "${value}"`);
}

export function readSettings(
  env: NodeJS.ProcessEnv = process.env,
  stdoutIsTerminal = Boolean(process.stdout.isTTY),
): LocalSettings {
  const localApiKey = env.LOCAL_API_KEY || undefined;
  if (localApiKey && !API_KEY_PATTERN.test(localApiKey)) {
    throw new SettingsError('LOCAL_API_KEY must be es_test_ or es_live_ followed by 32 letters and digits (base62)');
  }
  return {
    host: env.HOST || '127.0.0.1',
    port: port('PORT', env.PORT, 3000),
    dataDir: resolve(env.DATA_DIR || '.data'),
    inMemory: env.DYNAMODB_IN_MEMORY === 'true',
    localApiKey,
    sesPort: port('LOCAL_SES_PORT', env.LOCAL_SES_PORT, 8005),
    smtpPort: port('LOCAL_SMTP_PORT', env.LOCAL_SMTP_PORT, 2525),
    smtpPortRequired: Boolean(env.LOCAL_SMTP_PORT),
    sesVerifyDelayMs: positive('LOCAL_SES_VERIFY_DELAY_MS', env.LOCAL_SES_VERIFY_DELAY_MS, 1000),
    sesMaxSendRate: positive('LOCAL_SES_MAX_SEND_RATE', env.LOCAL_SES_MAX_SEND_RATE, 14),
    sesMax24HourSend: positive('LOCAL_SES_MAX_24_HOUR_SEND', env.LOCAL_SES_MAX_24_HOUR_SEND, 50_000),
    sqsPort: port('LOCAL_SQS_PORT', env.LOCAL_SQS_PORT, 0),
    dynamoDbPort: port('LOCAL_DYNAMODB_PORT', env.LOCAL_DYNAMODB_PORT, 0),
    scheduleIntervalSeconds: env.LOCAL_SCHEDULE_INTERVAL_SECONDS
      ? positive('LOCAL_SCHEDULE_INTERVAL_SECONDS', env.LOCAL_SCHEDULE_INTERVAL_SECONDS, 60)
      : undefined,
    allowHttpLoopbackWebhooks: flag('ALLOW_HTTP_LOOPBACK_WEBHOOKS', env.ALLOW_HTTP_LOOPBACK_WEBHOOKS, true),
    apiRateLimitPerSecond: wholeFromOne(
      'API_RATE_LIMIT_PER_SECOND',
      env.API_RATE_LIMIT_PER_SECOND,
      LOCAL_API_RATE_LIMIT_PER_SECOND,
    ),
    terminalLog: terminalFormat(env.LOCAL_TERMINAL_LOG, stdoutIsTerminal),
    clock: clockMode(env.LOCAL_CLOCK),
  };
}
