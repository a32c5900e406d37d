/**
 * The local runtime's control API, on the API port under `/_local/` (never routed on AWS: the route
 * table has no such path, and the stack is made from the route table). Scripts and tests use it to
 * wait for the pipeline instead of sleeping:
 *
 * - `GET /_local/clock` → `{object: "clock", now, mode}` (`LOCAL_CLOCK`, ./clock.ts).
 * - `POST /_local/clock` moves a manual clock forward: `{advance: "2 days"}`, `{advance_seconds: N}`
 *   or `{set: ISO}` (never backwards: 422 `clock_backwards`), with `timeout_seconds?` as drain's.
 *   It goes through every due time on the way, in order, and waits at each until the pipeline has
 *   settled (./clock.ts), so it answers once everything due by the new time was handled:
 *   `{object: "clock", now, mode, stops}`, or 504 naming what was still busy (the clock then stays
 *   where it stopped). On the real clock (time moves by itself) it answers 409 `clock_not_manual`.
 * - `POST /_local/drain` `{timeout_seconds?}` (default 30, at most 300) waits until the pipeline has
 *   settled: no queue holds a message that is visible or falls due before the deadline (on a
 *   manual clock: that is due now; what falls due later waits for the clock), no poller
 *   has a message or stream record in hand, every stream consumer has read to the stream's end (a
 *   poll that began after everything else was quiet found nothing), no scheduled worker is running,
 *   the local SES owes no event and no one-time schedule (local/aws/scheduler.ts) is due but not
 *   delivered yet (one due later is later work, like a delayed message). It answers 200 with what
 *   it waited for (records handled per consumer while it waited) and what is left for later
 *   (messages and schedules due after the deadline, such as a webhook retry an hour away), or 504
 *   naming what is still busy at the deadline.
 * - `POST /_local/run/<worker>` runs a scheduled worker (functions/workers.ts, a `schedule`
 *   trigger) now, after a run already going, and answers when it finished: `{object: "run", worker,
 *   succeeded, duration_ms, error?}`.
 * - `PUT /_local/dns/txt/<name>` `{values: ["..."], ttl?}` sets the TXT records the service finds at
 *   `<name>`: the runtime's DNS server (./aws/dns.ts), which the functions ask instead of the real
 *   DNS, answers from DATA_DIR/dns/txt.json, which this writes. `ttl` (whole seconds, 0 to 86,400,
 *   default 0) is the records' TTL: the service keeps the answer that long (shared/platform/net/dns.ts),
 *   so with the default 0 a change is seen at the very next lookup, and with more it is seen once the
 *   clock passed the TTL, as on real DNS. `{values: []}` or `DELETE` removes them, `GET` shows them:
 *   `{object: "dns_txt", name, values, ttl}`. `/_local/dns/mx/<name>` does the same for MX records
 *   (`"10 mx.example.com"`; mx.json).
 * Every request needs a full-access API key of the runtime, as the API's own routes take it
 * (401 without a valid one, 403 for a sending-only key), and answers in the API's error envelope.
 */
import { authenticate } from '../shared/access/api-keys';
import { type LocalClock, MAX_MOVE_MS, type Settled } from './clock';
import { parseDuration } from '../shared/platform/duration';
import { dnsName } from '../shared/platform/net/dns';
import { readRecordsFile, writeRecordsFile } from './aws/dns';
import {
  ApiError,
  forbidden,
  invalidApiKey,
  methodNotAllowed,
  notFound,
  unprocessable,
} from '../shared/platform/errors';

/** One consumer of the pipeline, as drain sees it. */
export interface Watched {
  kind: 'queue' | 'stream' | 'schedule' | 'ses' | 'scheduler';
  /** the worker's name (functions/workers.ts), or `ses`, or `scheduler` (the EventBridge Scheduler stand-in) */
  name: string;
  /** work in hand, or due by `before` (epoch ms) */
  busy(before: number): number;
  /** work due after `before` (messages delayed or invisible past it) */
  later?(before: number): number;
  /** records or messages handled since the runtime started */
  handled(): number;
  /** streams: when the latest poll that found nothing to do began (epoch ms; 0: none yet) */
  quietSince?(): number;
  /** streams: poll now rather than after the pause between polls that found nothing */
  wake?(): void;
}

