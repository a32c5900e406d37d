/**
 * The service's one clock: every moment the service reads (timestamps it stores, due times,
 * expiries, leases, rate windows, retry schedules) comes from here. On AWS it is the machine's
 * clock (`Date.now`), nothing else. The local runtime may run on a clock of its own
 * (`LOCAL_CLOCK=manual`: time moves only when its control API is told, local/clock.ts) and
 * sets it here before any handler runs.
 *
 * Not on this clock, on purpose: durations of work and timeouts of I/O (an HTTP call's 15 s, a
 * Lambda's timeout, a retry's back-off), which measure the machine, not the service's calendar.
 */
const machineWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
let read: () => number = Date.now;
let standsStill = false;

/** Epoch milliseconds. */
export const now = (): number => read();

/** Now as a Date. */
export const nowDate = (): Date => new Date(read());

/** ISO 8601 UTC with milliseconds, the only timestamp format the API speaks. */
export const nowIso = (): string => new Date(read()).toISOString();

/**
 * Waits `ms` of the clock's time. On AWS (and on the local real clock) a timer; on a clock that stands
 * still (the local manual clock, moved only when told) it returns at once: waiting would not move it,
 * so the caller, which reads the clock again after any wait, sees it has not moved and does what it
 * does when time is short (e.g. a sender comes back later through its queue).
 */
export const waitOnClock = (ms: number): Promise<void> => (standsStill ? Promise.resolve() : machineWait(ms));

/**
 * False on AWS. True on the local manual clock, where no time passes between two reads unless the
 * clock is moved: a margin kept for time passing during a call (the send slot's last 100 ms, kept so a
 * send reaches SES in the second that counted it) has nothing to guard there, and kept, it would hold a
 * clock standing in that margin forever (a come-back in whole seconds lands in the same margin again).
 */
export const clockStandsStill = (): boolean => standsStill;

/** The local runtime only: where the time comes from from now on, and whether it stands still between moves. */
export function setClockSource(source: () => number, options: { standsStill?: boolean } = {}): void {
  read = source;
  standsStill = options.standsStill ?? false;
}
