/**
 * A pairwise covering of dimensions of the given sizes: rows of value indexes, one per dimension,
 * in which every value of each dimension meets every value of every other dimension at least
 * once (and every value shows, where there is a single dimension). Crossing every input with
 * every other grows as their product; meeting each pair grows as the two largest sizes.
 *
 * `seeds` are rows that must be among them; they come first. Greedy and deterministic (a run
 * sends the same crossings every time): each new row starts from the first pair not yet met and
 * takes, dimension by dimension, the value that meets the most pairs not yet met, the earlier
 * value on a tie: a caller that puts each dimension's cheapest value first gets it wherever any
 * value would do (the 401 matrix: a fresh connection before one that needs a request first).
 */
export function pairwise(sizes: number[], seeds: number[][] = []): number[][] {
  if (sizes.some((s) => s === 0)) return [];
  // A pair (i, a, j, b) with i < j, or a single value (i, a, i, a).
  const key = (i: number, a: number, j: number, b: number) => (i < j ? `${i}.${a}.${j}.${b}` : `${j}.${b}.${i}.${a}`);
  const unmet = new Set<string>();
  sizes.forEach((size, i) => {
    for (let a = 0; a < size; a++) {
      unmet.add(key(i, a, i, a));
      for (let j = i + 1; j < sizes.length; j++) for (let b = 0; b < sizes[j]; b++) unmet.add(key(i, a, j, b));
    }
  });
  const rows: number[][] = [];
  const take = (row: number[]) => {
    row.forEach((a, i) => row.forEach((b, j) => unmet.delete(key(i, a, j, b))));
    rows.push(row);
  };
  seeds.forEach((row) => take([...row]));
  while (unmet.size) {
    const [i, a, j, b] = unmet.values().next().value!.split('.').map(Number);
    const row = sizes.map(() => -1);
    row[i] = a;
    row[j] = b;
    sizes.forEach((size, d) => {
      if (row[d] >= 0) return;
      const gain = (v: number) => row.filter((x, e) => x >= 0 && unmet.has(key(e, x, d, v))).length + (unmet.has(key(d, v, d, v)) ? 1 : 0);
      let best = 0;
      for (let v = 1; v < size; v++) if (gain(v) > gain(best)) best = v;
      row[d] = best;
    });
    take(row);
  }
  return rows;
}
