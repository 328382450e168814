/**
 * A check's time limit holds its own pace, not the length of a list (issue 35: a million customers
 * in pages of 1000 is a thousand answers a read, and a check may read the list three times). The
 * limit (checkTimeMs) runs on while a list read of the run still gets its pages: each page
 * answered within the request timeout pushes it on. Any list read, not only the check's own: the
 * checks of a batch wait on one read that the first of them asking started (helpers/records/
 * list-passes.ts). A check waiting while no list read moves is blocked at its limit, as before.
 */

/** The whole-list reads under way in this thread. */
let reading = 0;
/** When a list page last arrived, in this thread. */
let lastPage = 0;
/** When a list read last ended. */
let lastEnd = 0;

/**
 * Runs a check's work on the clock: `waitsOnList` tells whether a list read got a page within
 * `quietMs`, under way still or just ended (between one phase's read and the next, the batch's
 * checks write and find for a moment: 4 checks were blocked in that gap at 1 000 000 customers).
 */
export function onClock<T>(work: () => Promise<T>): { work: Promise<T>; waitsOnList(quietMs: number): boolean } {
  return { work: work(), waitsOnList: (quietMs) => lastPage > 0 && Date.now() - lastPage < quietMs && (reading > 0 || Date.now() - lastEnd < quietMs) };
}

/** A whole-list read: the checks' limits run on while it gets its pages. */
export async function readingList<T>(read: () => Promise<T>): Promise<T> {
  reading += 1;
  try {
    return await read();
  } finally {
    reading -= 1;
    lastEnd = Date.now();
  }
}

/** A list page arrived. */
export const pageArrived = (): void => void (lastPage = Date.now());
