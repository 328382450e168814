/** Every statement the contract leaves open has its variations, and a share of the variation matrix (test/support/variation-matrix.ts). */
import { expect, test } from 'vitest';
import { variationGroups, variationMatrix } from './support/variation-matrix.ts';
import { VARIATIONS } from '../reference/variations.ts';
import { loadCatalog } from '../helpers/contract/catalog.ts';

// What the contract leaves open is filled in at least two realistic ways besides the
// plain reference's, each of which the matrix below holds to a pass with the data as found.
test('every statement the contract leaves open has at least two variations of its own', () => {
  for (const { key, statement } of loadCatalog().notChecked) {
    expect(VARIATIONS.filter((v) => v.notShown === key).map((v) => v.name).length, `${key}: ${statement}`).toBeGreaterThanOrEqual(2);
  }
});

test('the runs of the matrix hold every variation once, and never two of one open point', () => {
  const groups = variationGroups(VARIATIONS);
  expect(groups.flat().map((v) => v.name).sort()).toEqual(VARIATIONS.map((v) => v.name).sort());
  for (const g of groups) expect(new Set(g.map((v) => v.notShown)).size, g.map((v) => v.name).join(' + ')).toBe(g.length);
});

variationMatrix(import.meta.filename);
