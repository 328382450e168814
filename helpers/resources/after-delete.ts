import { recordExchange, withExchangeLog, type Exchange } from '../http/exchanges.ts';
import type { Answer } from '../http/client.ts';
import type { CustomerLane, Made, Scope } from './customer-lane.ts';

/** What a step that deletes a customer of its own then asks of its id. */
export interface AfterDelete<T> {
  /** The customer's label (see Scope.make). */
  label: string;
  /** Asks what the id answers once its delete was answered; may write to it (an update, a second delete). */
  probe(made: Made, removed: Answer): Promise<T>;
  /** Reads the list, once every probe of the batch has had its answer, so that no write of the run moves its rows. */
  list?(made: Made, probed: T): Promise<T>;
}

/**
 * Steps that each delete a customer of their own and judge what its id answers then (a deletion,
 * probes of an unknown id) go out as one batch, in phases instead of one after another: their
 * customers are created at once; then, holding the lane alone (no create of this run may be given
 * a deleted id, as a target that reuses ids would; no row moves under a list read), every delete
 * at once, then every probe at once, then the list reads. The first step asked for sends the
 * batch of `expected` (the steps whose checks run); one outside it goes alone. Each step's checks
 * get its own exchanges and its own outcome.
 */
export function afterDeleteSteps<K extends string, T>(lab: CustomerLane, scope: Scope, steps: Record<K, AfterDelete<T>>, expected: K[]): (key: K) => Promise<T> {
  const sent = new Map<K, { outcome: Promise<T>; log: Exchange[] }>();
  let batched = false;
  const send = (keys: K[]) => {
    if (!keys.length) return;
    const logs = keys.map((): Exchange[] => []);
    const outcomes = phases(lab, scope, keys.map((k, i) => ({ step: steps[k], within: <R>(work: () => Promise<R>) => withExchangeLog(logs[i], work) })));
    keys.forEach((k, i) => {
      outcomes[i].catch(() => undefined); // awaited by the step's own checks
      sent.set(k, { outcome: outcomes[i], log: logs[i] });
    });
  };
  return async (key) => {
    if (!batched) {
      batched = true;
      send(expected);
    }
    if (!sent.has(key)) send([key]);
    const { outcome, log } = sent.get(key)!;
    try {
      return await outcome;
    } finally {
      for (const e of log) recordExchange(e);
    }
  };
}

type Within = <R>(work: () => Promise<R>) => Promise<R>;

/** The batch's phases; each step's requests go in its own exchange log (`within`). */
function phases<T>(lab: CustomerLane, scope: Scope, batch: { step: AfterDelete<T>; within: Within }[]): Promise<T>[] {
  const made = batch.map(({ step, within }) => within(() => scope.make(step.label)));
  const done = Promise.allSettled(made).then((customers) =>
    lab.alone(async () => {
      const each = <R>(work: (i: number) => Promise<R>) => Promise.allSettled(batch.map(({ within }, i) => within(() => work(i))));
      const unwrap = <R>(s: PromiseSettledResult<R>) => (s.status === 'fulfilled' ? s.value : Promise.reject(s.reason));
      const removed = await each(async (i) => lab.removeHeld((await unwrap(customers[i])).id));
      const probed = await each(async (i) => batch[i].step.probe(await unwrap(customers[i]), await unwrap(removed[i])));
      return each(async (i) => {
        const value = await unwrap(probed[i]);
        return batch[i].step.list ? batch[i].step.list(await unwrap(customers[i]), value) : value;
      });
    }),
  );
  return batch.map((_, i) => done.then((listed) => (listed[i].status === 'fulfilled' ? listed[i].value : Promise.reject(listed[i].reason))));
}
