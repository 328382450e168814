/** The first share of the variation matrix (test/support/variation-matrix.ts). */
import { readdirSync } from 'node:fs';
import { expect, test } from 'vitest';
import { VARIATION_SHARES, variationMatrix } from './support/variation-matrix.ts';

test('every share of the variation matrix has its test file', () => {
  expect(readdirSync(import.meta.dirname).filter((f) => /^variations(-\d+)?\.test\.ts$/.test(f))).toHaveLength(VARIATION_SHARES);
});

variationMatrix(0);
