/**
 * The automations' step queue: one message per step to run, `{project_id, automation_id, run_id,
 * step}`, and for a waiting step what resumes it (`resume`). The run item is the truth; a message
 * only says "run this step of this run", so a duplicate is harmless: a step that is done is not
 * run again (shared/automations/engine.ts), and a send_email step's send carries the idempotency
 * key `<run id>:<step key>`.
 *
 * Time (`scheduleStep`): a step due within 15 minutes is a message with SQS's DelaySeconds; one
 * due later is an EventBridge Scheduler one-time schedule whose target is this queue and whose
 * input is the message (shared/platform/aws/scheduler.ts), deleted after it fires. Its name is
 * derived from run, step and kind, so scheduling again (a redelivered message) finds it there. A
 * message that comes before its time (a schedule fires at the second, SQS's delay is whole
 * seconds) is scheduled again for what is left.
 */
import { createHash } from 'node:crypto';
import { now as clockNow } from '../platform/clock';
import { MAX_DELAY_SECONDS, queue } from '../platform/aws/queues';
import { scheduleMessage } from '../platform/aws/scheduler';

/** What resumes a waiting step: its delay is over, its wait's event came (the event with it), or its wait timed out. */
export type Resume =
  | { kind: 'delay' }
  | { kind: 'event'; event: { id: string; name: string; payload: Record<string, unknown> } }
  | { kind: 'timeout' };

export interface StepMessage {
  /** the project (a test-mode key's runs: its sandbox's id) */
  project_id: string;
  automation_id: string;
  run_id: string;
  step: string;
  resume?: Resume;
}

/** `enqueue` resolves with the messages SQS did not take. */
export const stepQueue = /* @__PURE__ */ queue<StepMessage>('automation-steps', 'return', {
  delaySeconds: (message) => delays.get(message) ?? 0,
});
/** The DelaySeconds of a message being sent (read by the queue's `delaySeconds` as it builds the request). */
const delays = new WeakMap<StepMessage, number>();

/** Sends the messages now; throws when SQS did not take them all (the caller's message comes back and sends again). */
export async function enqueueSteps(messages: StepMessage[]): Promise<void> {
  const refused = await stepQueue.enqueue(messages);
  if (refused.length) throw new Error(`the automation-steps queue refused ${refused.length} messages`);
}

/** A schedule's name for the message: at most 64 of Scheduler's characters, the same for the same run, step and kind. */
export function scheduleName(message: StepMessage): string {
  const digest = createHash('sha256')
    .update(`${message.step}\n${message.resume?.kind ?? 'run'}`)
    .digest('hex')
    .slice(0, 24);
  return `${message.run_id.replace(/-/g, '')}-${digest}`;
}

/** Makes `message` arrive at `at` (epoch ms): now when due, an SQS delay within 15 minutes, a one-time schedule after. */
export async function scheduleStep(message: StepMessage, at: number): Promise<'queued' | 'scheduled'> {
  const seconds = Math.ceil((at - clockNow()) / 1000);
  if (seconds <= MAX_DELAY_SECONDS) {
    const delayed = { ...message };
    delays.set(delayed, Math.max(0, seconds));
    await enqueueSteps([delayed]);
    return 'queued';
  }
  await scheduleMessage({ name: scheduleName(message), at, body: JSON.stringify(message) });
  return 'scheduled';
}
