const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * The command's Ctrl-C / SIGTERM handling: the first signal calls `first` (stop, restore, clean
 * up), each later one calls `again` with how many came (2: cut the clean-up short; 3: exit at
 * once). Returns a function that removes the handlers.
 */
export function onInterrupt(first: (signal: string) => void, again: (signal: string, count: number) => void): () => void {
  let count = 0;
  const handler = (signal: string) => (++count === 1 ? first(signal) : again(signal, count));
  for (const s of SIGNALS) process.on(s, handler);
  return () => {
    for (const s of SIGNALS) process.off(s, handler);
  };
}
