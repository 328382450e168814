import { asBlocked, Blocked, NotApplicable } from './check.ts';
import { Interference } from '../safety/interference.ts';
import type { CheckId } from '../contract/catalog.ts';

/**
 * What a check needs before it can judge anything (a list to pick from, a record to read, an
 * update that works) is another check's subject: when it fails here, the check is blocked by that
 * check, which fails for it. One root cause, one failure: a missing find fails TM-FIND, and the
 * checks that read a member first are blocked by it (see Blocked in check.ts).
 */
export async function needs<T>(by: CheckId, work: Promise<T> | (() => Promise<T>)): Promise<T> {
  try {
    return await (typeof work === 'function' ? work() : work);
  } catch (error) {
    throw blockedBy(by, error);
  }
}

/** Like ensure(), for a condition another check judges: the running check is blocked by `by` when it does not hold. */
export function needsThat(by: CheckId, condition: unknown, message: string | (() => string)): asserts condition {
  if (!condition) throw new Blocked(by, typeof message === 'string' ? message : message());
}

/** The error as `by`'s failure; outcomes of their own (not applicable, blocked, interference) stay what they are. */
function blockedBy(by: CheckId, error: unknown): unknown {
  if (error instanceof NotApplicable || error instanceof Interference) return error;
  const own = asBlocked(error);
  if (own) return own;
  return new Blocked(by, error instanceof Error ? error.message.split('\n')[0] : String(error));
}
