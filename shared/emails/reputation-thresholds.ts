/**
 * The reputation guard's thresholds (./reputation.ts), from the environment of the worker that
 * applies them: the same for every project of a deployment (the stack sets them from CDK context,
 * lib/constructs/workers.ts). No imports: the stack reads the defaults too.
 */
const fraction = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n > 0 && n < 1 ? n : fallback;
};

const wholeNumber = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n >= 1 ? n : fallback;
};

/**
 * The guard's thresholds, from the environment (the deployment's; the same for every project).
 * `minComplaints` (REPUTATION_MIN_COMPLAINTS, 3): the complaint rate pauses only from that many
 * complaints in the window. At 200-1,249 sends a single complaint is already past 0.08%, and one
 * spam report (a stranger's address typed into a public sign-up form) would stop a small tenant;
 * three is still far past the 0.3% Gmail and Yahoo ask senders to stay under for any project of
 * under 1,000 emails a day, and a small project's few complaints barely move the shared account's
 * rate that SES reviews (0.1%) and pauses at (0.5%).
 */
export function guardThresholds(env: Record<string, string | undefined> = process.env) {
  return {
    bounceRate: fraction(env.REPUTATION_BOUNCE_RATE, 0.04),
    complaintRate: fraction(env.REPUTATION_COMPLAINT_RATE, 0.0008),
    minSends: wholeNumber(env.REPUTATION_MIN_SENDS, 200),
    minComplaints: wholeNumber(env.REPUTATION_MIN_COMPLAINTS, 3),
  };
}
