/**
 * The reputation guard's thresholds (./reputation.ts), from the environment of the worker that
 * applies them: the same for every project of a deployment (the stack sets them from CDK context,
 * lib/constructs/workers.ts). No imports: the stack reads the defaults too.
 */
const fraction = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 && n < 1 ? n : fallback;
};

/** The guard's thresholds, from the environment (the deployment's; the same for every project). */
export function guardThresholds(env: Record<string, string | undefined> = process.env) {
  const minSends = Number(env.REPUTATION_MIN_SENDS);
  return {
    bounceRate: fraction(env.REPUTATION_BOUNCE_RATE, 0.04),
    complaintRate: fraction(env.REPUTATION_COMPLAINT_RATE, 0.0008),
    minSends: Number.isInteger(minSends) && minSends >= 1 ? minSends : 200,
  };
}
