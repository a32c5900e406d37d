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
let read: () => number = Date.now;
let wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Epoch milliseconds. */
export const now = (): number => read();

/** Now as a Date. */
export const nowDate = (): Date => new Date(read());

/** ISO 8601 UTC with milliseconds, the only timestamp format the API speaks. */
export const nowIso = (): string => new Date(read()).toISOString();

/**
 * Waits `ms` of the clock's time. On AWS (and on the local real clock) a timer; on a clock that moves
 * only when told (the local manual clock) it returns at once: waiting would not move it, so the
 * caller, which reads the clock again after any wait, sees it has not moved and does what it does
 * when time is short (e.g. a sender comes back later through its queue).
 */
export const waitOnClock = (ms: number): Promise<void> => wait(ms);

/** The local runtime only: where the time comes from from now on, and how a wait on it ends. */
export function setClockSource(source: () => number, waiter?: (ms: number) => Promise<void>): void {
  read = source;
  if (waiter) wait = waiter;
}
