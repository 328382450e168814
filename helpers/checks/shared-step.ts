import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import { Blocked, NotApplicable, type Check, type CheckRun } from './definition.ts';
import type { CheckId } from '../contract/catalog.ts';

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

/**
 * Steps that must go out together to share their moments (the list checks: one read of the list
 * per phase answers them all, helpers/records/list-passes.ts), though the checks that judge them
 * run a few at a time: the first check asking sends every step of the checks that will run; each
 * check gets its step's value (or its error, as its own), the step's exchanges and its notes. A
 * step several checks judge is one key; a check's whole body may be a step of its own (check).
 */
export class StepBatch<C extends object> {
  private readonly bodies = new Map<string, (ctx: C, run: CheckRun) => Promise<unknown>>();
  private readonly stepOf = new Map<CheckId, string>();
  private readonly batches = new WeakMap<C, (key: string) => Promise<{ value: unknown; notes: string[] }>>();

  /** A step under `key`, judged by the checks `ids`: returns how a check gets its value. */
  step<T>(key: string, ids: CheckId[], body: (ctx: C, run: CheckRun) => Promise<T>): (ctx: C, run: CheckRun) => Promise<T> {
    this.bodies.set(key, body);
    for (const id of ids) this.stepOf.set(id, key);
    return async (ctx, run) => {
      const batch = this.batches.get(ctx);
      if (!batch) throw new Error(`the step ${key} was asked for before its batch was opened`);
      const { value, notes } = await batch(key);
      for (const n of notes) run.note(n);
      return value as T;
    };
  }

  /** A check whose body is a step of its own. */
  check(def: Omit<Check<C>, 'run'>, body: (ctx: C, run: CheckRun) => Promise<void>): Check<C> {
    const judge = this.step(def.id, [def.id], body);
    return { ...def, run: judge };
  }

  /** Opens the batch of a lane's run: the steps of the checks `runs` holds go out together. */
  open(ctx: C, runs: (id: CheckId) => boolean): void {
    const keys = [...new Set([...this.stepOf].filter(([id]) => runs(id)).map(([, key]) => key))];
    this.batches.set(ctx, concurrentSteps(keys, async (key) => {
      const notes: string[] = [];
      const run: CheckRun = {
        notApplicable: (reason) => {
          throw new NotApplicable(reason);
        },
        blocked: (by, reason) => {
          throw new Blocked(by, reason);
        },
        note: (text) => void notes.push(text),
      };
      return { value: await this.bodies.get(key)!(ctx, run), notes };
    }));
  }
}
