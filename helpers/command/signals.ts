const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * The command's Ctrl-C / SIGTERM handling: the first signal calls `first` (stop, restore, clean
 * up), a second one calls `second` (exit at once). Returns a function that removes the handlers.
 */
export function onInterrupt(first: (signal: string) => void, second: (signal: string) => void): () => void {
  let count = 0;
  const handler = (signal: string) => (++count === 1 ? first(signal) : second(signal));
  for (const s of SIGNALS) process.on(s, handler);
  return () => {
    for (const s of SIGNALS) process.off(s, handler);
  };
}
