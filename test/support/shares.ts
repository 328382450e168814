import { readdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * The share of a matrix a test file runs: the files named alike (faults.test.ts,
 * faults-2.test.ts, …) deal the matrix's runs between them, every n-th run each, so that vitest
 * runs them in parallel. The files present are the shares: adding or removing one is all it takes.
 */
export function shareOf(file: string): { index: number; of: number } {
  const stem = basename(file).replace(/(-\d+)?\.test\.ts$/, '');
  const alike = readdirSync(dirname(file)).filter((f) => new RegExp(`^${stem}(-\\d+)?\\.test\\.ts$`).test(f)).sort();
  if (!alike.includes(basename(file))) throw new Error(`${file} is not named like a share (<name>.test.ts, <name>-<n>.test.ts)`);
  return { index: alike.indexOf(basename(file)), of: alike.length };
}
