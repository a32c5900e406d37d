/**
 * The local runtime's clock (`LOCAL_CLOCK`), which the service reads through
 * shared/platform/clock.ts and the stand-ins read directly:
 *
 * - `real` (the default): the machine's clock. Timers are machine timers.
 * - `manual`: the service's time stands still from the moment the runtime starts (or where the
 *   last run left it under DATA_DIR) until the control API moves it (`POST /_local/clock`). What
 *   falls due (a delayed or invisible SQS message, an SES event a send still owes, a scheduled
 *   worker's next run) waits for the clock to be moved past it.
 *
 * Moving the clock (`moveTo`) first settles what is due now (work a request made just before),
 * then goes through what falls due on the way, in order: it stops at the
 * earliest due time (an SQS message's delay or visibility timeout, an SES event), fires what is due
 * there, tells the listeners (long polls look again; each scheduled worker runs once if its
 * interval has passed since its last run) and waits until the pipeline has settled (the control
 * API's drain), then goes on to the next due time, up to the target. So a webhook's retries come
 * one after another, each seeing the time it was due at. The scheduled workers do not make stops of
 * their own (a one-second schedule over two days would be 172,800 of them): they run at each stop,
 * so what they find (a scheduled email, a domain to verify) is handled at the first stop at or
 * after its time, with that stop's time. A test that needs such work at its exact time moves the
 * clock to that time first.
 *
 * On the machine's time, in both modes, because they measure the machine's work rather than the
 * service's calendar: Lambda timeouts and remaining time, the gateway's integration timeout, SQS
 * long-poll waits, outbound HTTP timeouts, SigV4 signing and presigned-URL expiry (the SDK signs
 * with the machine's clock), the memory and event-loop watches.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type ClockMode = 'real' | 'manual';

/** Something whose work falls due at times of its own (the local SQS: delays and visibility timeouts). */
export interface DueSource {
  /** the earliest time after `now` at which something falls due (epoch ms), if any */
  nextDue(now: number): number | undefined;
}

/** What a stop's wait for the pipeline found: settled, or still busy at the wait's deadline. */
export type Settled =
  | { settled: true }
  | { settled: false; answer: { statusCode: number; body: Record<string, unknown> } };

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

/** How far one move may go: a year, past anything the service schedules (30 days at most). */
export const MAX_MOVE_MS = 366 * 24 * 60 * 60 * 1000;

export class LocalClock {
  private manualNow: number;
  private readonly timers: Timer[] = [];
  private readonly sources: DueSource[] = [];
  private readonly listeners: (() => void)[] = [];
  private seq = 0;
  /** one move at a time: a second waits for the first */
  private moving: Promise<unknown> = Promise.resolve();

  /** `file`: where a manual clock keeps its time between runs (DATA_DIR), so it never goes back. */
  constructor(
    readonly mode: ClockMode,
    private readonly file?: string,
  ) {
    this.manualNow = Math.max(Date.now(), this.saved());
  }

  /** Epoch milliseconds on this clock. */
  readonly now = (): number => (this.mode === 'real' ? Date.now() : this.manualNow);

  /** Calls `fire` once the clock reaches `at`: a machine timer on the real clock, a due time on the manual one. */
  at(at: number, fire: () => void): void {
    if (this.mode === 'real') {
      setTimeout(fire, Math.max(0, at - Date.now()));
      return;
    }
    if (at <= this.manualNow) {
      setImmediate(fire);
      return;
    }
    const timer = { at, seq: this.seq++, fire };
    const i = this.timers.findIndex((t) => t.at > at);
    this.timers.splice(i < 0 ? this.timers.length : i, 0, timer);
  }

  /** A source of due times the manual clock stops at. */
  addSource(source: DueSource): void {
    this.sources.push(source);
  }

  /** Called after every move of the manual clock (and at each stop on the way). */
  onMoved(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The earliest due time after now, if any. */
  nextDue(): number | undefined {
    let next = this.timers[0]?.at;
    for (const source of this.sources) {
      const due = source.nextDue(this.manualNow);
      if (due !== undefined && due > this.manualNow && (next === undefined || due < next)) next = due;
    }
    return next;
  }

  /**
   * Moves the manual clock to `target` through every due time on the way (the module comment),
   * waiting at each stop for `settle`. Stops at the first stop that does not settle. Moves run one
   * at a time.
   */
  moveTo(target: number, settle: () => Promise<Settled>): Promise<{ stops: number; outcome: Settled }> {
    const move = this.moving.then(() => this.move(target, settle));
    this.moving = move.catch(() => undefined);
    return move;
  }

  private async move(target: number, settle: () => Promise<Settled>): Promise<{ stops: number; outcome: Settled }> {
    // first what is due now (a send made just before the move): handled at its own time, not at the first stop
    const now = await settle();
    if (!now.settled) return { stops: 0, outcome: now };
    let stops = 0;
    for (;;) {
      const due = this.nextDue();
      const next = due !== undefined && due <= target ? due : Math.max(target, this.manualNow);
      this.manualNow = next;
      this.save();
      stops++;
      while (this.timers.length > 0 && this.timers[0].at <= next) this.timers.shift()!.fire();
      for (const listener of this.listeners) listener();
      const outcome = await settle();
      if (!outcome.settled) return { stops, outcome };
      const after = this.nextDue();
      if (this.manualNow >= target && (after === undefined || after > target)) return { stops, outcome };
    }
  }

  private saved(): number {
    if (this.mode !== 'manual' || !this.file) return 0;
    try {
      const at = Date.parse(JSON.parse(readFileSync(this.file, 'utf8')).now);
      return Number.isNaN(at) ? 0 : at;
    } catch {
      return 0; // none yet (or unreadable): the machine's time
    }
  }

  private save(): void {
    if (!this.file) return;
    mkdirSync(join(this.file, '..'), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify({ now: new Date(this.manualNow).toISOString() })}\n`);
  }
}
