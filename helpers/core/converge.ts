/**
 * Bounded convergence instead of read-your-writes: the contract never promises that a read right
 * after a write shows it (a read replica may lag). After a write the suite reads until the
 * write's own effect shows, within a window, and judges "unchanged", "absent" or "not listed" only
 * on reads after that fence. A target that shows its writes at once pays no extra request; one
 * that never shows a write still fails, after the window.
 */

import { CONVERGE_WINDOW_MS, limitsOf, type Limits } from './limits.ts';
import { perRun } from './run-scope.ts';

/**
 * After a write failed to show within the window, later waits are this many times the longest
 * lag seen, and at least LAG_FLOOR_MS on a target that has lagged at all (a busy machine stretches
 * a lag); none on a target that never lagged.
 */
const LAG_FACTOR = 3;
const LAG_FLOOR_MS = 1000;
/** A reading content cannot tell from an older one, before any lag showed: two reads more at most (see readCurrent). */
const UNLAGGED_MS = 150;
/**
 * quiesce waits this many times the longest lag seen: a lag is measured from the first read to
 * the one that showed the write, a pause (FIRST_PAUSE_MS at least) over the lag itself.
 */
const QUIET_FACTOR = 2;
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
  /** Readings other than known stayed so, with no lag ever seen: the target's doing, not lag (see readCurrent). */
  differed = false;
  /** Hears each longer lag learned (the suites' worker journals it for the after-run clean-up). */
  onLonger?: (ms: number) => void;

  /** A lag the target showed: kept when it is the longest yet, and told to onLonger. */
  learn(ms: number): void {
    if (ms <= this.longestMs) return;
    this.longestMs = ms;
    this.onLonger?.(ms);
  }

  budget(windowMs: number): number {
    if (!this.expired) return windowMs;
    return this.longestMs === 0 ? 0 : Math.min(windowMs, Math.max(LAG_FACTOR * this.longestMs, LAG_FLOOR_MS));
  }
}
/** What this worker learned of the target's lag in this run: see Lag.onLonger. */
export const learnedLag: () => Lag = perRun(() => new Lag());

/**
 * Two reads of a record sent at once disagreed, one showing a write the other did not: reads go
 * back in time on this target. Its lag is taken as a pause at least (the first read that waits for
 * a write learns it better), so that readings content cannot tell from older ones wait for it
 * (quiesce) before the lanes judge any.
 */
export function readsGoBack(lag = learnedLag()): void {
  lag.learn(FIRST_PAUSE_MS);
}

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
export async function converge<T>(read: () => Promise<T>, shows: (value: T) => boolean, windowMs = CONVERGE_WINDOW_MS, lag = learnedLag()): Promise<Converged<T>> {
  const started = Date.now();
  let value = await read();
  if (shows(value)) return { value, shown: true, waitedMs: 0 };
  const budget = lag.budget(windowMs);
  for (let pause = FIRST_PAUSE_MS; Date.now() - started < budget; pause = Math.min(pause * 2, MAX_PAUSE_MS)) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(0, budget - (Date.now() - started)))));
    const asked = Date.now();
    value = await read();
    if (shows(value)) {
      // The lag is known to when the read that showed it was sent: how long that read took (a list of many pages) is not lag.
      lag.learn(asked - started);
      return { value, shown: true, waitedMs: Date.now() - started };
    }
  }
  lag.expired = true;
  return { value, shown: false, waitedMs: Date.now() - started };
}

/**
 * Waits until reads are no longer expected to lag the last write (`since`): QUIET_FACTOR times the
 * longest lag the target showed, from then, and at most a third of the window (a streak of stale
 * reads on a broken target must not make every later read wait seconds; a replica known to lag
 * more is given a longer --converge-window); at once on a target that never lagged. For a reading
 * that content cannot tell from an older one (a record as before the run is what an older copy
 * shows too): after it, one reading stands for the record.
 */
export async function quiesce(since: number, lag = learnedLag(), windowMs = CONVERGE_WINDOW_MS): Promise<void> {
  const wait = since + Math.min(QUIET_FACTOR * lag.longestMs, windowMs / 3) - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/**
 * A reading no older than what the caller knows: read until `current` holds, within the window
 * (see converge). One that content cannot tell from an older one (`indistinct`, see
 * RecordHistory) is, on a target that has shown its lag, asked for once reads no longer lag the
 * last write, and taken as it is: waiting for one that is as expected would take an older copy
 * for proof. Before any lag showed, it is read again like any other, which also learns the lag.
 */
export async function readCurrent<T>(read: () => Promise<T>, current: (value: T) => boolean, indistinct: boolean, windowMs: number, since: number, lag = learnedLag(), novel: (value: T) => boolean = () => false): Promise<T> {
  if (!indistinct) return (await converge(read, current, windowMs, lag)).value;
  if (lag.longestMs > 0) {
    await quiesce(since, lag, windowMs);
    return read();
  }
  // Before any lag showed, two reads more at most (UNLAGGED_MS), never the window, ended by a
  // reading no older copy could show (`novel`): where reads go back in time the next one shows what
  // the target has, and on a target without lag a reading other than known is the target's doing.
  // What they teach of the lag is kept; their running out says nothing of a write not showing
  // (Lag.expired). Once such readings stayed other than known with no lag seen, they are taken as they are.
  if (lag.differed) return read();
  const probe = new Lag();
  const { value, shown } = await converge(read, (v) => current(v) || novel(v), Math.min(windowMs, UNLAGGED_MS), probe);
  lag.learn(probe.longestMs);
  lag.differed ||= !shown && lag.longestMs === 0;
  return value;
}

/** The window of this run (--converge-window), from the target the suites were given. */
export const windowOf = (target: Partial<Limits>): number => limitsOf(target).convergeWindowMs;
