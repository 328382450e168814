import { hashPair } from './print-buckets.ts';

/**
 * The ids of a long list, each with a small number (the page it was on), in 12 bytes a slot (24 to
 * 48 an id: at most half the slots are taken) rather than a string and a map entry (issue 35: a
 * million ids in 24 MB). An id is kept as a 64-bit digest
 * (hashPair): two ids taken for one has a chance of about n²/2^65, one in 30 million for a million
 * ids, against which the suite would call a record named twice or listed.
 */
export class DigestMap {
  private lo: Uint32Array;
  private hi: Uint32Array;
  /** The value plus one: 0 marks an empty slot. */
  private values: Uint32Array;
  size = 0;

  /** `expected`: about how many ids it will hold (a list's length when last read), so that it is made at its size and never grown (growing holds both sizes at once). */
  constructor(expected = 0) {
    let slots = 1 << 10;
    while (slots < expected * 2.05) slots *= 2;
    [this.lo, this.hi, this.values] = [new Uint32Array(slots), new Uint32Array(slots), new Uint32Array(slots)];
  }

  /** The slot of the digest: where it is, or the empty one where it goes. */
  private slot(lo: number, hi: number): number {
    const mask = this.values.length - 1;
    let i = (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
    while (this.values[i] !== 0 && (this.lo[i] !== lo || this.hi[i] !== hi)) i = (i + 1) & mask;
    return i;
  }

  get(key: string): number | undefined {
    const [lo, hi] = hashPair(key);
    const v = this.values[this.slot(lo, hi)];
    return v === 0 ? undefined : v - 1;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value = 0): this {
    const [lo, hi] = hashPair(key);
    const i = this.slot(lo, hi);
    if (this.values[i] === 0) this.size += 1;
    [this.lo[i], this.hi[i], this.values[i]] = [lo, hi, value + 1];
    if (this.size * 2 > this.values.length) this.grow();
    return this;
  }

  private grow(): void {
    const [lo, hi, values] = [this.lo, this.hi, this.values];
    this.lo = new Uint32Array(values.length * 2);
    this.hi = new Uint32Array(values.length * 2);
    this.values = new Uint32Array(values.length * 2);
    for (let j = 0; j < values.length; j++) {
      if (values[j] === 0) continue;
      const i = this.slot(lo[j], hi[j]);
      [this.lo[i], this.hi[i], this.values[i]] = [lo[j], hi[j], values[j]];
    }
  }
}