/** A scheduled worker that can be run on demand. */
export interface RunNow {
  name: string;
  runNow(): Promise<{ succeeded: boolean; error?: string }>;
}

export interface Control {
  watched: Watched[];
  schedules: RunNow[];
  clock: LocalClock;
  /** the DNS stand-in's TXT records (./aws/dns.ts answers from them) */
  dnsTxtFile: string;
  /** ... and its MX records */
  dnsMxFile: string;
}

export interface Answer {
  statusCode: number;
  body: Record<string, unknown>;
}

const DEFAULT_DRAIN_SECONDS = 30;
export const MAX_DRAIN_SECONDS = 300;
const STEP_MS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Every busy consumer, by name. */
function busyOf(watched: Watched[], before: number): Record<string, number> {
  const busy: Record<string, number> = {};
  for (const w of watched) {
    const n = w.busy(before);
    if (n > 0) busy[w.name] = (busy[w.name] ?? 0) + n;
  }
  return busy;
}

/**
 * Waits until nothing of `watched` is busy and every stream consumer has polled quietly since that
 * was seen (so a write made just before is read), or until `timeoutMs` passes (machine time).
 * `dueBy` (the clock's epoch ms): work due by then counts as busy, work due after it as later; by
 * default the deadline (the real clock), on a manual clock its now.
 */
export async function drain(watched: Watched[], timeoutMs: number, dueBy?: number): Promise<Answer> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  const before = dueBy ?? deadline;
  const handledAtStart = new Map(watched.map((w) => [w, w.handled()]));
  const streams = watched.filter((w) => w.quietSince);
  for (;;) {
    const now = Date.now();
    const busy = busyOf(watched, before);
    if (Object.keys(busy).length === 0) {
      // quiet now: each stream consumer must finish a poll begun after this moment and find nothing
      const quietFrom = now;
      for (const s of streams) s.wake?.();
      while (
        Date.now() < deadline &&
        Object.keys(busyOf(watched, before)).length === 0 &&
        streams.some((s) => s.quietSince!() < quietFrom)
      )
        await sleep(STEP_MS);
      if (Object.keys(busyOf(watched, before)).length === 0 && streams.every((s) => s.quietSince!() >= quietFrom))
        return settled(watched, handledAtStart, started, before);
    }
    if (Date.now() >= deadline) {
      const still = busyOf(watched, before);
      for (const s of streams) if (s.quietSince!() < now && !(s.name in still)) still[s.name] = 0; // not read to its end yet
      const names = Object.entries(still).map(([name, n]) => (n > 0 ? `${name} (${n})` : name));
      return {
        statusCode: 504,
        body: new ApiError(
          504,
          'application_error',
          `Not settled after ${timeoutMs / 1000} s: still busy: ${names.join(', ')}`,
          [{ code: 'drain_timeout', message: `still busy: ${names.join(', ')}`, path: '' }],
        ).toBody(),
      };
    }
    await sleep(STEP_MS);
  }
}

function settled(watched: Watched[], handledAtStart: Map<Watched, number>, started: number, before: number): Answer {
  const handled: Record<string, number> = {};
  const later: Record<string, number> = {};
  for (const w of watched) {
    const n = w.handled() - (handledAtStart.get(w) ?? 0);
    if (n > 0) handled[w.name] = (handled[w.name] ?? 0) + n;
    const due = w.later?.(before) ?? 0;
    if (due > 0) later[w.name] = (later[w.name] ?? 0) + due;
  }
  return { statusCode: 200, body: { object: 'drain', waited_ms: Date.now() - started, handled, later } };
}

/** The body of a control request: JSON, or nothing. */
function bodyOf(raw: Buffer): Record<string, unknown> | ApiError {
  if (raw.length === 0) return {};
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // below
  }
  return unprocessable([{ code: 'invalid_body', message: 'The body must be a JSON object', path: '' }]);
}

const fail = (error: ApiError): Answer => ({ statusCode: error.statusCode, body: error.toBody() });

const clockAnswer = (clock: LocalClock): Answer => ({
  statusCode: 200,
  body: { object: 'clock', now: new Date(clock.now()).toISOString(), mode: clock.mode },
});

