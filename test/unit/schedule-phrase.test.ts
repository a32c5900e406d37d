/**
 * `scheduled_at` phrases read against a fixed `now`: Saturday 7 March 2026, 15:30 UTC. The next
 * day, Sunday 8 March, is the day New York moves to daylight saving time (EST -05:00 -> EDT
 * -04:00), so "tomorrow at 9am America/New_York" must take tomorrow's offset, not today's.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseScheduledAt } from '../../shared/emails/schedule-phrase';

const NOW = new Date('2026-03-07T15:30:00.000Z');
const iso = (value: string) => parseScheduledAt(value, NOW);

describe('parseScheduledAt', () => {
  it('takes an ISO 8601 value as it is, as the instant in UTC', () => {
    expect(iso('2026-03-08T10:00:00+10:00')).toEqual({ iso: '2026-03-08T00:00:00.000Z' });
    expect(iso('2026-03-08T10:00:00.123Z')).toEqual({ iso: '2026-03-08T10:00:00.123Z' });
  });

  it('counts relative phrases from now, in any case and spacing', () => {
    expect(iso('in 1 min')).toEqual({ iso: '2026-03-07T15:31:00.000Z' });
    expect(iso('in 2 hours')).toEqual({ iso: '2026-03-07T17:30:00.000Z' });
    expect(iso('in 30 seconds')).toEqual({ iso: '2026-03-07T15:30:30.000Z' });
    expect(iso('  IN 5 MINUTES ')).toEqual({ iso: '2026-03-07T15:35:00.000Z' });
    expect(iso('in 40 days')).toEqual({ iso: '2026-04-16T15:30:00.000Z' }); // the 30-day window is the caller's
  });

  it('reads a phrase without a zone as UTC, and a bare time or weekday as the next one', () => {
    expect(iso('tomorrow at 9am')).toEqual({ iso: '2026-03-08T09:00:00.000Z' });
    expect(iso('5pm')).toEqual({ iso: '2026-03-07T17:00:00.000Z' });
    expect(iso('9am')).toEqual({ iso: '2026-03-08T09:00:00.000Z' }); // 9am today is past
    expect(iso('next monday 10:00')).toEqual({ iso: '2026-03-09T10:00:00.000Z' });
  });

  it('takes a zone at the end: an abbreviation, an offset or an IANA name (with the offset of the day found)', () => {
    expect(iso('tomorrow at 9am EST')).toEqual({ iso: '2026-03-08T14:00:00.000Z' });
    expect(iso('tomorrow at 9am +10:00')).toEqual({ iso: '2026-03-07T23:00:00.000Z' });
    expect(iso('tomorrow at 9am America/New_York')).toEqual({ iso: '2026-03-08T13:00:00.000Z' }); // EDT from that morning
    expect(iso('tomorrow at 9am america/new_york')).toEqual({ iso: '2026-03-08T13:00:00.000Z' });
    // in Sydney it is already Sunday 02:30 (AEDT, +11:00): tomorrow is Monday
    expect(iso('tomorrow at 9am Australia/Sydney')).toEqual({ iso: '2026-03-08T22:00:00.000Z' });
    expect(iso('in 2 hours America/New_York')).toEqual({ iso: '2026-03-07T17:30:00.000Z' }); // a zone moves no relative time
  });

  it('refuses what is not one whole time, quoting it', () => {
    for (const value of ['whenever you like', 'in 1 min please', 'tomorrow at 25:00', 'from 9 to 10am tomorrow']) {
      expect(iso(value)).toEqual({
        error: { code: 'invalid_scheduled_at', message: expect.stringContaining(`"${value}" is not a time`) },
      });
    }
  });

  it('refuses an unknown IANA zone, naming it', () => {
    expect(iso('tomorrow at 9am Mars/Olympus')).toEqual({
      error: {
        code: 'invalid_scheduled_at',
        message: expect.stringContaining('"Mars/Olympus", which is not a time zone'),
      },
    });
  });

  it("does not depend on the server's own time zone (a laptop running the local runtime)", () => {
    // a process of its own per zone: jest's process.env is a copy, so setting TZ here would change nothing
    const values = ['tomorrow at 9am', 'tomorrow at 9am America/New_York', 'in 1 min', 'monday 9am EST'];
    const script = `const { parseScheduledAt } = require('./shared/emails/schedule-phrase.ts');
      console.log(JSON.stringify(${JSON.stringify(values)}.map((v) => parseScheduledAt(v, new Date('${NOW.toISOString()}')))));`;
    const inZone = (TZ: string) => {
      const run = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
        cwd: join(__dirname, '..', '..'),
        env: { ...process.env, TZ },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      return JSON.parse(run.stdout);
    };
    const expected = values.map(iso);
    expect(inZone('Asia/Kolkata')).toEqual(expected);
    expect(inZone('America/Los_Angeles')).toEqual(expected);
  });
});
