/**
 * Durations in words: "2 days", "1 hour 30 minutes", "90s", "1.5 h". The local clock's moves
 * (local/control.ts) and the automations' delays and waits read them the same way.
 */

const UNITS: Record<string, number> = {
  ms: 1,
  millisecond: 1,
  s: 1000,
  sec: 1000,
  second: 1000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hour: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
};

/** "2 days", "1 hour 30 minutes", "90s", "1.5 h": milliseconds, or undefined when it is not such a phrase. */
export function parseDuration(phrase: string): number | undefined {
  const parts = [
    ...phrase
      .trim()
      .toLowerCase()
      .matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)\s*,?\s*(?:and\s+)?/g),
  ];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== phrase.trim().toLowerCase().replace(/\s+$/, ''))
    return undefined;
  let total = 0;
  for (const [, amount, unit] of parts) {
    const per = UNITS[unit] ?? UNITS[unit.replace(/s$/, '')];
    if (per === undefined) return undefined;
    total += Number(amount) * per;
  }
  return Math.round(total);
}
