/** Time source, passed in so tests can move time (token expiry, rate-limit windows). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}

/** Today's UTC day, YYYY-MM-DD. */
export function utcDay(clock: Clock): string {
  return clock.now().toISOString().slice(0, 10);
}
