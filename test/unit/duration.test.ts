/**
 * Durations in words (shared/platform/duration.ts), as the local clock's moves and the automations'
 * delays read them: units and their plurals, sums, decimals; anything else is not a duration.
 */
import { parseDuration } from '../../shared/platform/duration';

describe('parseDuration', () => {
  it.each([
    ['90 seconds', 90_000],
    ['90s', 90_000],
    ['1 hour 30 minutes', 5_400_000],
    ['1 hour, 30 minutes', 5_400_000],
    ['1 hour and 30 minutes', 5_400_000],
    ['2 days', 172_800_000],
    ['1 Week', 604_800_000],
    ['1.5 h', 5_400_000],
    ['250 ms', 250],
    ['30 days', 2_592_000_000],
  ])('%s is %d ms', (phrase, ms) => {
    expect(parseDuration(phrase)).toBe(ms);
  });

  it.each(['', 'soon', '2', 'two days', '2 fortnights', '1 day please', '-1 day', 'in 2 days'])(
    '%j is not a duration',
    (phrase) => {
      expect(parseDuration(phrase)).toBeUndefined();
    },
  );
});
