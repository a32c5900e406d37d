/**
 * Where the service's one-time schedules (./scheduler.ts) live and what they deliver to: the
 * schedule group, the target queue (the automations' step queue), the role EventBridge Scheduler
 * assumes to send to it and the dead-letter queue of failed deliveries. The stack sets these for
 * each function whose `needs.scheduler` is declared (lib/constructs/schedules.ts), the local
 * runtime for every function (local/runtime.ts: its functions share one process environment).
 */

/** The environment variables that name them, on AWS and locally. */
export const SCHEDULE_VARIABLES = {
  /** the schedule group every schedule of the service is created in */
  group: 'SCHEDULE_GROUP_NAME',
  /** the ARN of the queue a schedule sends its message to (`automation-steps`) */
  targetArn: 'SCHEDULE_TARGET_ARN',
  /** the ARN of the role Scheduler assumes to send it (passed with each schedule: iam:PassRole) */
  roleArn: 'SCHEDULE_ROLE_ARN',
  /** the ARN of the queue a delivery that failed all its retries goes to (`automation-steps-dlq`) */
  dlqArn: 'SCHEDULE_DLQ_ARN',
} as const;

export type ScheduleSetting = keyof typeof SCHEDULE_VARIABLES;

/** One of the settings above; throws when its variable is not set. */
export function scheduleSetting(setting: ScheduleSetting): string {
  const value = process.env[SCHEDULE_VARIABLES[setting]];
  if (!value) throw new Error(`${SCHEDULE_VARIABLES[setting]} is not set`);
  return value;
}
