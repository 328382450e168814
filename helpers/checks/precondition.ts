import { asBlocked, Blocked, NotApplicable } from './definition.ts';
import { Interference } from '../safety/interference.ts';
import type { CheckId } from '../contract/catalog.ts';

/**
 * What a check needs before it can judge anything (a list to pick from, a record to read, an
 * update that works) is another check's subject: when it fails here, the check is blocked by that
 * check, which fails for it. One root cause, one failure: a missing find fails TM-FIND, and the
 * checks that read a member first are blocked by it (see Blocked in definition.ts).
 */
export async function needs<T>(by: CheckId, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (error) {
    // Outcomes of their own (not applicable, interference) stay what they are.
    if (error instanceof NotApplicable || error instanceof Interference) throw error;
    throw asBlocked(error, by);
  }
}

/** Like ensure(), for a condition another check judges: the running check is blocked by `by` when it does not hold. */
export function needsThat(by: CheckId, condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Blocked(by, typeof message === 'string' ? message : message());
}
