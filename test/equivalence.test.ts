import { expect, test } from 'vitest';
import { otherForm, readsAs, sameValue } from '../helpers/records/equivalence.ts';

const hours = [{ day: 'MONDAY', opens: '09:00' }, { day: 'TUESDAY', opens: '10:00' }];

test('a value read back in a form the contract leaves open counts as the value sent', () => {
  expect(sameValue('https://Example.com', 'https://example.com/')).toBe(true);
  expect(sameValue('Owner@Example.com', 'owner@example.com')).toBe(true);
  expect(sameValue('+1 415 555 0199', '+14155550199')).toBe(true);
  expect(sameValue('Conformance name', ' Conformance name ')).toBe(true);
  expect(sameValue('Zürich 東京 𝄞', 'Zu\u0308rich 東京 𝄞')).toBe(true);
  expect(sameValue([...hours].reverse(), hours)).toBe(true);
  expect(sameValue([hours[0]], [{ ...hours[0], id: 7 }])).toBe(true);
  expect(readsAs([...hours].reverse(), hours).by.map((r) => r.kind)).toEqual(['list']);
  expect(otherForm('businessHours', [...hours].reverse(), hours)).toMatch(/list in another order; not shown/);
  expect(otherForm('name', 'a', 'a')).toBeUndefined();
});

test('a value cut, an element dropped or added, null as text, or another value is not the value sent', () => {
  expect(sameValue('Conformance Check Business', 'Conformance Chec')).toBe(false);
  expect(sameValue('Zürich Ελλάδα 東京 𝄞', 'Zrich   ')).toBe(false);
  expect(sameValue('Zürich 𝄞', 'Zürich ?')).toBe(false);
  expect(sameValue([hours[0], hours[0], hours[1]], hours)).toBe(false);
  expect(sameValue(hours, [...hours, hours[0]])).toBe(false);
  expect(sameValue([{ day: 'MONDAY', opens: '09:00' }], [{ day: 'MONDAY' }])).toBe(false);
  expect(sameValue(null, 'null')).toBe(false);
  expect(sameValue(null, '')).toBe(false);
  expect(sameValue('+14155550199', '+14155550198')).toBe(false);
  expect(sameValue('https://example.com/a', 'https://example.com/b')).toBe(false);
  expect(sameValue(true, 'true')).toBe(false);
});

test('one element more is an element the list lacks under the table, made of its own values; none when it cannot be made', async () => {
  const { oneMore } = await import('../helpers/resources/business-values.ts');
  const week = [{ day: 'MONDAY', opens: '09:00', closes: '17:00' }, { day: 'TUESDAY', opens: '09:00', closes: '17:00' }, { day: 'WEDNESDAY', opens: '10:00', closes: '18:00' }];
  const more = oneMore(week);
  expect(week.some((e) => sameValue(more, e) || sameValue(e, more))).toBe(false);
  // Another element's value for one property: a day the list holds, so a product keeping one element a day shows it.
  expect(more).toEqual({ day: 'WEDNESDAY', opens: '09:00', closes: '17:00' });
  // An element that differs only by spaces the target may trim is one it holds.
  expect(oneMore([{ day: 'MONDAY' }, { day: ' MONDAY ' }])).toBeUndefined();
  // One element: two of its properties of one form exchanged; a known element first.
  expect(oneMore([week[0]])).toEqual({ day: 'MONDAY', opens: '17:00', closes: '09:00' });
  expect(oneMore([week[0]], [week[0], week[2]])).toEqual(week[2]);
  expect(oneMore(['MONDAY', 'TUESDAY'])).toBeUndefined();
});
