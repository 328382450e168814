/**
 * Bounded convergence instead of read-your-writes: the contract never promises that a read right
 * after a write shows it (a read replica may lag). After a write the suite reads until the
 * write's own effect shows, within a window, and judges "unchanged", "absent" or "not listed" only
 * on reads after that fence. A target that shows its writes at once pays no extra request; one
 * that never shows a write still fails, after the window.
 */

import { CONVERGE_WINDOW_MS, limitsOf, type Limits } from './limits.ts';

/**
 * After a write failed to show within the window, later waits are this many times the longest
 * lag seen, and at least LAG_FLOOR_MS on a target that has lagged at all (a busy machine stretches
 * a lag); none on a target that never lagged.
 */
const LAG_FACTOR = 3;
const LAG_FLOOR_MS = 1000;
const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 500;

/**
 * What the target taught about its lag, per worker: the longest a write of this run took to show,
 * and whether one never showed within the window. Once one has not, a broken target must not make
 * every later check wait the whole window: later waits are bounded by the lag the target showed.
 */
export class Lag {
  longestMs = 0;
  expired = false;

  budget(windowMs: number): number {
    if (!this.expired) return windowMs;
    return this.longestMs === 0 ? 0 : Math.min(windowMs, Math.max(LAG_FACTOR * this.longestMs, LAG_FLOOR_MS));
  }
}
const learned = new Lag();

export interface Converged<T> {
  value: T;
  /** The effect showed (on the first read, or within the window). */
  shown: boolean;
  /** How long after the first read it showed, or was given up on. */
  waitedMs: number;
}

/**
 * Reads with `read` until `shows` holds for what it answered, for at most the window (or what the
 * target's lag so far allows, see Lag); returns the last reading either way, for the check to
 * judge. An error from `read` ends the wait (it is the check's to report).
 */
export async function converge<T>(read: () => Promise<T>, shows: (value: T) => boolean, windowMs = CONVERGE_WINDOW_MS, lag = learned): Promise<Converged<T>> {
  const started = Date.now();
  let value = await read();
  if (shows(value)) return { value, shown: true, waitedMs: 0 };
  const budget = lag.budget(windowMs);
  for (let pause = FIRST_PAUSE_MS; Date.now() - started < budget; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, budget - (Date.now() - started)))));
    value = await read();
    if (shows(value)) {
      const waitedMs = Date.now() - started;
      lag.longestMs = Math.max(lag.longestMs, waitedMs);
      return { value, shown: true, waitedMs };
    }
  }
  lag.expired = true;
  return { value, shown: false, waitedMs: Date.now() - started };
}

/** The window of this run (--converge-window), from the target the suites were given. */
export const windowOf = (target: Partial<Limits>): number => limitsOf(target).convergeWindowMs;
