/**
 * `scheduled_at` in natural language, as Resend takes it beside ISO 8601 ("in 1 min"), for emails
 * (POST /emails, /emails/batch, PATCH /emails/{id}) and broadcasts (create, send). One reading:
 *
 * 1. A value starting with a date (YYYY-MM-DD) is ISO 8601 and nothing else: the schema checked it
 *    as it always did (./model.ts `scheduledAtInput`, an offset or Z required), so it is taken as is.
 * 2. Anything else is an English phrase, read by chrono-node's casual English parser against
 *    `now`, the request's arrival by the server clock: "in 2 hours" counts from then.
 * 3. The phrase must be one time and all of it: chrono finds dates inside free text, so "in 1 min
 *    please", "tomorrow at 25:00" (only "tomorrow" is a date) and ranges ("from 9 to 10am") are
 *    refused rather than half-read.
 * 4. Time zone: none means UTC. The phrase may end with a zone chrono knows (abbreviations such
 *    as EST, PDT, AEST, UTC; offsets such as +10:00, UTC+10, GMT-5) or with an IANA name
 *    (America/New_York), which chrono does not know: it is cut off here and the rest is read with
 *    that zone's offset, the offset it has at the time found (so "tomorrow at 9am" across a DST
 *    change is 9am on the wall clock of that day).
 * 5. A time of day or a weekday without a date is the next one (chrono's forwardDate): "9am"
 *    said at 10:00 is tomorrow's. Numeric dates are read month first, as in the US ("10/12" is 12 October).
 *    Known limit of chrono: it moves a weekday forward by comparing in the server's zone, so a
 *    weekday phrase with a zone ("friday 5pm EST"), said on that weekday within the zone's offset
 *    of the time, can come out in the past (and send now). Lambda runs in UTC; phrases without a
 *    zone are exact there.
 *
 * The answer is the instant; the caller applies the window to it (at most 30 days ahead; a time
 * already past sends now), as it does for ISO values.
 */
import { casual } from 'chrono-node/en';
import { ISO_DATE_START } from './model';

export type ScheduledAt = { iso: string } | { error: { code: 'invalid_scheduled_at'; message: string } };

/** A trailing IANA zone name: `Area/Location` (`America/Argentina/Buenos_Aires`, `Etc/GMT+5`). */
const IANA_ZONE_AT_END = /\s+([A-Za-z][\w+-]*(?:\/[\w+-]+)+)$/;

const EXAMPLES =
  'an ISO 8601 date-time with an offset (2026-11-22T09:00:00Z) or an English phrase such as "in 1 min", "in 2 hours" or "tomorrow at 9am America/New_York"';
const refused = (message: string): ScheduledAt => ({ error: { code: 'invalid_scheduled_at', message } });

export function parseScheduledAt(value: string, now: Date): ScheduledAt {
  if (ISO_DATE_START.test(value)) {
    const time = Date.parse(value);
    return Number.isNaN(time)
      ? refused(`"${value}" is not an ISO 8601 date-time`)
      : { iso: new Date(time).toISOString() };
  }
  const phrase = value.trim();
  const zone = IANA_ZONE_AT_END.exec(phrase)?.[1];
  const text = zone ? phrase.slice(0, -zone.length).trimEnd() : phrase;
  if (zone && !isTimeZone(zone))
    return refused(
      `"${value}" ends with "${zone}", which is not a time zone this server knows (IANA names such as America/New_York)`,
    );
  const offsetNow = zone ? offsetMinutes(zone, now) : 0;
  let time = readPhrase(text, now, offsetNow);
  if (time !== undefined && zone) {
    // the zone's offset at the time found, when it differs from today's (a DST change lies between)
    const offsetThen = offsetMinutes(zone, new Date(time));
    if (offsetThen !== offsetNow) time = readPhrase(text, now, offsetThen);
  }
  return time === undefined
    ? refused(`"${value}" is not a time this service can read: give ${EXAMPLES}`)
    : { iso: new Date(time).toISOString() };
}

/** The one time the whole of `text` names, read in a zone `offset` minutes east of UTC; undefined if it names none, several, or only part of it. */
function readPhrase(text: string, now: Date, offset: number): number | undefined {
  const results = casual.parse(text, { instant: now, timezone: offset }, { forwardDate: true });
  if (results.length !== 1) return undefined;
  const [only] = results;
  if (only.index !== 0 || only.text.length !== text.length || only.end) return undefined;
  const time = only.date().getTime();
  return Number.isNaN(time) ? undefined : time;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false; // RangeError: not a zone of the runtime's time zone database
  }
}

/** The zone's offset from UTC in minutes at `at` (east positive), from Intl's "GMT+10:00" / "GMT-04:00" / "GMT". */
function offsetMinutes(timeZone: string, at: Date): number {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}