/** `timeout_seconds` of a drain or a move: milliseconds. */
function timeoutOf(body: Record<string, unknown>): number | ApiError {
  const seconds = body.timeout_seconds ?? DEFAULT_DRAIN_SECONDS;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_DRAIN_SECONDS) {
    return unprocessable([
      {
        code: 'invalid_timeout',
        message: `timeout_seconds must be a number of seconds above 0 and at most ${MAX_DRAIN_SECONDS}`,
        path: 'timeout_seconds',
      },
    ]);
  }
  return seconds * 1000;
}

const invalidField = (code: string, message: string, path: string) => unprocessable([{ code, message, path }]);

/** Where a move goes: exactly one of `advance` (a phrase), `advance_seconds` or `set` (ISO 8601), never backwards, at most a year. */
function targetOf(body: Record<string, unknown>, now: number): number | ApiError {
  const given = ['advance', 'advance_seconds', 'set'].filter((name) => body[name] !== undefined);
  if (given.length !== 1)
    return invalidField(
      'invalid_clock_move',
      'Give exactly one of advance ("2 days"), advance_seconds or set (ISO 8601)',
      given[1] ?? '',
    );
  let target: number;
  if (body.advance !== undefined) {
    const ms = typeof body.advance === 'string' ? parseDuration(body.advance) : undefined;
    if (ms === undefined)
      return invalidField(
        'invalid_duration',
        'advance must be a duration such as "90 seconds", "2 days" or "1 hour 30 minutes"',
        'advance',
      );
    target = now + ms;
  } else if (body.advance_seconds !== undefined) {
    const seconds = body.advance_seconds;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0)
      return invalidField(
        'invalid_duration',
        'advance_seconds must be a number of seconds, 0 or more',
        'advance_seconds',
      );
    target = now + Math.round(seconds * 1000);
  } else {
    const at = typeof body.set === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(body.set) ? Date.parse(body.set) : Number.NaN;
    if (Number.isNaN(at))
      return invalidField('invalid_time', 'set must be an ISO 8601 date-time (2026-12-01T09:00:00Z)', 'set');
    if (at < now)
      return invalidField('clock_backwards', `The clock never goes back: it is ${new Date(now).toISOString()}`, 'set');
    target = at;
  }
  if (target - now > MAX_MOVE_MS)
    return invalidField('invalid_duration', 'One move goes at most a year ahead', given[0]);
  return target;
}

/** Answers a request to `/_local/...`; `authorization` is its Authorization header. */
export async function handleControl(
  control: Control,
  method: string,
  path: string,
  authorization: string | undefined,
  raw: Buffer,
): Promise<Answer> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const caller = token ? await authenticate(token) : undefined;
  if (!caller) return fail(invalidApiKey());
  if (caller.permission !== 'full_access')
    return fail(forbidden('insufficient_scope', 'The local control API takes a full-access API key'));

  const { clock } = control;
  const dueBy = () => (clock.mode === 'manual' ? clock.now() : undefined);
  if (path === '/_local/clock') {
    if (method === 'GET') return clockAnswer(clock);
    if (method !== 'POST') return fail(methodNotAllowed(method, path, ['GET', 'POST']));
    if (clock.mode !== 'manual')
      return fail(
        new ApiError(409, 'application_error', 'The clock is real (LOCAL_CLOCK=real): time moves by itself', [
          { code: 'clock_not_manual', message: 'The clock is real', path: '' },
        ]),
      );
    const body = bodyOf(raw);
    if (body instanceof ApiError) return fail(body);
    const target = targetOf(body, clock.now());
    if (target instanceof ApiError) return fail(target);
    const timeoutMs = timeoutOf(body);
    if (timeoutMs instanceof ApiError) return fail(timeoutMs);
    const deadline = Date.now() + timeoutMs;
    const settle = async (): Promise<Settled> => {
      const answer = await drain(control.watched, Math.max(1, deadline - Date.now()), clock.now());
      return answer.statusCode === 200 ? { settled: true } : { settled: false, answer };
    };
    const { stops, outcome } = await clock.moveTo(target, settle);
    if (!outcome.settled) return outcome.answer;
    return { statusCode: 200, body: { ...clockAnswer(clock).body, stops } };
  }
  if (path === '/_local/drain') {
    if (method !== 'POST') return fail(methodNotAllowed(method, path, ['POST']));
    const body = bodyOf(raw);
    if (body instanceof ApiError) return fail(body);
    const timeoutMs = timeoutOf(body);
    if (timeoutMs instanceof ApiError) return fail(timeoutMs);
    return drain(control.watched, timeoutMs, dueBy());
  }
  const dns = /^\/_local\/dns\/(txt|mx)\/([^/]+)$/.exec(path);
  if (dns)
    return dnsRecords(
      dns[1] === 'txt' ? control.dnsTxtFile : control.dnsMxFile,
      dns[1] as 'txt' | 'mx',
      method,
      dnsName(decodeURIComponent(dns[2])),
      raw,
    );
  const run = /^\/_local\/run\/([^/]+)$/.exec(path);
  if (run) {
    if (method !== 'POST') return fail(methodNotAllowed(method, path, ['POST']));
    const schedule = control.schedules.find((s) => s.name === decodeURIComponent(run[1]));
    if (!schedule)
      return fail(
        notFound(
          `Scheduled worker ${decodeURIComponent(run[1])} (there are: ${control.schedules.map((s) => s.name).join(', ')})`,
        ),
      );
    const started = Date.now();
    const outcome = await schedule.runNow();
    return {
      statusCode: 200,
      body: { object: 'run', worker: schedule.name, ...outcome, duration_ms: Date.now() - started },
    };
  }
  return fail(notFound(`Route ${method} ${path}`));
}

