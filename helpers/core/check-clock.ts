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

/** Runs a check's work on the clock: `waitsOnList` tells whether a list read still gets pages. */
export function onClock<T>(work: () => Promise<T>): { work: Promise<T>; waitsOnList(quietMs: number): boolean } {
  return { work: work(), waitsOnList: (quietMs) => reading > 0 && Date.now() - lastPage < quietMs };
}

/** A whole-list read: the checks' limits run on while it gets its pages. */
export async function readingList<T>(read: () => Promise<T>): Promise<T> {
  reading += 1;
  try {
    return await read();
  } finally {
    reading -= 1;
  }
}

/** A list page arrived. */
export const pageArrived = (): void => void (lastPage = Date.now());
