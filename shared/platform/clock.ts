/**
 * The service's one clock: every moment the service reads (timestamps it stores, due times,
 * expiries, leases, rate windows, retry schedules) comes from here. On AWS it is the machine's
 * clock (`Date.now`), nothing else. The local runtime may run on a clock of its own
 * (`LOCAL_CLOCK=manual`: time moves only when its control API is told, lib/local/clock.ts) and
 * sets it here before any handler runs.
 *
 * Not on this clock, on purpose: durations of work and timeouts of I/O (an HTTP call's 15 s, a
 * Lambda's timeout, a retry's back-off), which measure the machine, not the service's calendar.
 */
let read: () => number = Date.now;

/** Epoch milliseconds. */
export const now = (): number => read();

/** Now as a Date. */
export const nowDate = (): Date => new Date(read());

/** ISO 8601 UTC with milliseconds, the only timestamp format the API speaks. */
export const nowIso = (): string => new Date(read()).toISOString();

/** The local runtime only: where the time comes from from now on. */
export function setClockSource(source: () => number): void {
  read = source;
}
