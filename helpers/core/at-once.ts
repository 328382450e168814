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
