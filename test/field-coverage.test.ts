/** The values the suite learns from the target: another record's value for a field, an unknown id of the listed form. */
import { expect, test } from 'vitest';
import { otherValue } from '../helpers/resources/field-coverage.ts';
import { idLike } from '../helpers/records/record-shapes.ts';

test('a field takes another record\'s value of the same type, a boolean its opposite, and nothing without one', () => {
  const me = { role: 'owner', active: true, email: 'a@example.com', note: null };
  const others = [{ role: 'owner', email: 'b@example.com' }, { role: 'staff', note: 'x' }];
  expect(otherValue('role', me, others)).toEqual({ value: 'staff' });
  expect(otherValue('active', me, others)).toEqual({ value: false });
  expect(otherValue('email', me, [{ email: 42 }])).toBeUndefined();
  expect(otherValue('role', me, [{ role: 'owner' }])).toBeUndefined();
});

test('an unknown id keeps the form of the listed ones', () => {
  expect(idLike(3, [1, 2, 3])).toBeGreaterThan(3);
  expect(String(idLike('tm_000003', []))).toMatch(/^tm_\d{6}$/);
  expect(idLike('tm_000003', [])).not.toBe('tm_000003');
  expect(String(idLike('3f2a8c1e-0000-4000-8000-000000000001', []))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(idLike('maria', [])).not.toBe('maria');
});
