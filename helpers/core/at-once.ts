/**
 * Requests sent at once whose outcomes are taken as if they had gone one after another: every
 * one is awaited, then the first failure in the given order is thrown, whichever came first in
 * time, so that a check says the same thing however the answers arrived.
 */
export async function atOnce<T extends readonly unknown[]>(work: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * At most `n` pieces of work at a time, the others started in the order they were asked as
 * slots free up; a freed slot goes straight to the next in line.
 */
export function inTurn(n: number): <T>(work: () => Promise<T>) => Promise<T> {
  let free = n;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (free > 0) free -= 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else free += 1;
    }
  };
}
