/** The fault catalog is well formed, and the first share of the fault matrix (test/support/fault-matrix.ts). */
import { expect, test } from 'vitest';
import { FAULTS } from '../reference/faults/index.ts';
import { faultMatrix } from './support/fault-matrix.ts';

test('the fault catalog names at least one check to kill for every fault', () => {
  for (const f of FAULTS) expect(f.kills.length + (f.untested?.length ?? 0), f.name).toBeGreaterThan(0);
  expect(new Set(FAULTS.map((f) => f.name)).size).toBe(FAULTS.length);
});

faultMatrix(import.meta.filename);
