import { expect, test } from 'vitest';
import { otherForm, readsAs, sameValue } from '../helpers/records/equivalence.ts';

const hours = [{ day: 'MONDAY', opens: '09:00' }, { day: 'TUESDAY', opens: '10:00' }];

test('a value read back in a form the contract leaves open counts as the value sent', () => {
  expect(sameValue('https://Example.com', 'https://example.com/')).toBe(true);
  expect(sameValue('Owner@Example.com', 'owner@example.com')).toBe(true);
  expect(sameValue('+1 415 555 0199', '+14155550199')).toBe(true);
  expect(sameValue('Conformance name', ' Conformance name ')).toBe(true);
  expect(sameValue([...hours].reverse(), hours)).toBe(true);
  expect(sameValue([hours[0]], [{ ...hours[0], id: 7 }])).toBe(true);
  expect(readsAs([...hours].reverse(), hours).by.map((r) => r.kind)).toEqual(['list']);
  expect(otherForm('businessHours', [...hours].reverse(), hours)).toMatch(/list in another order; not shown/);
  expect(otherForm('name', 'a', 'a')).toBeUndefined();
});

test('a value cut, an element dropped or added, null as text, or another value is not the value sent', () => {
  expect(sameValue('Conformance Check Business', 'Conformance Chec')).toBe(false);
  expect(sameValue([hours[0], hours[0], hours[1]], hours)).toBe(false);
  expect(sameValue(hours, [...hours, hours[0]])).toBe(false);
  expect(sameValue([{ day: 'MONDAY', opens: '09:00' }], [{ day: 'MONDAY' }])).toBe(false);
  expect(sameValue(null, 'null')).toBe(false);
  expect(sameValue(null, '')).toBe(false);
  expect(sameValue('+14155550199', '+14155550198')).toBe(false);
  expect(sameValue('https://example.com/a', 'https://example.com/b')).toBe(false);
  expect(sameValue(true, 'true')).toBe(false);
});
