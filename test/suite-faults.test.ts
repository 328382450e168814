/**
 * The suite's own errors are never the target's failure, and never reach a user in a library's
 * words: a TypeError or an assertion library's error in a check blocks it "by the suite".
 */
import { expect, test } from 'vitest';
import { asBlocked, Blocked } from '../helpers/checks/definition.ts';

test('a programming error in a check blocks it by the suite; a judgement of the target stays a failure', () => {
  const typeError = asBlocked(new TypeError("Cannot read properties of undefined (reading 'id')"));
  expect(typeError).toBeInstanceOf(Blocked);
  expect(typeError?.by).toBe('the suite');
  expect(typeError?.message).toBe("blocked by the suite: the suite could not judge this check: an error in its own code (TypeError: Cannot read properties of undefined (reading 'id')); this says nothing of the target, please report it");
  const assertion = Object.assign(new Error('expected false to be true // Object.is equality'), { name: 'AssertionError' });
  expect(asBlocked(assertion)?.message).not.toMatch(/expected|Object\.is/);
  // The target's failure, as ensure() says it, is judged.
  expect(asBlocked(new Error('PATCH /api/v1/business answered 500'))).toBeUndefined();
});
