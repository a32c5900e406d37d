/**
 * The test tiers' one switch (docs/testing.md#tiers). `npm test` (CI's gate) runs every claim at a
 * fixed seed and at the smallest size that proves it; `npm run test:deep` (TEST_DEEP=true) runs the
 * same suites with random seeds, every generated case and the large sizes, plus the deep-only
 * suites (`test/deep/`). jest.config.js reads the same variable.
 */
export const deep = process.env.TEST_DEEP === 'true';

/** `fast` in `npm test`, `deep` under `npm run test:deep`: a size or a number of runs. */
export const bySize = <T>(fast: T, deepValue: T): T => (deep ? deepValue : fast);

/**
 * A seed for one suite's randomness: `<name>` from the environment when set (to replay a failure),
 * else a random one under `test:deep`, else `fixed`, so `npm test` makes the same cases on every
 * machine and every run. The seed is printed, with the command that replays it.
 */
export function seedFrom(name: string, fixed: number): number {
  const given = process.env[name];
  const seed = given !== undefined && given !== '' ? Number(given) : deep ? Math.floor(Math.random() * 2 ** 31) : fixed;
  if (!Number.isInteger(seed)) throw new Error(`${name}=${given} is not an integer seed`);
  process.stdout.write(`${name}=${seed}${deep ? ' (test:deep)' : ''}\n`);
  return seed;
}
