/**
 * The pairwise covering the 401 matrix is crossed by (helpers/core/pairwise.ts): every value of
 * each dimension meets every value of every other, the seeds are kept, the same rows every time,
 * and about as few rows as the two largest dimensions need. Its crossings go out a few at a time
 * (inTurn).
 */
import { describe, expect, test } from 'vitest';
import { pairwise } from '../helpers/core/pairwise.ts';
import { inTurn } from '../helpers/core/at-once.ts';

/** The pairs (and, for one dimension, the values) the rows leave unmet. */
function unmet(sizes: number[], rows: number[][]): string[] {
  const met = new Set(rows.flatMap((r) => r.flatMap((a, i) => r.map((b, j) => `${i}=${a},${j}=${b}`))));
  const missing: string[] = [];
  sizes.forEach((si, i) => sizes.forEach((sj, j) => {
    if (j < i) return;
    for (let a = 0; a < si; a++) for (let b = 0; b < sj; b++) if ((i !== j || a === b) && !met.has(`${i}=${a},${j}=${b}`)) missing.push(`${i}=${a},${j}=${b}`);
  }));
  return missing;
}

describe('pairwise', () => {
  test.each([[[20, 6, 2, 2]], [[20, 6, 5, 2, 2]], [[3, 3, 3, 3]], [[2, 2, 2, 2, 2, 2, 2, 2, 2, 2]], [[7]], [[4, 1, 3]], [[1, 1]]])('meets every pair of %j, each row a value of each dimension', (sizes) => {
    const rows = pairwise(sizes);
    expect(unmet(sizes, rows)).toEqual([]);
    for (const row of rows) expect(row.every((v, d) => Number.isInteger(v) && v >= 0 && v < sizes[d]) && row.length === sizes.length).toBe(true);
  });

  test('random sizes: every pair met, and the same rows every time', () => {
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n) + 1;
    for (let round = 0; round < 40; round++) {
      const sizes = Array.from({ length: next(6) }, () => next(7));
      const rows = pairwise(sizes);
      expect(unmet(sizes, rows)).toEqual([]);
      expect(pairwise(sizes)).toEqual(rows);
    }
  });

  test('keeps the seeds first, and adds only what they leave unmet', () => {
    const sizes = [20, 6, 5, 2, 2];
    const seeds = Array.from({ length: 20 }, (_, k) => [k, 0, 0, 0, 0]);
    const rows = pairwise(sizes, seeds);
    expect(rows.slice(0, 20)).toEqual(seeds);
    expect(unmet(sizes, rows)).toEqual([]);
    // Each of the 20 meets each of the 6: 120 rows at least; the greedy covering stays near it.
    expect(rows.length).toBeGreaterThanOrEqual(120);
    expect(rows.length).toBeLessThanOrEqual(130);
    // The earlier value wherever any would do: the last dimension's second value (a request
    // more, in the 401 matrix) shows about as often as meeting each of the 20 needs.
    expect(rows.filter((r) => r[4] === 1).length).toBeLessThanOrEqual(26);
  });

  test('a dimension without values leaves nothing to cross', () => {
    expect(pairwise([3, 0, 2])).toEqual([]);
    expect(pairwise([])).toEqual([]);
  });
});

describe('inTurn', () => {
  test('runs at most n at a time, all of them, in the order asked, and goes on after a failure', async () => {
    const turn = inTurn(3);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const work = (i: number) => turn(async () => {
      started.push(i);
      running += 1;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5 + (i % 4)));
      running -= 1;
      if (i === 4) throw new Error('four');
      return i;
    });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => work(i)));
    expect(most).toBe(3);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<number>).value)).toEqual(Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 4));
    // Slots freed by the failure too: more work still runs.
    expect(await turn(async () => 'after')).toBe('after');
  });
});
