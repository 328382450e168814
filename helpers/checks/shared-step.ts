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

/**
 * Requests that change nothing and depend on nothing, each the subject of its own check: all go
 * out together when the first check needs its answer, so they cost one round trip instead of one
 * each. A check gets its own answer, and only its own exchanges in its report; `settled()` waits
 * for every answer (sending them if none was needed yet) without taking their exchanges. A key
 * not in `keys` (its check was not expected to run) is sent alone.
 */
export function concurrentSteps<K, T>(keys: K[], work: (key: K) => Promise<T>): ((key: K) => Promise<T>) & { settled(): Promise<unknown> } {
  const logs = new Map<K, Exchange[]>();
  let sent: Map<K, Promise<T>> | undefined;
  const send = (key: K) => {
    const log: Exchange[] = [];
    logs.set(key, log);
    const answer = withExchangeLog(log, () => work(key));
    answer.catch(() => {}); // awaited by its own check, which reports the failure
    return answer;
  };
  const sendAll = () => (sent ??= new Map(keys.map((k) => [k, send(k)])));
  const step = async (key: K) => {
    const answer = sendAll().get(key) ?? send(key);
    try {
      return await answer;
    } finally {
      for (const e of logs.get(key) ?? []) recordExchange(e);
    }
  };
  return Object.assign(step, { settled: () => Promise.allSettled(sendAll().values()) });
}
