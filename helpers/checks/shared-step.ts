import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';

/**
 * Work several checks rely on (one deletion that two checks judge), done once. Every check that
 * awaits it gets the exchanges in its own report, as if it had made the requests itself.
 */
export function sharedStep<T>(work: () => Promise<T>): () => Promise<T> {
  const log: Exchange[] = [];
  let done: Promise<T> | undefined;
  return async () => {
    done ??= withExchangeLog(log, work);
    try {
      return await done;
    } finally {
      for (const e of log) recordExchange(e);
    }
  };
}