const MAX_TXT_VALUES = 20;
/** A name's values together: its answer must fit one DNS message over TCP (64 KB). */
const MAX_VALUE_BYTES = 60_000;
/** A day: more than any test needs, and the service keeps an answer an hour at most anyway. */
const MAX_TTL_SECONDS = 86_400;

const MX_VALUE = /^\d{1,5} [a-z0-9.-]{1,253}$/i;

/**
 * GET, PUT or DELETE the stand-in's TXT or MX records of one name: the whole file read and rewritten with
 * no await between (two requests at once cannot lose one's change; it holds a test run's few names).
 */
function dnsRecords(file: string, kind: 'txt' | 'mx', method: string, name: string, raw: Buffer): Answer {
  const answer = (values: string[], ttl: number): Answer => ({
    statusCode: 200,
    body: { object: `dns_${kind}`, name, values, ttl },
  });
  const records = readRecordsFile(file);
  if (method === 'GET') return answer(records[name]?.values ?? [], records[name]?.ttl ?? 0);
  if (method !== 'PUT' && method !== 'DELETE')
    return fail(methodNotAllowed(method, `/_local/dns/${kind}/${name}`, ['GET', 'PUT', 'DELETE']));
  let values: string[] = [];
  let ttl = 0;
  if (method === 'PUT') {
    const body = bodyOf(raw);
    if (body instanceof ApiError) return fail(body);
    const given = body.values;
    if (
      !Array.isArray(given) ||
      given.length > MAX_TXT_VALUES ||
      !given.every((v) => typeof v === 'string' && v.length <= 4096 && (kind === 'txt' || MX_VALUE.test(v))) ||
      given.reduce((bytes: number, v: string) => bytes + Buffer.byteLength(v), 0) > MAX_VALUE_BYTES ||
      Object.keys(body).some((key) => key !== 'values' && key !== 'ttl')
    )
      return fail(
        invalidField(
          'invalid_value',
          `values must be an array of at most ${MAX_TXT_VALUES} strings${kind === 'mx' ? ' like "10 mx.example.com"' : ''}, together at most ${MAX_VALUE_BYTES} bytes`,
          'values',
        ),
      );
    const givenTtl = body.ttl === undefined ? 0 : body.ttl;
    if (typeof givenTtl !== 'number' || !Number.isInteger(givenTtl) || givenTtl < 0 || givenTtl > MAX_TTL_SECONDS)
      return fail(invalidField('invalid_ttl', `ttl must be whole seconds from 0 to ${MAX_TTL_SECONDS}`, 'ttl'));
    values = given as string[];
    ttl = givenTtl;
  }
  if (values.length) records[name] = { values, ttl };
  else delete records[name];
  writeRecordsFile(file, records);
  return answer(values, values.length ? ttl : 0);
}
