/** Every statement the contract leaves open has its variations, and a share of the variation matrix (test/support/variation-matrix.ts). */
import { expect, test } from 'vitest';
import { conflict, variationGroups, variationMatrix, vendorConfigOf } from './support/variation-matrix.ts';
import { VARIATIONS } from '../reference/variations.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';

// What the contract leaves open is filled in at least two realistic ways besides the
// plain reference's, each of which the matrix below holds to a pass with the data as found.
test('every statement the contract leaves open has at least two variations of its own', () => {
  for (const { key, statement } of loadCatalog().notChecked) {
    expect(VARIATIONS.filter((v) => v.notShown === key).map((v) => v.name).length, `${key}: ${statement}`).toBeGreaterThanOrEqual(2);
  }
});

test('the runs of the matrix hold every variation once, and never two that conflict', () => {
  const groups = variationGroups(VARIATIONS);
  expect(groups.flat().map((v) => v.name).sort()).toEqual(VARIATIONS.map((v) => v.name).sort());
  for (const g of groups) {
    expect(g.flatMap((v) => g.filter((w) => conflict(v, w)).map((w) => `${v.name} + ${w.name}`))).toEqual([]);
    expect(() => vendorConfigOf(g)).not.toThrow();
  }
});

// Variations of one point that name nothing in common may be one product; those that name the same thing, or nothing, may not.
test('variations conflict when they fill in one point for the same thing', () => {
  const named = (name: string) => VARIATIONS.find((v) => v.name === name)!;
  expect(conflict(named('currency-whitelist'), named('time-zone-whitelist'))).toBe(false);
  expect(conflict(named('currency-whitelist'), named('currency-single'))).toBe(true);
  expect(conflict(named('sparse-records'), named('timestamps'))).toBe(true);
  expect(conflict(named('ids-integer'), named('ids-prefixed'))).toBe(true);
  expect(conflict(named('customers-snake-case'), named('customer-fields-snake-case'))).toBe(true);
  expect(conflict(named('ids-integer'), named('timestamps'))).toBe(false);
});

variationMatrix(import.meta.filename);
