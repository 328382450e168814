import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A check's time limit holds its own pace, not the length of a list (issue 35: a million customers
 * in pages of 1000 is a thousand answers a read, and a check may read the list three times). The
 * limit (checkTimeMs) runs on while a list read the check waits for still gets its pages: each
 * page answered within the request timeout pushes it on. A check that waits for nothing moving is
 * blocked at its limit, as before.
 */
interface Clock {
  /** The list reads the check waits for now. */
  lists: number;
}

const clocks = new AsyncLocalStorage<Clock>();
/** When a list page last arrived, in this thread. */
let lastPage = 0;

/** Runs a check's work on its own clock. */
export function onClock<T>(work: () => Promise<T>): { work: Promise<T>; waitsOnList(quietMs: number): boolean } {
  const clock: Clock = { lists: 0 };
  return { work: clocks.run(clock, work), waitsOnList: (quietMs) => clock.lists > 0 && Date.now() - lastPage < quietMs };
}

/** A whole-list read the current check (if any) waits for. */
export async function readingList<T>(read: () => Promise<T>): Promise<T> {
  const clock = clocks.getStore();
  if (clock) clock.lists += 1;
  try {
    return await read();
  } finally {
    if (clock) clock.lists -= 1;
  }
}

/** A list page arrived. */
export const pageArrived = (): void => void (lastPage = Date.now());
